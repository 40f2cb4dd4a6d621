"""Dependencies point one way, down toward the engine. docs/architecture.md draws these layers.

From the top: the ``hearts`` command (ladder.cli, which adds every group itself) → the site
(ladder.site) → the arena (ladder.arena) → the Dask venue (ladder.venues.cluster) → the ladder's core
(store, bots, conformance, ratings, tournaments, venues) → the sandbox (ladder.sandbox) and the
referee → the codec (hearts.v1) → the engine (referee.rules). ``hearts play`` (ladder.table) sits on
the core beside the arena, and a notebook's API (ladder.notebook) on the site. The bots (clients)
see only the codec and the engine. Nothing imports the part above it, and no module imports itself
back through others: the import graph has no circle.

The engine must stay pure: no I/O libraries, no asyncio, no protobuf, nothing else of ours. These
checks read every module's imports, so a stray import fails here first.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("referee", "clients", "ladder", "hearts")  # the design card's folders (hearts: proto/hearts)


def _source_root(module: str) -> Path:
    return ROOT / "proto" if module.split(".")[0] == "hearts" else ROOT


def _module_name(path: Path) -> str:
    base = ROOT / "proto" if path.is_relative_to(ROOT / "proto") else ROOT
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _all_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in TOP_LEVEL:
        for path in sorted((_source_root(top) / top).rglob("*.py")):
            if "_compiled" in path.parts or "node_modules" in path.parts or path.name.endswith("_pb2.py"):
                continue
            if path.name.endswith("_pb2_grpc.py"):
                continue
            found[_module_name(path)] = path
    return found


MODULES = _all_modules()


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for every check that reads it."""
    return ast.parse(path.read_text())


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function (a name imported from a package counts
    as its submodule when there is one)."""
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES)
    return names


def _ours(names: set[str]) -> set[str]:
    """The modules of ours among ``names``: each resolved to the longest module name it is or is under."""
    found: set[str] = set()
    for n in names:
        parts = n.split(".")
        while parts and ".".join(parts) not in MODULES:
            parts.pop()
        if parts:
            found.add(".".join(parts))
    return found


# The parts, each with the parts it may import (its own always). Longest prefix wins.
PARTS: dict[str, set[str]] = {
    "referee.rules": set(),
    "referee.isolation": set(),
    "hearts": {"referee.rules"},
    "referee": {"referee.rules", "referee.isolation", "hearts"},
    "clients": {"referee.rules", "hearts"},
    "ladder.sandbox": {"referee.isolation"},
    "ladder": {"referee", "referee.rules", "referee.isolation", "hearts", "clients", "ladder.sandbox"},
    "ladder.venues.cluster": {"ladder", "referee", "referee.rules", "referee.isolation", "hearts", "clients",
                              "ladder.sandbox"},
    "ladder.table": {"ladder", "referee", "referee.rules", "referee.isolation", "hearts", "clients", "ladder.sandbox"},
    "ladder.arena": {"ladder", "ladder.venues.cluster", "referee", "referee.rules", "referee.isolation", "hearts",
                     "clients", "ladder.sandbox"},
    # The site's /play tables are hearts play's table (its page, its seat's stream, its sitting).
    "ladder.site": {"ladder", "ladder.arena", "ladder.table", "referee", "referee.rules", "referee.isolation",
                    "hearts", "clients", "ladder.sandbox"},
    "ladder.cli": {"ladder", "ladder.site", "ladder.arena", "ladder.table", "ladder.venues.cluster", "referee",
                   "referee.rules", "referee.isolation", "hearts", "clients", "ladder.sandbox"},
    # A notebook's play and its HTML: the site's replay viewer, over the core. Nothing imports it but a
    # notebook (or a script); it registers the record's HTML view with the referee (show_html_with).
    "ladder.notebook": {"ladder", "ladder.site", "referee", "referee.rules", "referee.isolation", "hearts",
                        "clients", "ladder.sandbox"},
}  # fmt: skip


def _part(module: str) -> str:
    parts = module.split(".")
    while ".".join(parts) not in PARTS:
        parts.pop()
    return ".".join(parts)


def _ids(item: tuple[str, Path]) -> str:
    return item[0]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_imports_only_the_parts_below_its_own(name: str) -> None:
    part = _part(name)
    allowed = PARTS[part] | {part}
    bad = sorted(m for m in _ours(_imports(MODULES[name])) if _part(m) not in allowed)
    assert not bad, f"{name} (in {part}) imports {bad}: {part} may import only {sorted(allowed)}"


def _graph() -> dict[str, set[str]]:
    return {name: _ours(_imports(path)) - {name} for name, path in MODULES.items()}


def _circles(graph: dict[str, set[str]]) -> Iterator[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    counter = [0]

    def visit(v: str) -> Iterator[list[str]]:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                yield from visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                yield sorted(comp)

    for v in sorted(graph):
        if v not in index:
            yield from visit(v)


def _package_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` re-exporting its own modules is not a circle: drop those edges."""
    return {v: {w for w in ws if not w.startswith(v + ".")} for v, ws in graph.items()}


@pytest.mark.slow
def test_no_import_circle_anywhere() -> None:
    circles = list(_circles(_package_edges(_graph())))
    assert not circles, f"import circles: {circles}"


def test_the_circle_check_finds_a_circle() -> None:
    assert list(_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})) == [["a", "b", "c"]]


def test_the_distribution_installs_only_the_design_cards_names() -> None:
    """No generic top-level import name (web, cluster, sandbox, ...) that could shadow another package."""
    tops = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()} | {
        p.name for p in (ROOT / "proto").iterdir() if (p / "__init__.py").is_file()
    }
    assert tops == {"referee", "clients", "ladder", "hearts"}, tops
    text = (ROOT / "pyproject.toml").read_text()
    assert 'include = ["referee*", "clients*", "ladder*", "hearts*"]' in text


def _sql_calls(path: Path) -> list[str]:
    """The SQL a module runs itself: its calls of execute, executemany and executescript."""
    return [
        n.func.attr
        for n in ast.walk(_tree(path))
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("execute", "executemany", "executescript")
    ]


@pytest.mark.parametrize("path", sorted((ROOT / "referee" / "rules").rglob("*.py")), ids=lambda p: p.name)
def test_the_engine_imports_nothing_of_ours_and_no_io(path: Path) -> None:
    if "_compiled" in path.parts:
        pytest.skip("the build's own files")
    forbidden = ("referee", "ladder", "clients", "hearts", "grpc", "google", "asyncio", "sqlite3", "sqlite_utils",
                 "socket", "subprocess", "rich", "click")  # fmt: skip
    bad = sorted(n for n in _imports(path) if n.split(".")[0] in forbidden and not n.startswith("referee.rules"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_codec_imports_no_grpc() -> None:
    """hearts.v1.codec is shared by the referee and the bots: messages, not transport."""
    bad = sorted(n for n in _imports(ROOT / "proto" / "hearts" / "v1" / "codec.py") if n.split(".")[0] == "grpc")
    assert not bad, f"the codec imports {bad}"


@pytest.mark.parametrize(
    "name", sorted(n for n in MODULES if not n.startswith("ladder.store") and n != "ladder.arena.store")
)
def test_only_the_two_stores_run_sql(name: str) -> None:
    """ladder/store/ owns the ladder's schema and every statement on it; ladder/arena/store.py the arena's.
    The rest of the code calls their parts."""
    calls = _sql_calls(MODULES[name])
    assert not calls, f"{name} runs SQL ({', '.join(calls)}): give the store a method for it"


def _module_level_imports(path: Path) -> set[str]:
    """The imports a module runs when it is imported (not those inside its functions)."""
    tree = _tree(path)
    names: set[str] = set()
    inside = {
        id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) for n in ast.walk(f)
    }
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not n.startswith("ladder.venues.cluster")))
def test_only_the_cluster_venue_imports_dask_when_imported(name: str) -> None:
    """The ladder runs without the cluster extra: Dask is imported only by ladder.venues.cluster's
    modules, and by nothing at all when a module is imported."""
    bad = sorted(n for n in _module_level_imports(MODULES[name]) if n.split(".")[0] in ("distributed", "dask"))
    assert not bad, f"{name} imports {bad}"


def test_the_cluster_package_needs_no_dask_to_import() -> None:
    """``import ladder.venues.cluster`` works without the extra: it says which extra to install when used."""
    found = _module_level_imports(ROOT / "ladder" / "venues" / "cluster" / "__init__.py")
    assert not {n for n in found if n.split(".")[0] in ("distributed", "dask")}
