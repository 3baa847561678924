"""How dlbridge exchanges arrays with each framework.

Consulted by the extension once per array type (the answers are cached in
C++), and by ``from_dlpack`` for device objects: never on the hot path.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from . import _dlbridge


@dataclass(frozen=True)
class _Framework:
    """One framework's DLPack functions.

    Attributes:
        module: the module holding ``from_dlpack`` (and ``to_dlpack``).
        capsules: its functions take and return DLPack capsules rather than
            arrays with ``__dlpack__`` (TensorFlow).
        immutable: its arrays never change after creation (JAX, TensorFlow),
            whatever flags their capsules carry: imported READ_ONLY, so no
            written parameter can take one.
        current_stream: the function returning the DLPack stream value of
            the framework's current CUDA stream, where its arrays come
            through ``__dlpack__`` (CuPy): calls on its arrays run on that
            stream, as the framework's own operations do. PyTorch's comes
            from its DLPack exchange API.
        torch_state: its tensors carry state DLPack does not (PyTorch's):
            conjugate and negative bits, which the extension materialises
            for read parameters and refuses for written ones, and autograd's
            rules on in-place writes and version counters (see
            ``TorchState``).
    """

    module: str
    capsules: bool = False
    immutable: bool = False
    current_stream: Callable[[], int] | None = None
    torch_state: bool = False


def _cupy_current_stream() -> int:
    """CuPy's current stream as a DLPack stream value: its null stream is
    CUDA's legacy default stream (1)."""
    cupy = importlib.import_module("cupy")
    pointer = int(cupy.cuda.get_current_stream().ptr)
    return pointer if pointer else 1


# By top-level module of an array type (or of one of its bases).
_FRAMEWORKS = {
    "numpy": _Framework("numpy"),
    "jax": _Framework("jax.numpy", immutable=True),
    "jaxlib": _Framework("jax.numpy", immutable=True),
    "torch": _Framework("torch", torch_state=True),
    "cupy": _Framework("cupy", current_stream=_cupy_current_stream),
    "tensorflow": _Framework("tensorflow.experimental.dlpack", capsules=True, immutable=True),
}

# Names frameworks give device types that are not DLPack's own (those are
# libdlrt's, see dlrt_parse_device_type): TensorFlow's "gpu", PyTorch's "xpu".
_DEVICE_ALIASES = {"gpu": "cuda", "xpu": "oneapi"}


def _root(cls: type) -> str:
    return cls.__module__.split(".")[0]


def _framework_of(array_type: type) -> _Framework | None:
    """The framework of ``array_type`` or of its nearest base a framework owns:
    subclasses of ``numpy.ndarray`` (``np.memmap``, a user's) are NumPy's."""
    for cls in array_type.__mro__:
        framework = _FRAMEWORKS.get(_root(cls))
        if framework is not None:
            return framework
    return None


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ImportError:
        return None


def from_dlpack_for(array_type: type) -> Callable[[Any], Any] | None:
    """The function that makes arrays of ``array_type``'s framework from a
    ``dlbridge.Tensor``.

    Returns ``None`` when there is none: results then stay ``dlbridge.Tensor``s.
    Types no framework in the table owns use their top-level module's
    ``from_dlpack``, if it has one.
    """
    framework = _framework_of(array_type)
    if framework is None:
        module = _import(_root(array_type))
        found: Callable[[Any], Any] | None = getattr(module, "from_dlpack", None)
        return found
    module = _import(framework.module)
    if module is None:
        return None
    from_dlpack: Callable[[Any], Any] = module.from_dlpack
    if framework.capsules:
        return lambda tensor: from_dlpack(tensor.__dlpack__())
    return from_dlpack


class TorchState(NamedTuple):
    """What the extension needs of PyTorch to honour the state its tensors
    carry beyond DLPack's description (the conjugate and negative bits are
    read through the tensors' own methods).

    Attributes:
        increment_version: ``torch._C._increment_version``, called with the
            tensors a kernel wrote in place, as PyTorch asks of custom kernels
            (``torch.autograd.graph.increment_version``), so that autograd
            refuses a backward pass that would read overwritten values.
        write_refusal: ``autograd_write_refusal``.
    """

    increment_version: Callable[[tuple[Any, ...]], None]
    write_refusal: Callable[[Any], str | None]


def autograd_write_refusal(tensor: Any) -> str | None:
    """Why PyTorch's own in-place operations would refuse to write ``tensor``
    now, in PyTorch's words, or ``None`` when they would write it.

    Called only for tensors that require grad or are inference tensors. A
    tensor that requires grad is refused also where PyTorch would record the
    write (a non-leaf, under grad mode): a kernel's writes are not
    differentiable, so the gradient would silently ignore them.
    """
    torch = importlib.import_module("torch")
    if tensor.is_inference() and not torch.is_inference_mode_enabled():
        return ("Inplace update to inference tensor outside InferenceMode is not allowed; "
                "pass a clone of it, or call inside torch.inference_mode()")
    if not tensor.requires_grad or not torch.is_grad_enabled():
        return None
    if tensor.is_leaf:
        return ("a leaf Variable that requires grad is being used in an in-place operation; "
                "call under torch.no_grad() or pass tensor.detach()")
    base = tensor._base
    if base is not None and base.is_leaf:
        return ("a view of a leaf Variable that requires grad is being used in an in-place "
                "operation; call under torch.no_grad() or pass tensor.detach()")
    return ("a Variable that requires grad is being written in place by a dlbridge kernel, "
            "which autograd cannot differentiate; call under torch.no_grad() or pass "
            "tensor.detach()")


def _torch_state() -> TorchState:
    torch = importlib.import_module("torch")
    return TorchState(torch._C._increment_version, autograd_write_refusal)


class Exchange(NamedTuple):
    """How arrays of one type reach DLPack (see ``exporter_of``)."""

    to_dlpack: Callable[[Any], Any] | None
    immutable: bool
    current_stream: Callable[[], int] | None
    torch_state: TorchState | None


def exporter_of(array_type: type) -> Exchange:
    """How arrays of ``array_type`` reach DLPack: the function exporting one as
    a capsule for types without ``__dlpack__`` (else ``None``), whether such
    arrays are immutable, so that they are imported READ_ONLY (and handed back
    to legacy consumers without a copy), the function returning the
    framework's current stream (else ``None``, see
    ``_Framework.current_stream``), and the state its tensors carry beyond
    DLPack (else ``None``, see ``_Framework.torch_state``)."""
    framework = _framework_of(array_type)
    if framework is None:
        return Exchange(None, False, None, None)
    to_dlpack = None
    if framework.capsules:
        module = _import(framework.module)
        to_dlpack = None if module is None else module.to_dlpack
    torch_state = _torch_state() if framework.torch_state else None
    return Exchange(to_dlpack, framework.immutable, framework.current_stream, torch_state)


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
    if _root(type(device)) == "cupy" and isinstance(getattr(device, "id", None), int):
        return _device_type("cuda", device), device.id
    raise TypeError(
        "from_dlpack(): expected device as a (device_type, device_id) tuple, a name such as "
        f"'cpu' or 'cuda:0', or a framework's device object, got {device!r}")


def _device_type(name: str, device: Any) -> int:
    """The DLDeviceType of a device type name, any case, aliases included."""
    name = name.lower()
    try:
        return _dlbridge.device_type(_DEVICE_ALIASES.get(name, name))
    except ValueError as error:
        raise ValueError(
            f"from_dlpack(): expected a DLPack device, got {device!r} ({error})") from None
