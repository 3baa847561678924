"""dl-run's .npy reader against NumPy's, on random files and corruptions.

    npy_differential.py DL_RUN WORKDIR [--seed N] [--cases N]

Writes random arrays of every dtype NumPy shares with DLPack (both byte
orders, C and Fortran order, ranks 0-4 with 0- and 1-sized dims, format
versions 1-3) with numpy.lib.format, then corrupts some of them (a flipped
bit, a replaced byte, a cut, appended bytes, an edited length field).
numpy.load is the reference:
- where it loads an array of a dtype dlbridge supports, dl-run must read the
  same dtype, shape and bytes (one dl-run call copies every such array into
  a fresh result through one generated entry);
- where it loads a dtype dlbridge does not support, dl-run must refuse it as
  an unsupported descr;
- where it fails, dl-run must refuse the file (an error naming it, exit 1).
Runs a fixed seed and one fresh one; a disagreement prints the seed, the
case and both answers, and exits 1. Prints "ok: <n> files" otherwise.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import os
import random
import subprocess
import sys
import warnings
from io import BytesIO

import numpy as np
from numpy.lib import format as npy_format

# NumPy dtype -> the MLIR element type of a parameter taking it.
ELEMENT_TYPES = {
    "b1": "i1", "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64",
    "u1": "ui8", "u2": "ui16", "u4": "ui32", "u8": "ui64",
    "f2": "f16", "f4": "f32", "f8": "f64", "c8": "complex<f32>",
    "c16": "complex<f64>",
}
SIGNLESS = {"ui8": "i8", "ui16": "i16", "ui32": "i32", "ui64": "i64"}
# What an edit of a space writes: Python's other spacing, comments,
# continuations, string prefixes, signs and Python 2's long suffix.
SPACE_EDITS = b"\t\f\r\n\v#\\rRuUbBfF+-_L,("
# What an edit of any header byte writes: what a dictionary is made of.
HEADER_BYTES = b"0123456789_-+LuUbBrRfFxX'\" \t\f\r\n#(){}[],:.<>|=?TrueFalsesdhape\\\x00\x80\xff"


def key_of(dtype: np.dtype) -> str | None:
    """The ELEMENT_TYPES key of a NumPy dtype, None when unsupported."""
    if dtype.fields is not None or dtype.subdtype is not None:
        return None
    key = f"{dtype.kind}{dtype.itemsize}"
    return key if key in ELEMENT_TYPES else None


def random_array(rng: random.Random) -> np.ndarray:
    """Random bytes as a random supported dtype, byte order, shape, order."""
    key = rng.choice(sorted(ELEMENT_TYPES))
    dtype = np.dtype(key if key != "b1" else "?")
    if dtype.itemsize > 1:
        dtype = dtype.newbyteorder(rng.choice("<>="))
    ndim = rng.randrange(5)
    shape = tuple(rng.choice([0, 1, 1, 2, 3, 4, 7]) for _ in range(ndim))
    count = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "b":
        array = np.frombuffer(bytes(rng.randrange(2) for _ in range(count)), dtype)
    else:
        array = np.frombuffer(rng.randbytes(count * dtype.itemsize), dtype)
    array = array.reshape(shape)
    if rng.random() < 0.4:
        array = np.asfortranarray(array)
    return array


def encode(array: np.ndarray, rng: random.Random) -> bytes:
    """The .npy image NumPy writes, in a random format version."""
    out = BytesIO()
    version = rng.choice([None, None, (1, 0), (2, 0), (3, 0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        npy_format.write_array(out, array, version=version)
    return out.getvalue()


def header_end(data: bytes) -> int:
    """Where the header of a (possibly cut) image ends."""
    if len(data) < 10:
        return len(data)
    length = int.from_bytes(data[8:10] if data[6] == 1 else data[8:12], "little")
    return min(len(data), (10 if data[6] == 1 else 12) + length)


def corrupt(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One random edit, mostly of the header, and what it was."""
    end = header_end(data)
    # Edits of the header's whitespace find the most: it is a Python literal.
    kind = rng.choices(["space", "byte", "bit", "cut", "append", "length"],
                       [6, 6, 3, 2, 1, 2])[0]
    spaces = [i for i in range(10, end) if data[i] in b" \n"]
    edited = bytearray(data)
    if kind == "space" and spaces:
        where = rng.choice(spaces)
        edited[where] = rng.choice(SPACE_EDITS)
        return bytes(edited), f"space {where} set to {bytes([edited[where]])!r}"
    if kind in ("space", "byte") and end > 0:
        where = rng.randrange(end)
        edited[where] = rng.choice(HEADER_BYTES)
        return bytes(edited), f"byte {where} set to {bytes([edited[where]])!r}"
    if kind in ("space", "byte", "bit"):
        where = rng.randrange(len(data)) if rng.random() < 0.3 or end == 0 else rng.randrange(end)
        bit = rng.randrange(8)
        edited[where] ^= 1 << bit
        return bytes(edited), f"bit {bit} of byte {where} flipped"
    if kind == "cut":
        size = rng.randrange(len(data))
        return data[:size], f"cut to {size} bytes"
    if kind == "append":
        extra = rng.randbytes(rng.randrange(1, 40))
        return data + extra, f"{len(extra)} bytes appended"
    field = 8 + rng.randrange(2 if data[6] == 1 else 4)
    edited[field] = rng.randrange(256)
    return bytes(edited), f"length byte {field} set to {edited[field]}"


def is_alias_descr(path: str) -> bool:
    """Whether the header's descr is a string NumPy never writes but whose
    dtype it loads anyway: a type number as a character ('|\\x01' for int8),
    a repeat count ('2u1', a subarray), which only files of no elements
    survive. dl-run reads the descrs NumPy writes and may refuse these."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        size_bytes = 2 if data[6] == 1 else 4
        start = 8 + size_bytes
        size = int.from_bytes(data[8:start], "little")
        header = ast.literal_eval(data[start:start + size].decode("latin-1"))
        descr = header["descr"]
        return isinstance(descr, str) and np.dtype(descr).str != descr
    except Exception:  # a header NumPy could not have loaded either
        return False


def numpy_reads(path: str) -> tuple[np.ndarray | None, str]:
    """The reference: np.load's array, or None and why it refused."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.load(path, allow_pickle=False), ""
    except Exception as error:  # NumPy raises many kinds on bad files.
        return None, f"{type(error).__name__}: {error}"[:200]


def copy_entry(arrays: list[np.ndarray]) -> str:
    """One entry taking every array (any strides) and returning copies."""
    params, results, body, values, types = [], [], [], [], []
    for i, array in enumerate(arrays):
        element = ELEMENT_TYPES[key_of(array.dtype)]
        element = SIGNLESS.get(element, element)
        dims = "".join("?x" for _ in array.shape)
        strided = ", ".join("?" for _ in array.shape)
        arg_type = f"memref<{dims}{element}, strided<[{strided}], offset: ?>>"
        out_type = f"memref<{dims}{element}>"
        # i<N> memrefs are signless: unsigned ones say so.
        unsigned = ELEMENT_TYPES[key_of(array.dtype)].startswith("ui")
        dtype_attr = (f", dlpack.dtype = #dlpack.dtype<uint, {8 * array.dtype.itemsize}>"
                      if unsigned else "")
        params.append(f'%x{i}: {arg_type} {{dlpack.name = "x{i}"{dtype_attr}}}')
        results.append(f'{out_type} {{dlpack.name = "y{i}"{dtype_attr}}}')
        sizes = []
        for d in range(array.ndim):
            body.append(f"  %d{i}_{d} = memref.dim %x{i}, %c{d} : {arg_type}")
            sizes.append(f"%d{i}_{d}")
        body.append(f"  %y{i} = memref.alloc({', '.join(sizes)}) : {out_type}")
        body.append(f"  memref.copy %x{i}, %y{i} : {arg_type} to {out_type}")
        values.append(f"%y{i}")
        types.append(out_type)
    constants = [f"  %c{d} = arith.constant {d} : index" for d in range(5)]
    return (f"func.func @copy({', '.join(params)}) -> ({', '.join(results)})\n"
            "    attributes {dlpack.entry} {\n" + "\n".join(constants + body) +
            f"\n  return {', '.join(values)} : {', '.join(types)}\n}}\n")


def run(dl_run: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Runs dl-run, capturing its output."""
    # dl-run's messages are ASCII: anything else is worth a failure, not a
    # decoding error here.
    return subprocess.run([dl_run, *args], capture_output=True, text=True, env=env,
                          errors="backslashreplace")


# Every file is read by dl-run once (one process each); at most this many of
# those NumPy loads are also compared byte for byte, through one compiled
# entry whose compile time grows with its parameters.
MAX_COMPARED = 24


def check_seed(dl_run: str, workdir: str, seed: int, cases: int) -> list[str]:
    """Every disagreement of `cases` random files of `seed`."""
    rng = random.Random(seed)
    directory = os.path.join(workdir, f"seed{seed}")
    os.makedirs(directory, exist_ok=True)
    # A private disk cache: the reading runs compile their kernel once.
    env = dict(os.environ, DLBRIDGE_DISK_CACHE="1",
               DLBRIDGE_CACHE_DIR=os.path.join(workdir, "cache"))
    # path, what was done, NumPy's array (None: refused), why NumPy refused
    files: list[tuple[str, str, np.ndarray | None, str]] = []
    for n in range(cases):
        array = random_array(rng)
        data, what = encode(array, rng), "as written"
        if rng.random() < 0.7:
            data, what = corrupt(data, rng)
        path = os.path.join(directory, f"case{n}.npy")
        with open(path, "wb") as f:
            f.write(data)
        expected, why = numpy_reads(path)
        files.append((path, f"case {n} ({array.dtype.str} {array.shape}, {what})",
                      expected, why))

    # Reading: an entry of one float32 vector, so dl-run reads the file and
    # then either refuses it (an error naming the file) or passes it to the
    # entry's checks (which may refuse its dtype or rank: it was read).
    kernel = os.path.join(directory, "one.mlir")
    with open(kernel, "w") as f:
        f.write('func.func @one(%x: memref<?xf32> {dlpack.name = "x"}) '
                'attributes {dlpack.entry} {\n  return\n}\n')

    def read(case: tuple[str, str, np.ndarray | None, str]) -> tuple[str | None, bool | None]:
        """The disagreement on `case` (None: none), and whether dl-run
        refused the file (None: it crashed)."""
        path, what, expected, why = case
        result = run(dl_run, [kernel, "-i", path], env)
        refused = f"argument 0 'x': {path}: " in result.stderr or \
            f"cannot read '{path}'" in result.stderr
        if result.returncode not in (0, 1):
            refused = None  # a crash
        if expected is None:
            agrees = refused is True
            reference = f"NumPy refuses it: {why}"
        elif key_of(expected.dtype) is None:
            agrees = refused is True and "unsupported descr" in result.stderr
            reference = f"NumPy reads {expected.dtype.str}, which dlbridge does not support"
        elif refused and is_alias_descr(path):
            agrees = "unsupported descr" in result.stderr or "bad header" in result.stderr
            reference = f"NumPy reads {expected.dtype.str} through an alias of its descr"
        else:
            agrees = refused is False
            reference = f"NumPy reads {expected.dtype.str} {expected.shape}"
        if agrees:
            return None, refused
        return (f"{what}: {reference}\n    dl-run: exit {result.returncode}: "
                f"{result.stderr.strip() or 'read it'}"), refused

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = list(pool.map(read, files))
    failures = [verdict for verdict, _ in verdicts if verdict]

    # Contents: arrays both read, copied out through one entry.
    compared = [(path, what, expected)
                for (path, what, expected, _), (verdict, refused) in zip(files, verdicts)
                if expected is not None and key_of(expected.dtype) is not None
                and not verdict and refused is False]
    compared = rng.sample(compared, min(len(compared), MAX_COMPARED))
    if compared:
        source = os.path.join(directory, "copy.mlir")
        with open(source, "w") as f:
            f.write(copy_entry([expected for _, _, expected in compared]))
        outputs = [os.path.join(directory, f"out{i}.npy") for i in range(len(compared))]
        args = [source]
        for path, _, _ in compared:
            args += ["-i", path]
        for output in outputs:
            args += ["-o", output]
        result = run(dl_run, args, env)
        if result.returncode != 0:
            failures.append(f"copying the files NumPy reads failed: {result.stderr.strip()}")
            compared = []
        for (_path, what, expected), output in zip(compared, outputs):
            got = np.load(output)
            native = expected.astype(expected.dtype.newbyteorder("="))
            if got.dtype != native.dtype or got.shape != native.shape or \
                    np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(native).tobytes():
                failures.append(f"{what}: NumPy reads {native.dtype.str} {native.shape}, "
                                f"dl-run {got.dtype.str} {got.shape} (or other bytes)")
    return [f"seed {seed}: {failure}" for failure in failures]


def main() -> int:
    """Runs the seeds; exit status 1 on any disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dl_run")
    parser.add_argument("workdir")
    parser.add_argument("--seed", type=int, action="append",
                        help="run this seed only (repeatable)")
    parser.add_argument("--cases", type=int, default=60)
    options = parser.parse_args()
    seeds = options.seed or [20261123, random.SystemRandom().randrange(2**32)]
    failures = []
    for seed in seeds:
        failures += check_seed(options.dl_run, options.workdir, seed, options.cases)
    if failures:
        print(f"{len(failures)} disagreement(s) with NumPy "
              f"(rerun with --seed):", file=sys.stderr)
        print("\n".join(failures), file=sys.stderr)
        return 1
    print(f"ok: {options.cases * len(seeds)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
