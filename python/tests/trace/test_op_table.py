"""The op table is the one home of every traced operation: each entry is reachable as
``dlbridge.<name>``, through the NumPy names it declares and as the method it declares, and the
tracer's modules import each other without cycles or function-local imports."""

from __future__ import annotations

import ast
import pathlib
from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge._trace import ArraySpec, TraceError, registry, trace

ENTRIES = registry.all_ops()
TRACE_DIR = pathlib.Path(dlbridge.__file__).parent / "_trace"


def _inputs(dtype: Any, arity: int) -> list[np.ndarray]:
    return [np.linspace(0.25, 0.75, 4).astype(dtype) for _ in range(arity)]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_every_entry_is_a_dlbridge_function(entry: registry.OpDef) -> None:
    for name in (entry.name, *entry.numpy):
        if name.isidentifier():
            assert getattr(dlbridge, name).__wrapped__ is entry.impl
            assert name in dlbridge.__all__


UFUNCS = [(e, n) for e in ENTRIES if e.kind == "ufunc" for n in e.numpy if isinstance(getattr(np, n, None), np.ufunc)]


@pytest.mark.parametrize("entry,name", UFUNCS, ids=lambda v: v if isinstance(v, str) else v.name)
def test_numpy_ufuncs_dispatch_to_their_entry(entry: registry.OpDef, name: str) -> None:
    ufunc = getattr(np, name)
    assert ufunc.nin == entry.arity
    for dtype in (np.float64, np.int64, np.bool_):
        args = _inputs(dtype, ufunc.nin)
        try:
            want = ufunc(*args)
        except TypeError:
            continue  # NumPy has no loop for this dtype
        got = dlbridge.jit(lambda *xs: ufunc(*xs))(*args)
        wants, gots = (want, got) if ufunc.nout > 1 else ((want,), (got,))
        assert len(gots) == ufunc.nout
        for g, w in zip(gots, wants):
            assert np.asarray(g).dtype == w.dtype, (name, dtype)
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
        return
    pytest.fail(f"numpy.{name} ran on no dtype")


RULE_DTYPES = ["bool", "int8", "uint8", "int16", "int64", "uint64", "float16", "float32", "float64", "complex64",
               "complex128"]


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.kind == "ufunc"], ids=lambda e: e.name)
def test_the_table_runs_each_ufuncs_dtype_rule(entry: registry.OpDef) -> None:
    """Every ufunc declares a dtype rule, and what the table gives for an input dtype is NumPy's
    result dtype, or a TraceError for a dtype dlbridge does not take."""
    assert entry.dtype_rule is not None and entry.lower is not None
    ufunc = getattr(np, entry.numpy[0], None) if entry.numpy else None
    rank = 2 if entry.name == "matmul" else 1
    checked = 0
    for dtype in RULE_DTYPES:
        specs = [ArraySpec(dtype, rank)] * entry.arity
        try:
            traced = trace(lambda *xs: entry.impl(*xs), specs, name="f")
        except TraceError:
            continue
        if isinstance(ufunc, np.ufunc):
            try:
                out = ufunc(*[np.ones((2,) * rank, dtype) for _ in range(entry.arity)])
            except TypeError:
                continue  # NumPy has no loop for it either
            wants = out if ufunc.nout > 1 else (out,)
            assert [r.dtype for r in traced.results] == [w.dtype.name for w in wants], (entry.name, dtype)
        checked += 1
    assert checked, f"{entry.name} traced for no dtype"


def test_functions_have_no_dtype_rule() -> None:
    """Functions decide their result dtype from their arguments (``dtype=``, ``axis=``)."""
    assert all(e.dtype_rule is None and e.lower is None for e in ENTRIES if e.kind == "function")


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.method], ids=lambda e: e.name)
def test_methods_come_from_the_table(entry: registry.OpDef) -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        seen.append(getattr(x, entry.method))
        return x

    dlbridge.jit(f)(np.zeros(3))
    assert seen[0].func is entry.impl


MODULES = sorted(p.stem for p in TRACE_DIR.glob("*.py") if p.stem != "__init__")


def _imports(module: str) -> set[str]:
    """The tracer modules ``module`` imports."""
    tree = ast.parse((TRACE_DIR / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
    return found & set(MODULES)


def test_the_tracer_modules_import_no_cycle() -> None:
    graph = {m: _imports(m) for m in MODULES}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, " -> ".join([*path, module])
        if module in done:
            return
        for dep in graph[module]:
            visit(dep, [*path, module])
        done.add(module)

    for module in MODULES:
        visit(module, [])
    assert "registry" in graph and not graph["registry"], "the table imports no implementation"


@pytest.mark.parametrize("module", MODULES)
def test_no_function_local_imports(module: str) -> None:
    tree = ast.parse((TRACE_DIR / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
            assert not inner, f"{module}.{node.name} imports inside a function"


@pytest.mark.parametrize("module", MODULES)
def test_no_module_reads_another_modules_private_names(module: str) -> None:
    """The modules share what they export: lowering's toolkit and each family's operations are
    public names, so no module imports or reads a ``_name`` of another."""
    tree = ast.parse((TRACE_DIR / f"{module}.py").read_text())
    siblings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                assert not alias.name.startswith("_") and not (alias.asname or "").startswith("_"), \
                    f"{module} imports {alias.name} as {alias.asname}"
                if node.module is None:
                    siblings.add(alias.asname or alias.name)
    reads = {f"{n.value.id}.{n.attr}" for n in ast.walk(tree) if isinstance(n, ast.Attribute)
             and isinstance(n.value, ast.Name) and n.value.id in siblings and n.attr.startswith("_")}
    assert not reads, f"{module} reads {sorted(reads)}"


@pytest.mark.parametrize("module", ["lowering", "elementwise", "contractions", "shapes"])
def test_the_emitters_read_arrays_through_their_public_interface(module: str) -> None:
    privates = {"_value", "_dims", "_dtype", "_weak", "_is_scalar", "_alias", "_ctx", "_dim_ssa"}
    tree = ast.parse((TRACE_DIR / f"{module}.py").read_text())
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} & privates
    assert not used, f"{module}.py reads TracedArray privates: {sorted(used)}"
