"""Making the peers available: PyPI packages and the two native modules.

``ensure_packages`` pip-installs a peer only when importing it fails;
``build_native`` builds ``bench/nanobind_floor`` and ``bench/tvm_ffi_peer``
with CMake + Ninja into ``bench/build/`` (a second run only re-runs Ninja).
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parent
BUILD_DIR = BENCH_DIR / "build"

# import name -> PyPI name (the pins live in bench/requirements.txt).
PACKAGES: dict[str, str] = {
    "numpy": "numpy",
    "numba": "numba",
    "numexpr": "numexpr",
    "jax": "jax",
    "tvm_ffi": "apache-tvm-ffi",
    "nanobind": "nanobind",
}


@dataclass
class Peers:
    """What could be imported or built, and why the rest could not."""

    modules: dict[str, ModuleType] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> ModuleType | None:
        """The module, or ``None`` when it is unavailable."""
        return self.modules.get(name)


def _try_import(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any import failure means "not usable"
        return None


def _requirement_lines() -> dict[str, str]:
    """PyPI name -> requirement line from bench/requirements.txt."""
    lines: dict[str, str] = {}
    path = BENCH_DIR / "requirements.txt"
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name = line
            for sep in "<>=!~[; ":
                name = name.split(sep, 1)[0]
            lines[name.lower()] = line
    return lines


def ensure_packages(peers: Peers, install: bool = True) -> None:
    """Imports every peer package, pip-installing only those that fail to import."""
    absent = [name for name in PACKAGES if _try_import(name) is None]
    if absent and install:
        requirements = _requirement_lines()
        specs = [requirements.get(PACKAGES[n].lower(), PACKAGES[n]) for n in absent]
        print(f"[bench] installing missing peers: {' '.join(specs)}", flush=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", *specs],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"[bench] pip failed ({proc.returncode}): {proc.stderr.strip()[-500:]}", flush=True)
        importlib.invalidate_caches()
    for name in PACKAGES:
        module = _try_import(name)
        if module is None:
            peers.missing[name] = "not importable (pip install failed or disabled)"
        else:
            peers.modules[name] = module


def _cmake_build(name: str, defines: dict[str, str]) -> Path | None:
    """Configures (once) and builds ``bench/<name>`` into ``bench/build/<name>``."""
    source, build = BENCH_DIR / name, BUILD_DIR / name
    if not (build / "build.ninja").exists():
        args = ["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}"]
        args += [f"-D{key}={value}" for key, value in defines.items()]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"[bench] cmake {name} failed:\n{proc.stdout[-1500:]}{proc.stderr[-1500:]}", flush=True)
            return None
    proc = subprocess.run(["ninja", "-C", str(build)], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"[bench] ninja {name} failed:\n{proc.stdout[-3000:]}", flush=True)
        return None
    return build


def build_native(peers: Peers) -> None:
    """Builds and imports the nanobind floor and the tvm-ffi peer library."""
    if not (shutil.which("cmake") and shutil.which("ninja")):
        peers.missing["nanobind_floor"] = peers.missing["tvm_ffi_peer"] = "cmake/ninja not found"
        return
    nanobind = peers.get("nanobind")
    if nanobind is None:
        peers.missing["nanobind_floor"] = "nanobind not installed"
    else:
        build = _cmake_build("nanobind_floor", {"nanobind_DIR": nanobind.cmake_dir()})
        if build is not None:
            sys.path.insert(0, str(build))
            module = _try_import("nanobind_floor")
            if module is not None:
                peers.modules["nanobind_floor"] = module
        if "nanobind_floor" not in peers.modules:
            peers.missing["nanobind_floor"] = "build or import failed (see above)"

    tvm_ffi = peers.get("tvm_ffi")
    if tvm_ffi is None:
        peers.missing["tvm_ffi_peer"] = "apache-tvm-ffi not installed"
        return
    from tvm_ffi import libinfo  # noqa: PLC0415 - only once tvm_ffi imports

    includes = [libinfo.find_include_path(), libinfo.find_dlpack_include_path()]
    build = _cmake_build("tvm_ffi_peer", {"TVM_FFI_INCLUDE_DIRS": ";".join(includes),
                                           "TVM_FFI_LIBRARY": libinfo.find_libtvm_ffi()})
    library = build / "tvm_ffi_peer.so" if build else None
    if library is None or not library.exists():
        peers.missing["tvm_ffi_peer"] = "build failed (see above)"
        return
    peers.modules["tvm_ffi_peer"] = tvm_ffi.load_module(str(library))
