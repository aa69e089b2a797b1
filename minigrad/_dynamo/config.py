"""``minigrad._dynamo.config`` (mirrors ``torch._dynamo.config``): Dynamo's settings, as plain
module attributes with PyTorch 2.13's defaults, so that training scripts' configuration lines
(``torch._dynamo.config.suppress_errors = True``, ``cache_size_limit = 64``) run. minigrad
compiles nothing, so no setting changes anything."""
from __future__ import annotations

suppress_errors = False
verbose = False
cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
dynamic_shapes = True
specialize_int = False
force_parameter_static_shapes = True
optimize_ddp = True
guard_nn_modules = True
error_on_recompile = False
raise_on_ctx_manager_usage = True
log_compilation_metrics = True
replay_record_enabled = False
