"""dlbridge's tracer: turns a Python function over arrays into MLIR (linalg on tensors).

Entry point: :func:`trace`.  The public array functions (``exp``, ``where``, ``sum``...) live in
:mod:`dlbridge._trace.functions`.
"""

from .dtypes import DType, result_type, weak_result_type
from .tracer import (
    ArraySpec,
    ResultSpec,
    ScalarSpec,
    StaticSpec,
    SymbolicDim,
    TraceError,
    TraceResult,
    TracedArray,
    trace,
)

__all__ = [
    "ArraySpec",
    "DType",
    "ResultSpec",
    "ScalarSpec",
    "StaticSpec",
    "SymbolicDim",
    "TraceError",
    "TraceResult",
    "TracedArray",
    "result_type",
    "trace",
    "weak_result_type",
]

from . import contractions, creation, elementwise, functions, reductions  # noqa: E402,F401
