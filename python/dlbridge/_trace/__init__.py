"""dlbridge's tracer: turns a Python function over arrays into MLIR (linalg on tensors).

Entry point: :func:`trace` (``trace_function``). Every operation is declared once in the op table
(``registry``) by the module of its family, which implements it through the emission toolkit
(``lowering``); a ufunc's result dtype is its declared rule (``dtype_rules``), which the table runs.
``array_methods`` installs ``TracedArray``'s operators and methods from the table,
``numpy_dispatch`` routes NumPy's protocols to it and ``public_functions`` makes ``dlbridge.<name>``.

The modules, one job each:

- ``trace_function``: ``trace``, a Python function into an MLIR module: calls it on traced
  arguments and writes the entry function around what the operations emitted.
- ``specs``: what a trace takes and gives (argument and result specs, ``TraceResult``).
- ``errors``: ``TraceError``, messages at the user's line, internal errors reported as dlbridge's.
- ``traced_array``: the values a trace is made of (``TraceContext``, ``SymbolicDim``,
  ``TracedArray``, views, argument slots).
- ``mlir_text``: MLIR text: SSA names, blocks, constants, types, source locations.
- ``dtypes``: the tracer's dtypes and NumPy's promotion.
- ``registry``: the op table; ``dtype_rules``: the result dtype rules it runs for ufuncs.
- ``lowering``: the emission toolkit every operation lowers through (operands, scalar code,
  broadcasting, ``linalg.generic``, run-time checks).
- the op families, each declaring and implementing its operations: ``elementwise``, ``ufuncs``
  (shifts, ``gcd``, ``fmod``, ``divmod``, ``frexp``, ``nextafter``... beyond elementwise's),
  ``reductions`` (and scans, statistics), ``sorting`` (``sort``, ``argsort``, ``searchsorted``),
  ``statistics`` (``nan`` reductions, ``ptp``, ``median``, ``quantile``, ``percentile``),
  ``contractions`` (``matmul``, ``einsum``...), ``shapes`` (``reshape``, ``transpose``),
  ``axes`` (adding, dropping, reordering and broadcasting axes: ``expand_dims``, ``squeeze``,
  ``moveaxis``, ``broadcast_to``...), ``indexing`` (``x[...]`` reads), ``creation``,
  ``conversion`` (``asarray``, ``array``, ``item``), ``splitting`` (``split``...),
  ``editing`` (``insert``, ``delete``), ``padding`` (``pad``), ``inplace`` (item assignment,
  ``copyto``), ``masked`` (``x[mask]`` selections), ``compaction`` (``nonzero``, ``unique``...),
  ``histograms``, ``linalg`` (``solve``, ``inv``, ``det``...), ``decompositions`` (``qr``,
  ``eigh``, ``svd``, ``lstsq``...), ``matrices`` (``diagonal``, ``diag``, ``trace``, ``tri``,
  ``vander``, ``kron``, ``cross``, ``matrix_power``), ``numerics`` (``isclose``, ``trapezoid``,
  ``gradient``, ``convolve``, ``interp``, ``digitize``, ``isin``, ``select``, ``nan_to_num``,
  ``polyval``, ``unravel_index``...), ``windows`` (``sliding_window_view``),
  ``functional`` (``apply_along_axis``, ``apply_over_axes``, ``piecewise``, ``vectorize``),
  ``signals`` (``angle``, ``unwrap``, ``sinc``, window functions); ``complex_math``: the
  transcendental functions of complex numbers, as elementwise's scalar code.
- ``overlap``: whether an in-place update reads what it writes.
- ``loops``, ``loop_source``, ``loop_rewrite``, ``loop_state``: Python loops as ``scf.for``
  (the loop operations, the source rewrite, its AST transform, the Python state around it);
  ``branches``: ``if``, ``while`` and ``a if c else b`` on values known only at run time as
  ``scf.if``/``scf.while`` (through the same rewrite).
- ``numpy_proxy``: NumPy as the traced function sees it (``np.random``'s global state refused);
  ``math_proxy``: Python's ``math`` module, its functions on traced scalars; ``numpy_dispatch``: NumPy's
  ``__array_ufunc__``/``__array_function__``; ``array_methods``: ``TracedArray``'s methods;
  ``public_functions``: ``dlbridge.<name>``.
"""

from . import (  # noqa: F401 - importing a module declares its operations
    array_methods,
    axes,
    compaction,
    contractions,
    conversion,
    creation,
    decompositions,
    editing,
    elementwise,
    functional,
    histograms,
    linalg,
    matrices,
    numerics,
    padding,
    reductions,
    shapes,
    signals,
    sorting,
    splitting,
    statistics,
    ufuncs,
    windows,
)
from .dtypes import DType, result_type, weak_result_type
from .errors import TraceError, unparsable_trace
from .specs import ArraySpec, ResultSpec, ScalarSpec, StaticSpec, TraceResult, build_results, place_results
from .trace_function import trace
from .traced_array import SymbolicDim, TracedArray

__all__ = [
    "ArraySpec",
    "DType",
    "ResultSpec",
    "ScalarSpec",
    "StaticSpec",
    "SymbolicDim",
    "TraceError",
    "TraceResult",
    "TracedArray",
    "build_results",
    "place_results",
    "result_type",
    "trace",
    "unparsable_trace",
    "weak_result_type",
]
