"""Compares 8-bit float conversions dl-run computed with ml_dtypes.

    check_small_floats.py extend CODES.npy TYPE=VALUES.npy ...
    check_small_floats.py truncate SOURCE.npy TYPE=BITS.npy ...
    check_small_floats.py expmuladd A.npy B.npy TYPE=BITS.npy

TYPE is an ml_dtypes name (float8_e4m3fn, ...). `extend`: VALUES holds the
float32/float64 value of each int8 code in CODES read as TYPE. `truncate`:
BITS holds, as int8, each SOURCE value rounded to TYPE. Both must match
ml_dtypes bit for bit (any NaN matches any NaN). `expmuladd`: A and B
hold TYPE bits; BITS must be those of exp(a * b + a) computed in TYPE
(each step rounded, as ml_dtypes computes). Prints 'ok: TYPE' per
pair, or the first mismatches and exits 1.
"""

import sys

import ml_dtypes
import numpy as np


def check_extend(codes: np.ndarray, small: type, got: np.ndarray) -> list[str]:
    """Mismatches between `got` and the values of `codes` read as `small`."""
    expected = codes.view(small).astype(got.dtype)
    same = (got == expected) & (np.signbit(got) == np.signbit(expected))
    same |= np.isnan(got) & np.isnan(expected)
    return [f"code {codes.view(np.uint8)[i]:#04x}: got {got[i]!r}, expected "
            f"{expected[i]!r}" for i in np.flatnonzero(~same)[:5]]


def round_once(source: np.ndarray, small: type) -> np.ndarray:
    """`source` rounded to `small` once, to nearest even.

    ml_dtypes rounds float64 through float32, twice: a value just off a
    midpoint becomes the midpoint, then rounds to even. Where float32 is not
    exact, the value nearest the source among those of its float32
    neighbours is the once-rounded one (every midpoint is a float32, so
    none lies between them).
    """
    rounded = source.astype(small)
    if source.dtype != np.float64:
        return rounded
    near = source.astype(np.float32)
    inexact = np.isfinite(source) & (near.astype(np.float64) != source)
    candidates = np.stack([np.nextafter(near, np.float32(-np.inf)), near,
                           np.nextafter(near, np.float32(np.inf))]).astype(small)
    # Overflow (to inf, or NaN where there is none) stands for the value one
    # step past the largest.
    largest = np.array(ml_dtypes.finfo(small).max, small)
    below = (largest.view(np.uint8) - np.uint8(1)).view(small)
    past = 2 * float(largest) - float(below)
    values = candidates.astype(np.float64)
    values = np.where(np.isfinite(values), values, np.copysign(past, source))
    distance = np.abs(values - source)
    nearest = np.take_along_axis(candidates, distance.argmin(0)[None], 0)[0]
    rounded[inexact] = nearest[inexact]
    return rounded


def check_truncate(source: np.ndarray, small: type, got: np.ndarray) -> list[str]:
    """Mismatches between the bits in `got` and `source` rounded to `small`."""
    expected = round_once(source, small)
    got_values = got.view(small)
    same = got.view(np.uint8) == expected.view(np.uint8)
    same |= np.isnan(got_values.astype(np.float32)) & np.isnan(
        expected.astype(np.float32))
    return [f"{source[i]!r}: got {got.view(np.uint8)[i]:#04x}, expected "
            f"{expected.view(np.uint8)[i]:#04x}" for i in np.flatnonzero(~same)[:5]]


def main(argv: list[str]) -> None:
    mode = argv[1]
    if mode == "expmuladd":
        a, b = np.load(argv[2]), np.load(argv[3])
        name, path = argv[4].split("=", 1)
        small = getattr(ml_dtypes, name)
        x, y = a.view(small), b.view(small)
        with np.errstate(over="ignore"):
            source = np.exp(x * y + x).astype(np.float32)
        pairs = [argv[4]]
        check = check_truncate
    else:
        source, pairs = np.load(argv[2]), argv[3:]
        check = {"extend": check_extend, "truncate": check_truncate}[mode]
    failed = False
    for pair in pairs:
        name, path = pair.split("=", 1)
        mismatches = check(source, getattr(ml_dtypes, name), np.load(path))
        if mismatches:
            failed = True
            print(f"{mode} {name} mismatches:\n  " + "\n  ".join(mismatches))
        else:
            print(f"ok: {name}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv)
