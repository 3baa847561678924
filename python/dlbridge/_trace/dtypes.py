"""The tracer's dtype model and array API type promotion.

Dtypes are NumPy-style names (``"float32"``, ``"uint8"``, ``"bfloat16"``...).  Promotion between two
arrays follows NumPy 2's ``np.result_type`` (which extends the array API standard's table to mixed
signed/unsigned integers and to integer/float mixes); promotion with Python scalars follows NEP 50
("weak" scalars): a Python scalar takes the dtype of the array it meets when their kinds allow it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "DType",
    "DTYPES",
    "dtype",
    "result_type",
    "weak_result_type",
    "can_cast_same_kind",
    "float_for",
    "BOOL",
    "INT64",
    "UINT64",
    "FLOAT64",
    "COMPLEX128",
]


@dataclass(frozen=True)
class DType:
    """One element type.

    Attributes:
        name: NumPy-style name (``"float32"``).
        kind: ``"b"`` bool, ``"i"`` signed int, ``"u"`` unsigned int, ``"f"`` float, ``"c"`` complex.
        bits: total width in bits (complex64 has 64).
        mlir: the MLIR element type (signless integers; ``complex<f32>`` for complex64).
    """

    name: str
    kind: str
    bits: int
    mlir: str

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_int(self) -> bool:
        """Signed or unsigned integer (not bool)."""
        return self.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.kind == "i"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_inexact(self) -> bool:
        return self.kind in "fc"

    @property
    def component(self) -> DType:
        """The real component type of a complex dtype (itself otherwise)."""
        if self.kind == "c":
            return DTYPES["float32"] if self.bits == 64 else DTYPES["float64"]
        return self

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.name

    def __repr__(self) -> str:
        return f"dlbridge.dtype({self.name!r})"


def _mk(name: str, kind: str, bits: int, mlir: str) -> DType:
    return DType(name, kind, bits, mlir)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        _mk("bool", "b", 8, "i1"),
        _mk("int8", "i", 8, "i8"),
        _mk("int16", "i", 16, "i16"),
        _mk("int32", "i", 32, "i32"),
        _mk("int64", "i", 64, "i64"),
        _mk("uint8", "u", 8, "i8"),
        _mk("uint16", "u", 16, "i16"),
        _mk("uint32", "u", 32, "i32"),
        _mk("uint64", "u", 64, "i64"),
        _mk("float16", "f", 16, "f16"),
        _mk("bfloat16", "f", 16, "bf16"),
        _mk("float32", "f", 32, "f32"),
        _mk("float64", "f", 64, "f64"),
        _mk("complex64", "c", 64, "complex<f32>"),
        _mk("complex128", "c", 128, "complex<f64>"),
    )
}

BOOL = DTYPES["bool"]
INT64 = DTYPES["int64"]
UINT64 = DTYPES["uint64"]
FLOAT32 = DTYPES["float32"]
FLOAT64 = DTYPES["float64"]
COMPLEX64 = DTYPES["complex64"]
COMPLEX128 = DTYPES["complex128"]

_ALIASES = {
    "bool_": "bool",
    "b1": "bool",
    "?": "bool",
    "half": "float16",
    "single": "float32",
    "double": "float64",
    "float": "float64",
    "int": "int64",
    "complex": "complex128",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "c8": "complex64",
    "c16": "complex128",
}


def dtype(spec: object) -> DType:
    """Normalise a dtype given as a :class:`DType`, a name, a NumPy dtype / scalar type, or a
    Python type (``bool``, ``int`` → int64, ``float`` → float64, ``complex`` → complex128).

    Raises:
        TypeError: for an unknown or unsupported dtype.
    """
    if isinstance(spec, DType):
        return spec
    if spec is bool:
        return BOOL
    if spec is int:
        return INT64
    if spec is float:
        return FLOAT64
    if spec is complex:
        return COMPLEX128
    name: str | None = None
    if isinstance(spec, str):
        name = spec
    else:
        # numpy dtypes and scalar types (np.float32, np.dtype('f4')); ml_dtypes' bfloat16 has .name.
        n = getattr(spec, "name", None)
        if isinstance(n, str):
            name = n
        else:
            n = getattr(spec, "__name__", None)
            if isinstance(n, str):
                name = n
        if name is None:
            try:
                name = np.dtype(spec).name  # type: ignore[arg-type]
            except Exception:
                name = None
    if name is not None:
        name = _ALIASES.get(name, name)
        name = name.lstrip("<>=|") if name not in DTYPES else name
        name = _ALIASES.get(name, name)
        if name in DTYPES:
            return DTYPES[name]
    raise TypeError(f"dlbridge: unsupported dtype {spec!r}")


def _float_for_int_bits(bits: int) -> DType:
    """The smallest float that NumPy uses to hold an integer of ``bits`` (int8 → float16...)."""
    if bits <= 8:
        return DTYPES["float16"]
    if bits <= 16:
        return DTYPES["float32"]
    return FLOAT64


def float_for(d: DType) -> DType:
    """The float (or complex) dtype NumPy computes a float function of ``d`` in (``np.exp(int8)`` is
    float16, ``np.exp(int32)`` float64; floats and complexes are kept)."""
    if d.is_inexact:
        return d
    return _float_for_int_bits(d.bits)


def _join_float(a: DType, b: DType) -> DType:
    if a == b:
        return a
    if a.bits == b.bits:  # float16 vs bfloat16
        return FLOAT32
    return a if a.bits > b.bits else b


def _complex_of(f: DType) -> DType:
    return COMPLEX64 if f.bits <= 32 else COMPLEX128


def result_type(a: DType, b: DType) -> DType:
    """Promote two array dtypes (NumPy 2 ``np.result_type`` for the NumPy dtypes; bfloat16 behaves
    like float16 against integers and joins float16 at float32)."""
    if a == b:
        return a
    if a.is_bool:
        return b
    if b.is_bool:
        return a
    if a.is_int and b.is_int:
        if a.kind == b.kind:
            return a if a.bits >= b.bits else b
        s, u = (a, b) if a.is_signed else (b, a)
        if s.bits > u.bits:
            return s
        if u.bits < 64:
            return DTYPES[f"int{max(2 * u.bits, s.bits)}"]
        return FLOAT64  # uint64 with any signed int: NumPy gives float64
    if a.is_int or b.is_int:
        i, x = (a, b) if a.is_int else (b, a)
        f = _float_for_int_bits(i.bits)
        if x.is_float:
            if x.bits == 16 and f.bits == 16:
                return x  # int8/uint8 fit in bfloat16 as in float16
            return _join_float(x, f)
        return _complex_of(_join_float(x.component, f))
    # both inexact
    if a.is_float and b.is_float:
        return _join_float(a, b)
    return _complex_of(_join_float(a.component, b.component))


# Python scalar kinds in promotion order
_SCALAR_KINDS = ("bool", "int", "float", "complex")


def scalar_kind_of(value: object) -> str:
    """``"bool"``, ``"int"``, ``"float"`` or ``"complex"`` for a Python (or NumPy Python-like)
    scalar."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, complex):
        return "complex"
    raise TypeError(f"not a Python scalar: {value!r}")


def default_dtype_of_kind(kind: str) -> DType:
    """The dtype a lone weak scalar of ``kind`` takes (bool, int64, float64, complex128)."""
    return {"bool": BOOL, "int": INT64, "float": FLOAT64, "complex": COMPLEX128}[kind]


def join_scalar_kinds(a: str, b: str) -> str:
    """Two Python scalars combined: the higher of the two kinds."""
    return _SCALAR_KINDS[max(_SCALAR_KINDS.index(a), _SCALAR_KINDS.index(b))]


def weak_result_type(arr: DType, kind: str) -> DType:
    """NEP 50: an array of dtype ``arr`` combined with a Python scalar of ``kind``."""
    if kind == "bool":
        return arr
    if kind == "int":
        return INT64 if arr.is_bool else arr
    if kind == "float":
        return arr if arr.is_inexact else FLOAT64
    if kind == "complex":
        if arr.is_complex:
            return arr
        if arr.is_float:
            return _complex_of(arr)
        return COMPLEX128
    raise ValueError(kind)


def int_range(d: DType) -> tuple[int, int]:
    """Inclusive value range of an integer (or bool) dtype."""
    if d.is_bool:
        return 0, 1
    if d.is_unsigned:
        return 0, (1 << d.bits) - 1
    return -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1


# NumPy's order of kinds for ``casting="same_kind"``: a cast may go up this order or stay in a kind
_KIND_ORDER = {"b": 0, "u": 1, "i": 2, "f": 3, "c": 4}


def can_cast_same_kind(src: DType, dst: DType) -> bool:
    """``np.can_cast(src, dst, "same_kind")``: what an in-place ufunc (``x += y``, ``out=``)
    allows when storing its result of dtype ``src`` into an array of dtype ``dst``."""
    return _KIND_ORDER[src.kind] <= _KIND_ORDER[dst.kind]
