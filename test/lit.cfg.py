# -*- Python -*- lit configuration for dlbridge's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DLBRIDGE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlbridge_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.dlbridge_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    [ToolSubst("dl-opt", unresolved="fatal"),
     ToolSubst("dl-run", unresolved="fatal"),
     ToolSubst("dl-lsp-server", unresolved="fatal")],
    tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)


# %python: a Python with NumPy, for tests that make and check .npy files (the
# `numpy` feature). lit's own interpreter may lack NumPy: try
# $DLBRIDGE_TEST_PYTHON, then lit's interpreter, then python3 on PATH.
def find_numpy_python():
    import shutil
    import subprocess
    import sys

    candidates = [os.environ.get("DLBRIDGE_TEST_PYTHON"), sys.executable,
                  shutil.which("python3")]
    for candidate in candidates:
        if not candidate:
            continue
        try:
            out = subprocess.run(
                [candidate, "-c",
                 "import sys, numpy; print(sys.executable)"],
                capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[-1]
    return None


numpy_python = find_numpy_python()
if numpy_python:
    config.available_features.add("numpy")
    # Replaces lit's default %python (its own interpreter).
    config.substitutions = [(key, value) for key, value in config.substitutions
                            if key != "%python"]
    config.substitutions.append(("%python", f'"{numpy_python}"'))
else:
    lit_config.note("no Python with NumPy found: skipping tests that need it")


# `ptxas`: a CUDA toolkit's assembler, for tests that compile kernels to
# cubins (format=cubin). Looked for where the CUDA pipeline looks.
def find_ptxas():
    import shutil

    for variable in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        root = os.environ.get(variable)
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return True
    return bool(shutil.which("ptxas")) or os.access(
        "/usr/local/cuda/bin/ptxas", os.X_OK)


if find_ptxas():
    config.available_features.add("ptxas")
else:
    lit_config.note("no CUDA ptxas found: skipping tests that assemble cubins")


def can_mknod():
    """Whether this user may make device nodes (root, as CI runs): the tests of
    writing into a copy of /dev/full need one."""
    import stat
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        try:
            os.mknod(os.path.join(scratch, "full"), 0o600 | stat.S_IFCHR, os.makedev(1, 7))
        except OSError:
            return False
    return True


if can_mknod():
    config.available_features.add("mknod")
