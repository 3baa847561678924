"""Programs that compile for the CPU compile for CUDA and give NumPy's numbers there.

A scalar host code reads out of a device tensor (a 0-d tensor extracted before the kernels that
use it) is read by those kernels; memref-level ``affine.for`` and ``scf.for`` loops over device
buffers become kernels (full blocks where the loops are parallel, one thread where they are
not); a scalar host code itself needs (to branch, or to decide whether to loop again) is copied
back from the device, once per iteration in a loop. Compiling needs no GPU, so those checks run everywhere; running needs PyTorch with a CUDA
device, and skips without one."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest

EXTRACT_0D = """
#id = affine_map<(d0) -> (d0)>
func.func @scale(%t: tensor<f32>, %x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %s = tensor.extract %t[] : tensor<f32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

EXTRACT_0D_TWO_KERNELS = """
#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @two(%t: tensor<f64>, %x: tensor<?xf64>, %y: tensor<?x?xf64>)
    -> (tensor<?xf64>, tensor<?x?xf64>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tensor.extract %t[] : tensor<f64>
  %two = arith.constant 2.0 : f64
  %s2 = arith.mulf %s, %two : f64
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.mulf %a, %s : f64
    linalg.yield %m : f64
  } -> tensor<?xf64>
  %rows = tensor.dim %y, %c0 : tensor<?x?xf64>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf64>
  %e2 = tensor.empty(%rows, %cols) : tensor<?x?xf64>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf64>) outs(%e2 : tensor<?x?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.addf %a, %s2 : f64
    linalg.yield %m : f64
  } -> tensor<?x?xf64>
  return %r, %r2 : tensor<?xf64>, tensor<?x?xf64>
}
"""

# The 0-d result of a reduction, extracted: kernels write it, a later kernel reads it.
DIVIDE_BY_SUM = """
#id = affine_map<(d0) -> (d0)>
func.func @divide_by_sum(%x: tensor<?xf64>) -> tensor<?xf64> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %init = tensor.empty() : tensor<f64>
  %z = linalg.fill ins(%zero : f64) outs(%init : tensor<f64>) -> tensor<f64>
  %sum = linalg.reduce ins(%x : tensor<?xf64>) outs(%z : tensor<f64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %a = arith.addf %in, %acc : f64
      linalg.yield %a : f64
    }
  %s = tensor.extract %sum[] : tensor<f64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.divf %a, %s : f64
    linalg.yield %m : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""

NORMALIZE_IN_PLACE = """
#id = affine_map<(d0) -> (d0)>
func.func @normalize(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %s = memref.load %x[%c0] : memref<?xf32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%x : memref<?xf32>) {
  ^bb0(%o: f32):
    %m = arith.divf %o, %s : f32
    linalg.yield %m : f32
  }
  return
}
"""

AFFINE_RECURRENCE = """
func.func @running_sum(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  affine.for %i = 1 to %n {
    %a = affine.load %y[%i - 1] : memref<?xf32>
    %b = affine.load %x[%i] : memref<?xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %y[%i] : memref<?xf32>
  }
  return
}
"""

SCF_FOR_CARRIED = """
func.func @sum(%x: memref<?xf64>, %out: memref<f64>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %a = arith.addf %acc, %v : f64
    scf.yield %a : f64
  }
  memref.store %sum, %out[] : memref<f64>
  return
}
"""

AFFINE_NEST = """
func.func @square(%x: memref<?x?xf32>, %y: memref<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  affine.for %i = 0 to %rows {
    affine.for %j = 0 to %cols {
      %a = affine.load %x[%i, %j] : memref<?x?xf32>
      %b = arith.mulf %a, %a : f32
      affine.store %b, %y[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
"""

# A parallel loop that starts past the end of short inputs: no iteration there.
AFFINE_TAIL = """
func.func @tail(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  affine.for %i = 300 to %n {
    %a = affine.load %x[%i] : memref<?xf32>
    affine.store %a, %y[%i] : memref<?xf32>
  }
  return
}
"""

# Rows in parallel, a recurrence along each row: a prefix sum per row.
AFFINE_ROW_PREFIX = """
func.func @row_prefix(%x: memref<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  affine.for %i = 0 to %rows {
    affine.for %j = 1 to %cols {
      %a = affine.load %x[%i, %j - 1] : memref<?x?xf32>
      %b = affine.load %x[%i, %j] : memref<?x?xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %x[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
"""

BRANCH_ON_DATA = """
func.func @branch(%flag: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c = tensor.extract %flag[] : tensor<i1>
  %r = scf.if %c -> tensor<?xf32> {
    %y = arith.addf %x, %x : tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  } else {
    scf.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
"""

# While the largest element is above 1, halve every element: the maximum comes back to the host
# each time round, before it decides to launch the halving kernel again.
HALVE_WHILE_LARGE = """
func.func @halve_while_large(%x: memref<?xf32>) -> i64 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %trips = scf.while (%k = %c0_i64) : (i64) -> i64 {
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %ninf) -> f32 {
      %v = memref.load %x[%i] : memref<?xf32>
      %a = arith.maximumf %acc, %v : f32
      scf.yield %a : f32
    }
    %go = arith.cmpf ogt, %m, %one : f32
    scf.condition(%go) %k : i64
  } do {
  ^bb0(%k: i64):
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      %w = arith.mulf %v, %half : f32
      memref.store %w, %x[%i] : memref<?xf32>
      scf.reduce
    }
    %k1 = arith.addi %k, %c1_i64 : i64
    scf.yield %k1 : i64
  }
  return %trips : i64
}
"""

PROGRAMS = [EXTRACT_0D, EXTRACT_0D_TWO_KERNELS, DIVIDE_BY_SUM, NORMALIZE_IN_PLACE, AFFINE_RECURRENCE,
            SCF_FOR_CARRIED, AFFINE_NEST, AFFINE_TAIL, AFFINE_ROW_PREFIX, BRANCH_ON_DATA,
            HALVE_WHILE_LARGE]


def _cuda(source: str) -> Any:
    """The program compiled for CUDA (PTX, which needs no ptxas)."""
    return dlbridge.compile(source, target="cuda", format="ptx", cache=False)


@pytest.mark.parametrize("source", PROGRAMS, ids=lambda s: s.split("@")[1].split("(")[0])
def test_compiles_for_both_targets(source: str) -> None:
    assert dlbridge.compile(source, target="cpu", cache=False).signature is not None
    assert _cuda(source).signature is not None


@pytest.fixture(scope="module")
def gen() -> np.random.Generator:
    """Reproducible test data."""
    return np.random.default_rng(27)


def _host(tensor: Any) -> np.ndarray:
    return tensor.detach().cpu().numpy()


@pytest.mark.parametrize("n", [1, 255, 257, 100003])
def test_extract_0d(torch: Any, gen: np.random.Generator, n: int) -> None:
    t = np.float32(gen.standard_normal())
    x = gen.standard_normal(n).astype(np.float32)
    got = _cuda(EXTRACT_0D)(torch.tensor(t, device="cuda"), torch.from_numpy(x).cuda())
    assert got.device.type == "cuda"
    np.testing.assert_array_equal(_host(got), x * t)


def test_extract_0d_two_kernels(torch: Any, gen: np.random.Generator) -> None:
    t = gen.standard_normal()
    x = gen.standard_normal(1000)
    y = gen.standard_normal((33, 517))
    r, r2 = _cuda(EXTRACT_0D_TWO_KERNELS)(torch.tensor(t, dtype=torch.float64, device="cuda"),
                                          torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda())
    np.testing.assert_array_equal(_host(r), x * t)
    np.testing.assert_array_equal(_host(r2), y + t * 2.0)


@pytest.mark.parametrize("n", [1, 33, 1000003])
def test_divide_by_sum(torch: Any, gen: np.random.Generator, n: int) -> None:
    x = gen.uniform(1.0, 2.0, n)
    got = _cuda(DIVIDE_BY_SUM)(torch.from_numpy(x).cuda())
    np.testing.assert_allclose(_host(got), x / np.sum(x), rtol=1e-12)


@pytest.mark.parametrize("n", [1, 7, 4097])
def test_normalize_in_place(torch: Any, gen: np.random.Generator, n: int) -> None:
    x = gen.uniform(1.0, 2.0, n).astype(np.float32)
    device = torch.from_numpy(x).cuda()
    assert _cuda(NORMALIZE_IN_PLACE)(device) is None
    # Every element is divided by x[0] from before the kernel, x[0] itself included.
    np.testing.assert_allclose(_host(device), x / x[0], rtol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 1000])
def test_affine_recurrence(torch: Any, gen: np.random.Generator, n: int) -> None:
    x = gen.standard_normal(n).astype(np.float32)
    y0 = np.float32(gen.standard_normal())
    y = torch.zeros(n, device="cuda")
    y[0] = float(y0)
    _cuda(AFFINE_RECURRENCE)(torch.from_numpy(x).cuda(), y)
    want = np.empty(n, np.float32)
    want[0] = y0
    for i in range(1, n):
        want[i] = want[i - 1] + x[i]
    np.testing.assert_array_equal(_host(y), want)


@pytest.mark.parametrize("n", [0, 1, 10000])
def test_scf_for_carried(torch: Any, gen: np.random.Generator, n: int) -> None:
    x = gen.standard_normal(n)
    out = torch.full((), -1.0, dtype=torch.float64, device="cuda")
    _cuda(SCF_FOR_CARRIED)(torch.from_numpy(x).cuda(), out)
    np.testing.assert_allclose(_host(out), np.sum(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(1, 1), (3, 1000), (1000, 3), (64, 100), (257, 513)])
def test_affine_nest(torch: Any, gen: np.random.Generator, shape: tuple[int, int]) -> None:
    x = gen.standard_normal(shape).astype(np.float32)
    y = torch.zeros(shape, device="cuda")
    _cuda(AFFINE_NEST)(torch.from_numpy(x).cuda(), y)
    np.testing.assert_array_equal(_host(y), x * x)


@pytest.mark.parametrize("n", [0, 1, 300, 1000])
def test_affine_tail(torch: Any, gen: np.random.Generator, n: int) -> None:
    x = gen.standard_normal(n).astype(np.float32)
    y = torch.zeros(n, device="cuda")
    _cuda(AFFINE_TAIL)(torch.from_numpy(x).cuda(), y)
    want = np.zeros(n, np.float32)
    want[300:] = x[300:]
    np.testing.assert_array_equal(_host(y), want)


@pytest.mark.parametrize("shape", [(1, 1), (40, 300), (2000, 5)])
def test_affine_row_prefix(torch: Any, gen: np.random.Generator, shape: tuple[int, int]) -> None:
    x = gen.standard_normal(shape).astype(np.float32)
    device = torch.from_numpy(x).cuda()
    _cuda(AFFINE_ROW_PREFIX)(device)
    np.testing.assert_allclose(_host(device), np.cumsum(x, axis=1, dtype=np.float32),
                               rtol=1e-5, atol=1e-5)


@dlbridge.jit
def _add_one_per_trip(x: Any, trips: int) -> None:
    for _ in range(trips):
        x += 1.0


def test_a_long_host_loop_of_launches_keeps_its_stack(torch: Any) -> None:
    # Each trip launches a kernel whose arguments the host code builds on
    # the stack; 200,000 trips took ~30 MiB of it (8 MiB is the usual limit)
    # until each trip returned its own.
    x = torch.zeros(1000, device="cuda")
    _add_one_per_trip(x, 200_000)
    assert torch.equal(x, torch.full_like(x, 200_000.0))


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("n", [0, 1, 5000])
def test_branch_on_data(torch: Any, gen: np.random.Generator, flag: bool, n: int) -> None:
    x = gen.standard_normal(n).astype(np.float32)
    device = torch.from_numpy(x).cuda()
    got = _cuda(BRANCH_ON_DATA)(torch.tensor(flag, device="cuda"), device)
    np.testing.assert_array_equal(_host(got), x + x if flag else x)
    np.testing.assert_array_equal(_host(device), x)


@pytest.mark.parametrize("scale", [0.5, 3.0, 1000.0])
def test_a_loop_decides_on_data_each_time_round(torch: Any, gen: np.random.Generator,
                                                scale: float) -> None:
    x = (gen.uniform(0.0, 1.0, 1000) * scale).astype(np.float32)
    want, trips = x.copy(), 0
    while want.max() > 1.0:
        want *= np.float32(0.5)
        trips += 1
    device = torch.from_numpy(x).cuda()
    assert _cuda(HALVE_WHILE_LARGE)(device) == trips
    np.testing.assert_array_equal(_host(device), want)


def running_sum(p: Any) -> Any:
    s = p[0] * 0
    for t in range(p.shape[0]):
        s = s + p[t]
    return s


def drawdowns(p: Any) -> Any:
    peak = p[0]
    dd = np.zeros_like(p)
    for t in range(p.shape[0]):
        peak = max(peak, p[t])
        dd[t] = (p[t] - peak) / peak
    return dd


def smoothed(x: Any, alpha: float) -> Any:
    level = x[0]
    for v in x:
        level = alpha * v + (1 - alpha) * level
    return level


SCALAR_LOOPS = {"running_sum": (running_sum, ()), "drawdowns": (drawdowns, ()), "smoothed": (smoothed, (0.3,))}


@pytest.mark.parametrize("name", list(SCALAR_LOOPS))
def test_loops_carrying_0d_arrays_compile_for_cuda(name: str) -> None:
    """A loop that carries a 0-d array yields a new buffer each iteration: the loop stays host
    code and its body's element accesses run in a kernel (they were refused)."""
    fn, extra = SCALAR_LOOPS[name]
    stages = dlbridge.jit(fn, target="cuda").inspect(np.ones(5), *extra)
    assert ".entry" in stages["ptx"]


@pytest.mark.parametrize("name", list(SCALAR_LOOPS))
@pytest.mark.parametrize("n", [1, 7, 300])
def test_loops_carrying_0d_arrays_on_cuda(torch: Any, gen: np.random.Generator, name: str, n: int) -> None:
    fn, extra = SCALAR_LOOPS[name]
    x = gen.uniform(1.0, 2.0, n)
    got = dlbridge.jit(fn)(torch.from_numpy(x).cuda(), *extra)
    np.testing.assert_allclose(_host(got), fn(x, *extra), rtol=1e-12)
