"""``minigrad.utils.benchmark`` (``torch.utils.benchmark``): timing with evidence.

``Timer`` (``timer.py``) runs a statement in calibrated blocks and returns a ``Measurement``
(``common.py``: median, IQR, significant figures, the IQR warning); ``Compare`` (``compare.py``)
lays many Measurements out as tables. Use them to turn "it feels faster" into a median with its
spread.
"""
from .common import Measurement, TaskSpec, select_unit, trim_sigfig
from .compare import Colorize, Compare
from .timer import Language, Timer, timer

__all__ = ["Timer", "timer", "Language", "Measurement", "TaskSpec", "Compare", "Colorize",
           "select_unit", "trim_sigfig"]
