"""Op-spec families of the catalogue (``tests/op_specs.py`` gathers them into ``SPECS``).

Each module holds one family's ``SPECS`` list of ``OpSpec`` entries (and may add entries to
``EXEMPT``), so that the catalogue grows by family instead of in one file.
"""
