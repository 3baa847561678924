"""Which framework a result goes back to, and what devices are called.

Consulted by the extension once per input type (the result of the first call
with a type is cached in C++), and by ``from_dlpack`` for device objects:
never on the hot path.
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

# DLDeviceType values by the names frameworks give devices.
_DEVICE_TYPES = {
    "cpu": 1, "cuda": 2, "gpu": 2, "cuda_host": 3, "opencl": 4, "vulkan": 7, "metal": 8,
    "vpi": 9, "rocm": 10, "rocm_host": 11, "ext_dev": 12, "cuda_managed": 13, "oneapi": 14,
    "xpu": 14, "webgpu": 15, "hexagon": 16, "maia": 17, "trn": 18,
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


def dlpack_device_of(device: Any) -> tuple[int, int]:
    """The ``(device_type, device_id)`` of a device as frameworks name them.

    Takes names (``"cpu"``, ``"cuda:1"``, NumPy's ``x.device``,
    ``dlbridge.Tensor.device``), ``torch.device`` (``type``, ``index``), JAX
    devices (``platform``, ``id``), CuPy devices (``id``) and anything with
    ``__dlpack_device__``.

    Raises:
        TypeError: for anything else.
        ValueError: for a name no DLPack device type has.
    """
    if hasattr(device, "__dlpack_device__"):
        kind, index = device.__dlpack_device__()
        return int(kind), int(index)
    if isinstance(device, str):
        name, _, index = device.partition(":")
        return _device_type(name, device), int(index) if index else 0
    kind = getattr(device, "type", None) or getattr(device, "platform", None)
    if isinstance(kind, str):
        index = getattr(device, "index", None)
        if index is None:
            index = getattr(device, "id", 0)
        return _device_type(kind, device), int(index)
    if type(device).__module__.split(".")[0] == "cupy" and isinstance(getattr(device, "id", None), int):
        return _DEVICE_TYPES["cuda"], device.id
    raise TypeError(
        "from_dlpack(): expected device as a (device_type, device_id) tuple, a name such as "
        f"'cpu' or 'cuda:0', or a framework's device object, got {device!r}")


def _device_type(name: str, device: Any) -> int:
    try:
        return _DEVICE_TYPES[name.lower()]
    except KeyError:
        raise ValueError(
            f"from_dlpack(): expected a DLPack device, got {device!r} "
            f"(unknown device type '{name}')") from None
