"""Signal-processing helpers of NumPy's namespace: ``angle``, ``unwrap``, ``sinc`` and the
window functions ``bartlett``, ``blackman``, ``hamming``, ``hanning``.

Each is NumPy's own formula written on the traced operations, so its rounding and dtype are
NumPy's; a window's length may be a dynamic size.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import lowering
from .numpy_proxy import numpy_proxy as xp
from .registry import op

__all__ = ["angle", "sinc", "unwrap"]


@op("angle")
@lowering.numpy_unless_traced(np.angle)
def angle(z: Any, deg: bool = False) -> Any:
    """The counterclockwise angle from the positive real axis (radians, or degrees)."""
    z = xp.asanyarray(z)
    if np.issubdtype(z.dtype, np.complexfloating):
        a = xp.arctan2(z.imag, z.real)
    else:
        a = xp.arctan2(0, z)
    return a * (180 / math.pi) if deg else a


@op("sinc")
@lowering.numpy_unless_traced(np.sinc)
def sinc(x: Any) -> Any:
    """``sin(pi x) / (pi x)``, 1 at 0."""
    x = xp.asanyarray(x)
    y = math.pi * xp.where(x == 0, 1.0e-20, x)
    return xp.sin(y) / y


@op("unwrap")
@lowering.numpy_unless_traced(np.unwrap)
def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: Any = 2 * math.pi) -> Any:
    """``p`` with jumps larger than ``max(discont, period / 2)`` along ``axis`` replaced by their
    ``period`` complement (NumPy's algorithm)."""
    p = xp.asarray(p)
    nd = p.ndim
    dd = xp.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    after_first = [slice(None)] * nd
    after_first[axis] = slice(1, None)
    dtype = np.result_type(np.empty(0, dtype=dd.dtype), period)
    if np.issubdtype(dtype, np.integer):
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = xp.mod(dd - interval_low, period) + interval_low
    if boundary_ambiguous:
        ddmod = xp.where((ddmod == interval_low) & (dd > 0), interval_high, ddmod).astype(ddmod.dtype)
    ph_correct = xp.where(xp.abs(dd) < discont, 0, ddmod - dd).astype(ddmod.dtype)
    up = xp.array(p, copy=True, dtype=dtype)
    up[tuple(after_first)] = p[tuple(after_first)] + xp.cumsum(ph_correct, axis=axis)
    return up


def _window(name: str, numpy_window: Any, shape: Any) -> Any:
    """Declares NumPy's window ``name`` of ``M`` points, ``shape(n, M - 1)`` over
    ``n = -(M - 1), -(M - 3), ..., M - 1`` and 1 for a single point."""

    def window(M: Any) -> Any:
        n = xp.arange(1 - M, M, 2)
        width = xp.maximum(M - 1, 1) * 1.0
        return xp.where(xp.equal(M, 1), 1.0, shape(n, width))

    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"NumPy's ``{name}`` window of ``M`` points (a dynamic size, or an int argument)."
    return op(name)(lowering.numpy_unless_traced(numpy_window)(window))


_window("hanning", np.hanning, lambda n, w: 0.5 + 0.5 * xp.cos(math.pi * n / w))
_window("hamming", np.hamming, lambda n, w: 0.54 + 0.46 * xp.cos(math.pi * n / w))
_window("blackman", np.blackman,
        lambda n, w: 0.42 + 0.5 * xp.cos(math.pi * n / w) + 0.08 * xp.cos(2.0 * math.pi * n / w))
_window("bartlett", np.bartlett, lambda n, w: xp.where(n <= 0, 1 + n / w, 1 - n / w))
