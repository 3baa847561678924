"""The types the extension's stub (``_dlbridge.pyi``) names.

What ``Kernel`` and ``from_dlpack`` take, and what ``Kernel.signature`` and
``Kernel.mlir`` hold, for type checkers and for annotating user code.
"""

from __future__ import annotations

from typing import Any, List, Literal, Protocol, Tuple, TypedDict, Union

import numpy


class SupportsDLPack(Protocol):
    """An array that exports itself through DLPack: NumPy, PyTorch, JAX and
    CuPy arrays, and ``dlbridge.Tensor``."""

    def __dlpack__(self, /, *, stream: Any = None) -> Any:
        """A DLPack capsule of the array (the array API's ``__dlpack__``)."""


#: What a kernel takes for each parameter: a DLPack array, or a Python or
#: NumPy bool, integer or float scalar.
KernelArgument = Union[
    SupportsDLPack, int, float, numpy.bool_, numpy.integer[Any], numpy.floating[Any]
]


class ScalarParamInfo(TypedDict):
    """A scalar parameter or result of ``Kernel.signature``."""

    name: str
    kind: Literal["scalar"]
    dtype: str


class TensorParamInfo(TypedDict):
    """A tensor parameter or result of ``Kernel.signature``: its sizes (None
    where dynamic), whether it may be strided, and how the kernel uses it."""

    name: str
    kind: Literal["tensor"]
    dtype: str
    shape: Tuple[Union[int, None], ...]
    layout: Literal["contiguous", "strided"]
    access: Literal["read", "write", "read_write", "none"]


#: One entry of ``KernelSignature``'s ``args`` and ``results``; ``kind``
#: tells which.
ParamInfo = Union[ScalarParamInfo, TensorParamInfo]


class KernelSignature(TypedDict):
    """``Kernel.signature``: the entry point's name, device, parameters and results."""

    name: str
    device: str
    args: List[ParamInfo]
    results: List[ParamInfo]


class KernelStages(TypedDict):
    """``Kernel.mlir``: the MLIR compiled and its LLVM-dialect lowering."""

    input: str
    llvm: str
