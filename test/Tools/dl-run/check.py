"""Compares a .npy file dl-run wrote with a NumPy reference.

    check.py RESULT.npy EXPRESSION [NAME=FILE.npy ...] [--rtol R] [--order C|F]

EXPRESSION is evaluated with `np` and each NAME bound to np.load(FILE). The
result must have the reference's dtype and shape and equal it (floats and
complex within rtol, default 1e-6); --order also checks the file's memory
order. Prints 'ok: <dtype> <shape>' or the mismatch, exiting 1.
"""

import sys

import numpy as np


def main(argv):
    rtol = 1e-6
    order = None
    args = []
    it = iter(argv[1:])
    for arg in it:
        if arg == "--rtol":
            rtol = float(next(it))
        elif arg == "--order":
            order = next(it)
        else:
            args.append(arg)
    result_path, expression, bindings = args[0], args[1], args[2:]
    env = {"np": np}
    for binding in bindings:
        name, path = binding.split("=", 1)
        env[name] = np.load(path)
    expected = np.asarray(eval(expression, env))
    result = np.load(result_path)
    if result.dtype != expected.dtype:
        sys.exit(f"dtype mismatch: got {result.dtype}, expected {expected.dtype}")
    if result.shape != expected.shape:
        sys.exit(f"shape mismatch: got {result.shape}, expected {expected.shape}")
    if order == "F" and not (result.flags.f_contiguous and not result.flags.c_contiguous):
        sys.exit("expected a Fortran-order file")
    if order == "C" and not result.flags.c_contiguous:
        sys.exit("expected a C-order file")
    if np.issubdtype(expected.dtype, np.inexact):
        ok = np.allclose(result, expected, rtol=rtol, atol=rtol)
    else:
        ok = np.array_equal(result, expected)
    if not ok:
        sys.exit(f"value mismatch:\ngot\n{result}\nexpected\n{expected}")
    print(f"ok: {result.dtype} {result.shape}")


if __name__ == "__main__":
    main(sys.argv)
