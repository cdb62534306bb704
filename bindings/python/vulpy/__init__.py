"""VulPy: write Python, run on any GPU, inspect the GLSL it generates.

This file stays importable without the C extension: `python -m vulpy
dump-ast` (the AST JSON for the C frontend) needs nothing compiled.
"""
__version__ = "0.1.0"

from ._astjson import dump_file, dump_function, dump_source, to_json  # noqa: F401
