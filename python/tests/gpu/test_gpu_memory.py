"""Memory of CUDA calls: results are freed once, from whatever thread drops
them, and inputs outlive the kernels that read them."""

from __future__ import annotations

import gc
import threading
from typing import Any, Callable

import dlbridge


@dlbridge.jit
def scale(x: Any) -> Any:
    return x * 3


def test_results_dropped_on_other_threads_are_freed(torch: Any) -> None:
    x = torch.ones(16 << 20, device="cuda")  # 64 MiB a result
    scale(x)
    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    results = [scale(x) for _ in range(8)]

    def drop(items: list[Any]) -> None:
        items.clear()
        gc.collect()

    for _ in range(40):  # 40 rounds of 512 MiB: 20 GiB if nothing were freed
        worker = threading.Thread(target=drop, args=(results,))
        worker.start()
        worker.join()
        results = [scale(x) for _ in range(8)]
    results.clear()
    torch.cuda.synchronize()
    free_after = torch.cuda.mem_get_info()[0]
    assert free_before - free_after < 2 << 30


def test_inputs_outlive_the_kernel(torch: Any, busy: Callable[[], None]) -> None:
    scale(torch.ones(4, device="cuda"))
    busy()  # the kernel below waits behind it
    out = scale(torch.full((1 << 22,), 2.0, device="cuda"))  # the input is dropped at once
    torch.cuda.empty_cache()
    filler = torch.zeros(1 << 24, device="cuda")  # would reuse the input's memory
    assert out.sum().item() == 6.0 * (1 << 22)
    del filler


def test_dlbridge_tensors_export_to_every_framework(torch: Any, cupy: Any) -> None:
    result = scale(dlbridge.from_dlpack(torch.arange(6.0, device="cuda")))
    assert isinstance(result, dlbridge.Tensor)
    assert result.__dlpack_device__() == (2, 0)
    assert cupy.from_dlpack(result).tolist() == [0.0, 3.0, 6.0, 9.0, 12.0, 15.0]
    assert torch.from_dlpack(result).tolist() == [0.0, 3.0, 6.0, 9.0, 12.0, 15.0]
