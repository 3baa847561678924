"""dlbridge's tracer: turns a Python function over arrays into MLIR (linalg on tensors).

Entry point: :func:`trace`. Every operation is declared once in the op table (``registry``) by
the module implementing it; ``array_methods`` installs ``TracedArray``'s operators and methods
from the table, and ``numpy_dispatch`` routes NumPy's protocols to it.
"""

from . import (  # noqa: F401 - importing a module declares its operations
    array_methods,
    compaction,
    contractions,
    creation,
    elementwise,
    histograms,
    linalg,
    reductions,
    shapes,
)
from .dtypes import DType, result_type, weak_result_type
from .tracer import (
    ArraySpec,
    ResultSpec,
    ScalarSpec,
    StaticSpec,
    SymbolicDim,
    TracedArray,
    TraceError,
    TraceResult,
    unparsable_trace,
)
from .tracing import trace

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
    "unparsable_trace",
    "weak_result_type",
]
