"""The JIT's caches: in memory, on disk across processes, and what happens
to entries that are corrupt or were written for something else."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

KERNEL = """
func.func @inc(%x: memref<?xf64> {dlpack.name = "x"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = arith.addf %v, %one : f64
    memref.store %w, %x[%i] : memref<?xf64>
  }
  return
}
"""

# Compiles KERNEL in a fresh process; prints whether it came from the disk
# cache and whether it computes the right thing.
PROBE = textwrap.dedent("""
    import sys, numpy as np, dlbridge
    kernel = dlbridge.compile(sys.stdin.read())
    x = np.zeros(4)
    kernel(x)
    print(kernel.from_disk_cache, bool((x == 1).all()), "llvm.func" in kernel.mlir["llvm"])
""")


def probe(cache_dir: pathlib.Path, source: str = KERNEL, **env: str) -> list[str]:
    environment = dict(os.environ, DLBRIDGE_CACHE_DIR=str(cache_dir), **env)
    result = subprocess.run([sys.executable, "-c", PROBE], input=source, env=environment,
                            capture_output=True, text=True, check=True)
    return result.stdout.split()


def entries(cache_dir: pathlib.Path) -> list[pathlib.Path]:
    return sorted(cache_dir.glob("llvmcache-dlbridge-*"))


def test_a_second_process_reuses_the_disk_cache(tmp_path: pathlib.Path) -> None:
    assert probe(tmp_path) == ["False", "True", "True"]
    assert len(entries(tmp_path)) == 1
    # A new process links the cached object, and still knows its MLIR.
    assert probe(tmp_path) == ["True", "True", "True"]


def test_other_sources_get_other_entries(tmp_path: pathlib.Path) -> None:
    probe(tmp_path)
    probe(tmp_path, KERNEL.replace("1.0 : f64", "1.0e0 : f64"))
    assert len(entries(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign"])
def test_a_bad_entry_is_recompiled_not_executed(tmp_path: pathlib.Path, damage: str) -> None:
    probe(tmp_path)
    (entry,) = entries(tmp_path)
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[-100] ^= 0xFF  # inside the object code: its checksum fails
    else:
        data[12] ^= 0x01    # the key stored inside no longer matches the name
    entry.write_bytes(bytes(data))
    assert probe(tmp_path) == ["False", "True", "True"]
    # ... and the entry was rewritten, good for the next process.
    assert probe(tmp_path) == ["True", "True", "True"]


def test_the_disk_cache_can_be_turned_off(tmp_path: pathlib.Path) -> None:
    assert probe(tmp_path, DLBRIDGE_DISK_CACHE="0") == ["False", "True", "True"]
    assert entries(tmp_path) == []


def test_a_repeated_compile_is_served_from_memory(tmp_path: pathlib.Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import dlbridge

    monkeypatch.setenv("DLBRIDGE_CACHE_DIR", str(tmp_path))
    source = KERNEL.replace("@inc", "@inc_in_memory")
    assert not dlbridge.compile(source).from_disk_cache
    (entry,) = entries(tmp_path)
    entry.unlink()
    # Neither read from disk nor compiled again (which would rewrite it).
    again = dlbridge.compile(source)
    assert not again.from_disk_cache
    assert entries(tmp_path) == []


@pytest.mark.parametrize("field", [0, 8, 12, 44, 52])
def test_a_flipped_header_field_is_recompiled(tmp_path: pathlib.Path, field: int) -> None:
    # The magic, the format version, the key, the function's name and its
    # size: every header field is under the checksum.
    probe(tmp_path)
    (entry,) = entries(tmp_path)
    data = bytearray(entry.read_bytes())
    data[field] ^= 0x01
    entry.write_bytes(bytes(data))
    assert probe(tmp_path) == ["False", "True", "True"]
    assert probe(tmp_path) == ["True", "True", "True"]


def test_entries_are_private(tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "cache"
    probe(cache)
    (entry,) = entries(cache)
    assert cache.stat().st_mode & 0o777 == 0o700
    assert entry.stat().st_mode & 0o777 == 0o600


def test_a_symlinked_entry_is_not_followed(tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "cache"
    probe(cache)
    (entry,) = entries(cache)
    elsewhere = tmp_path / "elsewhere"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert probe(cache) == ["False", "True", "True"]
    # Replaced by a regular entry of its own; the link's target is untouched.
    assert not entry.is_symlink()
    assert probe(cache) == ["True", "True", "True"]


def test_a_fifo_entry_is_neither_read_nor_waited_on(tmp_path: pathlib.Path) -> None:
    probe(tmp_path)
    (entry,) = entries(tmp_path)
    entry.unlink()
    os.mkfifo(entry)
    # A blocking open of a FIFO would hang here until the timeout.
    environment = dict(os.environ, DLBRIDGE_CACHE_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", PROBE], input=KERNEL, env=environment,
                            capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.split() == ["False", "True", "True"]


def test_a_huge_entry_is_not_read(tmp_path: pathlib.Path) -> None:
    probe(tmp_path)
    (entry,) = entries(tmp_path)
    with open(entry, "r+b") as f:
        f.truncate(2**31)  # sparse: reading it would take 2 GiB
    assert probe(tmp_path) == ["False", "True", "True"]


def test_a_renamed_entry_keeps_its_name_through_the_disk_cache(tmp_path: pathlib.Path) -> None:
    # '<lambda>' is compiled under a portable symbol; the entry stores both.
    source = KERNEL.replace("@inc", '@"<lambda>"')
    name = textwrap.dedent("""
        import sys, dlbridge
        kernel = dlbridge.compile(sys.stdin.read())
        print(kernel.from_disk_cache, kernel.signature["name"])
    """)
    environment = dict(os.environ, DLBRIDGE_CACHE_DIR=str(tmp_path))
    for cached in ("False", "True"):
        result = subprocess.run([sys.executable, "-c", name], input=source, env=environment,
                                capture_output=True, text=True, check=True)
        assert result.stdout.split() == [cached, "<lambda>"]


TENSOR_KERNEL = """
func.func @twice(%x: tensor<?xf32> {dlpack.name = "x"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %r = arith.addf %x, %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

# Compiles TENSOR_KERNEL in a fresh process and calls it on the layouts in
# argv; prints whether it came from the disk cache and whether each call was right.
LAYOUT_PROBE = textwrap.dedent("""
    import sys, numpy as np, dlbridge
    kernel = dlbridge.compile(sys.stdin.read())
    x = np.arange(16, dtype=np.float32)
    views = {"compact": x, "strided": x[::2]}
    print(kernel.from_disk_cache, *(bool((kernel(views[v]) == 2 * views[v]).all())
                                   for v in sys.argv[1:]))
""")


def layout_probe(cache_dir: pathlib.Path, *layouts: str) -> list[str]:
    environment = dict(os.environ, DLBRIDGE_CACHE_DIR=str(cache_dir))
    result = subprocess.run([sys.executable, "-c", LAYOUT_PROBE, *layouts], input=TENSOR_KERNEL,
                            env=environment, capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_the_contiguous_variant_joins_the_entry_when_first_needed(tmp_path: pathlib.Path) -> None:
    # Compiled for strided calls only, the entry holds the general object;
    # a later process's compact call compiles the contiguous one and adds it,
    # and the process after that loads both.
    assert layout_probe(tmp_path, "strided") == ["False", "True"]
    (entry,) = entries(tmp_path)
    general_only = entry.stat().st_size
    assert layout_probe(tmp_path, "compact", "strided") == ["True", "True", "True"]
    assert entry.stat().st_size > general_only
    assert layout_probe(tmp_path, "strided", "compact") == ["True", "True", "True"]
    assert len(entries(tmp_path)) == 1
