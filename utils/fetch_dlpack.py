#!/usr/bin/env python3
"""Fetches DLPack 1.3's unmodified ``dlpack.h`` and its licence.

Debian ships DLPack 0.6, which has no versioned tensors. The header is taken
from a pinned PyPI wheel that vendors it verbatim, and checked by SHA-256, so
the build never compiles against a header nobody reviewed. Usage:

    fetch_dlpack.py DEST_DIR
"""

import hashlib
import pathlib
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "apache-tvm-ffi==0.1.15.post2"
HEADER = "tvm_ffi/include/dlpack/dlpack.h"
LICENSE = "apache_tvm_ffi-0.1.15.post2.dist-info/licenses/LICENSE"
SHA256 = "62052bef24bd69bb7b52e95428f9e99bd7951783850c36c5f2a41e71fd63c2fc"


def main() -> int:
    dest = pathlib.Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary=:all:", "--dest", tmp, PACKAGE],
            check=True)
        wheel = next(pathlib.Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            header = archive.read(HEADER)
            licence = archive.read(LICENSE)
    digest = hashlib.sha256(header).hexdigest()
    if digest != SHA256:
        print(f"fetch_dlpack: {HEADER} has SHA-256 {digest}, expected {SHA256}",
              file=sys.stderr)
        return 1
    (dest / "include" / "dlpack").mkdir(parents=True, exist_ok=True)
    (dest / "include" / "dlpack" / "dlpack.h").write_bytes(header)
    (dest / "LICENSE").write_bytes(licence)
    return 0


if __name__ == "__main__":
    sys.exit(main())
