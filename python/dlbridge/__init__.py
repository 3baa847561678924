"""dlbridge: compiled array functions called zero-copy on framework tensors.

``@dlbridge.jit`` traces a NumPy-style function into MLIR, compiles it with
LLVM, and calls it on NumPy, PyTorch, JAX or CuPy arrays through DLPack
without copying, returning results in the caller's framework.
``dlbridge.compile`` does the same for hand-written MLIR.
"""

from ._api import JitFunction, clear_cache, compile, inspect, jit, options  # noqa: A004
from ._blas import use_numpy_blas as _use_numpy_blas
from ._dlbridge import Kernel, Tensor, from_dlpack, get_num_threads, set_num_threads
from ._dlbridge import version as __version__
from ._trace import TraceError
from ._trace.public_functions import public as _public_functions

globals().update(_public_functions())
_use_numpy_blas()

__all__ = [
    "JitFunction", "Kernel", "Tensor", "TraceError", "__version__", "clear_cache", "compile", "from_dlpack",
    "get_num_threads", "inspect", "jit", "options", "set_num_threads",
    *sorted(_public_functions()),
]
