"""``dlbridge.compile`` on what compiler backends hand over: memref-level
modules that allocate and free their own buffers, private helpers (one
returning a view of its argument), and modules whose other entries the
target cannot compile."""

from __future__ import annotations

import ctypes
import mmap
import os
import sys

import dlbridge
import numpy as np
import pytest

ALLOC_DEALLOC = """
func.func @smooth(%a: memref<?xf32>, %b: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %t : memref<?xf32> to memref<?xf32>
  %last = arith.subi %n, %c1 : index
  affine.for %i = 1 to %last {
    %l = affine.load %t[%i - 1] : memref<?xf32>
    %m = affine.load %t[%i] : memref<?xf32>
    %r = affine.load %t[%i + 1] : memref<?xf32>
    %s = arith.addf %l, %m : f32
    %u = arith.addf %s, %r : f32
    affine.store %u, %b[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}
"""

# @scale_rows is memref-level and writes through the view a helper returns;
# @sum_squares calls two tensor helpers; @fill_on_gpu is GPU code, which the
# CPU cannot compile.
MULTI = """
func.func private @row(%m: memref<?x?xf32>, %i: index) -> memref<?xf32, strided<[1], offset: ?>> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c1 : memref<?x?xf32>
  %r = memref.subview %m[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
  return %r : memref<?xf32, strided<[1], offset: ?>>
}

func.func @scale_rows(%m: memref<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %r = func.call @row(%m, %i) : (memref<?x?xf32>, index) -> memref<?xf32, strided<[1], offset: ?>>
    %f = arith.index_cast %i : index to i64
    %g = arith.sitofp %f : i64 to f32
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %r[%j] : memref<?xf32, strided<[1], offset: ?>>
      %w = arith.mulf %v, %g : f32
      memref.store %w, %r[%j] : memref<?xf32, strided<[1], offset: ?>>
    }
  }
  return
}

func.func private @square(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.mul ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func private @total(%x: tensor<?xf32>) -> tensor<f32> {
  %s = func.call @square(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%s : tensor<?xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      linalg.yield %c : f32
    }
  return %r : tensor<f32>
}

func.func @sum_squares(%x: tensor<?xf32>) -> tensor<f32> attributes {dlpack.entry} {
  %r = func.call @total(%x) : (tensor<?xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

func.func @fill_on_gpu(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    memref.store %one, %x[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
"""


def test_memref_level_alloc_dealloc() -> None:
    """A module that frees its own buffer compiles without turning bufferization off."""
    smooth = dlbridge.compile(ALLOC_DEALLOC)
    a = np.random.default_rng(7).standard_normal(50).astype(np.float32)
    b = np.zeros_like(a)
    smooth(a, b)
    expected = np.zeros_like(a)
    expected[1:-1] = a[:-2] + a[1:-1] + a[2:]
    np.testing.assert_allclose(b, expected, rtol=1e-6)


def test_helper_returning_a_view_writes_through() -> None:
    """Writes through the view a private helper returns reach the caller's array."""
    scale_rows = dlbridge.compile(MULTI, entry="scale_rows")
    m = np.random.default_rng(8).standard_normal((4, 6)).astype(np.float32)
    expected = m * np.arange(4, dtype=np.float32)[:, None]
    scale_rows(m)
    np.testing.assert_allclose(m, expected, rtol=1e-6)


def test_tensor_helpers_keep_the_argument_read_only() -> None:
    """An entry passing its argument to helpers accepts a read-only array."""
    sum_squares = dlbridge.compile(MULTI, entry="sum_squares")
    assert sum_squares.signature["args"][0]["access"] == "read"
    x = np.random.default_rng(9).standard_normal(33).astype(np.float32)
    x.flags.writeable = False
    result = np.from_dlpack(sum_squares(x))
    np.testing.assert_allclose(result, np.sum(x * x), rtol=1e-5)


def test_other_entries_need_not_compile() -> None:
    """Only the requested entry and its callees are compiled for the target."""
    kernel = dlbridge.compile(MULTI, entry="scale_rows")
    assert "fill_on_gpu" not in kernel.mlir["llvm"]
    assert "sum_squares" not in kernel.mlir["llvm"]
    with pytest.raises(ValueError, match=r"'gpu.launch' is GPU code: compile it with the CUDA target"):
        dlbridge.compile(MULTI, entry="fill_on_gpu")


TAIL = """
func.func @scale_tail(%a: memref<?xf32>, %b: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  %three = arith.constant dense<3.0> : vector<8xf32>
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c8 {
    %rem = arith.subi %n, %i : index
    %m = vector.create_mask %rem : vector<8xi1>
    %v = vector.transfer_read %a[%i], %pad : memref<?xf32>, vector<8xf32>
    %w = arith.mulf %v, %three : vector<8xf32>
    vector.transfer_write %w, %b[%i], %m {in_bounds = [true]} : vector<8xf32>, memref<?xf32>
  }
  return
}
"""


def _guarded_array(values: np.ndarray) -> tuple[mmap.mmap, np.ndarray]:
    """``values`` copied to the very end of a page followed by an inaccessible one."""
    page = mmap.PAGESIZE
    memory = mmap.mmap(-1, 2 * page)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    if libc.mprotect(base + page, page, 0) != 0:  # PROT_NONE
        pytest.skip(f"mprotect failed: {os.strerror(ctypes.get_errno())}")
    array = np.frombuffer(memory, values.dtype, values.size, page - values.nbytes)
    array[...] = values
    return memory, array


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mprotect guard pages")
def test_vector_tails_stay_inside_the_buffers() -> None:
    """Out-of-bounds and masked vector accesses at the end of a dynamic buffer
    touch nothing past it: a guard page follows both buffers."""
    scale_tail = dlbridge.compile(TAIL)
    a = np.random.default_rng(10).standard_normal(13).astype(np.float32)
    a_memory, a_guarded = _guarded_array(a)
    b_memory, b_guarded = _guarded_array(np.zeros(13, np.float32))
    scale_tail(a_guarded, b_guarded)
    np.testing.assert_allclose(b_guarded, 3 * a, rtol=1e-6)
    del a_guarded, b_guarded
    a_memory.close()
    b_memory.close()
