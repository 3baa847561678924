"""A function with an ``assert`` on data, for ``test_jit_control_flow.py``: outside a test
module, whose asserts pytest rewrites (its source then no longer matches its code, and
dlbridge runs it unrewritten)."""

from __future__ import annotations

from typing import Any

import numpy as np


def asserted_log(x: Any) -> Any:
    """``log(x)`` of positive values, checked."""
    assert np.all(x > 0), "positive values only"
    return np.log(x)
