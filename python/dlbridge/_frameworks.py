"""Which framework a result goes back to.

Consulted by the extension once per input type (the result of the first call
with a type is cached in C++), never on the hot path.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

# from_dlpack of frameworks whose top-level module does not provide it.
_FROM_DLPACK = {
    "numpy": ("numpy", "from_dlpack"),
    "jax": ("jax.numpy", "from_dlpack"),
    "jaxlib": ("jax.numpy", "from_dlpack"),
    "torch": ("torch", "from_dlpack"),
    "cupy": ("cupy", "from_dlpack"),
}


def from_dlpack_for(array_type: type) -> Callable[[Any], Any] | None:
    """The ``from_dlpack`` that makes arrays of ``array_type``'s framework.

    Returns ``None`` when the framework has none: results then stay
    ``dlbridge.Tensor``s.
    """
    root = array_type.__module__.split(".")[0]
    module_name, attribute = _FROM_DLPACK.get(root, (root, "from_dlpack"))
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return getattr(module, attribute, None)
