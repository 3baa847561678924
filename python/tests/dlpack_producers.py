"""DLPack producers built with ctypes, for the corners real frameworks rarely show.

Each producer exports a NumPy array's memory through a capsule it builds
itself, and counts how often its deleter runs, so tests can assert "exactly
once" on success and error paths alike.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


class DLManagedTensor(ctypes.Structure):
    pass


VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
LegacyDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))

DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", VersionedDeleter),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", LegacyDeleter),
]

READ_ONLY = 1 << 0
IS_COPIED = 1 << 1

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

_DTYPE_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}

# Names passed to PyCapsule_New must outlive the capsules.
_NAMES = {name: ctypes.create_string_buffer(name.encode()) for name in (
    "dltensor_versioned", "dltensor", "used_dltensor_versioned", "used_dltensor")}


class Producer:
    """An object with ``__dlpack__`` exporting ``array`` in a chosen way.

    Args:
        array: the memory to export (kept alive by the producer).
        versioned: export ``DLManagedTensorVersioned`` ("dltensor_versioned").
        legacy_only: ``__dlpack__`` rejects ``max_version`` with TypeError,
            like a pre-1.0 producer.
        major: the DLPack major version written into versioned tensors.
        flags: DLPACK_FLAG_BITMASK_* of versioned tensors.
        capsule_name: overrides the capsule name (e.g. "used_dltensor").
        null_deleter: export with a NULL deleter.
        device: the (device_type, device_id) written into the tensor.
    """

    def __init__(self, array: np.ndarray, *, versioned: bool = True, legacy_only: bool = False,
                 major: int = 1, flags: int = 0, capsule_name: str | None = None,
                 null_deleter: bool = False, device: tuple[int, int] = (1, 0)) -> None:
        self.array = array
        self.versioned = versioned and not legacy_only
        self.legacy_only = legacy_only
        self.major = major
        self.flags = flags
        self.capsule_name = capsule_name
        self.null_deleter = null_deleter
        self.device = device
        self.deleted = 0
        self.requests: list[dict[str, Any]] = []
        self._keep: list[Any] = []

    def _deleter(self, _managed: Any) -> None:
        self.deleted += 1

    def _tensor(self) -> DLTensor:
        a = self.array
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        strides = (ctypes.c_int64 * max(a.ndim, 1))(*(s // a.itemsize for s in a.strides))
        self._keep += [shape, strides]
        t = DLTensor()
        t.data = a.ctypes.data
        t.device = DLDevice(*self.device)
        t.ndim = a.ndim
        t.dtype = DLDataType(_DTYPE_CODES[a.dtype.kind], a.itemsize * 8, 1)
        t.shape = shape
        t.strides = strides
        t.byte_offset = 0
        return t

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: Any = None) -> Any:
        if self.legacy_only and max_version is not None:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.requests.append({"stream": stream, "max_version": max_version})
        if self.versioned and max_version is not None and max_version[0] >= 1:
            managed = DLManagedTensorVersioned()
            managed.version = DLPackVersion(self.major, 3)
            managed.flags = self.flags
            deleter = VersionedDeleter(self._deleter)
            name = self.capsule_name or "dltensor_versioned"
        else:
            managed = DLManagedTensor()
            deleter = LegacyDeleter(self._deleter)
            name = self.capsule_name or "dltensor"
        managed.dl_tensor = self._tensor()
        if not self.null_deleter:
            managed.deleter = deleter
        self._keep += [managed, deleter]
        return _capsule_new(ctypes.addressof(managed), _NAMES[name], None)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


def edit_tensor(producer: Producer, edit: Any) -> Producer:
    """Makes ``producer`` export tensors changed by ``edit(DLTensor)``."""
    build = producer._tensor

    def edited() -> DLTensor:
        tensor = build()
        edit(tensor)
        return tensor
    producer._tensor = edited
    return producer


# -- the DLPack C exchange API ------------------------------------------------------------------


class DLPackExchangeAPIHeader(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("prev_api", ctypes.c_void_p)]


ManagedFromPyObject = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)))
DLTensorFromPyObject = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
ManagedToPyObject = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(DLManagedTensorVersioned), ctypes.POINTER(ctypes.c_void_p))


class DLPackExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("header", DLPackExchangeAPIHeader),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ManagedFromPyObject),
        ("managed_tensor_to_py_object_no_sync", ManagedToPyObject),
        ("dltensor_from_py_object_no_sync", DLTensorFromPyObject),
        ("current_work_stream", ctypes.c_void_p),
    ]


_API_NAME = ctypes.create_string_buffer(b"dlpack_exchange_api")


def exchange_api_type(managed: Any = None, dltensor: Any = None, to_object: Any = None) -> type:
    """A new array type whose ``__dlpack_c_exchange_api__`` calls ``managed``,
    ``dltensor`` and ``to_object`` (Python functions taking the C function's
    arguments and returning its status); ``None`` leaves the function pointer
    NULL. Instances wrap a NumPy array (``.array``)."""
    api = DLPackExchangeAPI()
    api.header.version = DLPackVersion(1, 3)
    if managed is not None:
        api.managed_tensor_from_py_object_no_sync = ManagedFromPyObject(managed)
    if dltensor is not None:
        api.dltensor_from_py_object_no_sync = DLTensorFromPyObject(dltensor)
    if to_object is not None:
        api.managed_tensor_to_py_object_no_sync = ManagedToPyObject(to_object)

    class ExchangeArray:
        _api = api  # keeps the table and its callbacks alive
        __dlpack_c_exchange_api__ = _capsule_new(ctypes.addressof(api), _API_NAME, None)

        def __init__(self, array: np.ndarray) -> None:
            self.array = array

    return ExchangeArray
