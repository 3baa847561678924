"""dlbridge: compiled array functions called zero-copy on framework tensors.

``@dlbridge.jit`` traces a NumPy-style function into MLIR, compiles it with
LLVM, and calls it on NumPy, PyTorch, JAX or CuPy arrays through DLPack
without copying, returning results in the caller's framework.
``dlbridge.compile`` does the same for hand-written MLIR.
"""

from ._api import JitFunction, compile, jit, options  # noqa: A004
from ._dlbridge import Kernel, Tensor, from_dlpack
from ._trace import TraceError
from ._trace.functions import (  # noqa: A004
    abs,
    astype,
    cos,
    erf,
    exp,
    log,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    reshape,
    sigmoid,
    sin,
    sqrt,
    sum,
    tanh,
    transpose,
    where,
)

__all__ = [
    "JitFunction", "Kernel", "Tensor", "TraceError", "abs", "astype", "compile", "cos", "erf",
    "exp", "from_dlpack", "jit", "log", "matmul", "max", "maximum", "mean", "min", "minimum",
    "options", "reshape", "sigmoid", "sin", "sqrt", "sum", "tanh", "transpose", "where",
]
