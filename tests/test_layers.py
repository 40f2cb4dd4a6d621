"""Dependencies point one way: web (the site) → arena → cluster → ladder → referee → the codec → rules;
play (hearts play) → ladder;
clients → the codec and rules; ladder → sandbox, which imports nothing of ours; the referee takes from
the sandbox only ``sandbox.isolation``, the value a seat's record keeps.

The engine (referee/rules) must stay pure: no I/O libraries, no asyncio, no protobuf, nothing
else of ours. These checks read every module's imports, so a stray import fails here first.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _sql_calls(path: Path) -> list[str]:
    """The SQL a module runs itself: its calls of execute, executemany and executescript."""
    return [
        n.func.attr
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("execute", "executemany", "executescript")
    ]


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _modules("referee/rules"), ids=lambda p: p.name)
def test_the_engine_imports_nothing_of_ours_and_no_io(path: Path) -> None:
    forbidden = (
        "referee",
        "ladder",
        "clients",
        "hearts",
        "grpc",
        "google",
        "asyncio",
        "sqlite3",
        "sqlite_utils",
        "socket",
        "subprocess",
        "rich",
        "click",
    )
    bad = sorted(n for n in _imports(path) if n.split(".")[0] in forbidden)
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _modules("referee"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_referee_does_not_reach_up_into_the_ladder(path: Path) -> None:
    bad = sorted(n for n in _imports(path) if n.split(".")[0] in ("ladder", "clients"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize(
    "path",
    _modules("ladder") + _modules("referee") + _modules("clients") + _modules("sandbox"),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_nothing_below_the_arena_imports_it(path: Path) -> None:
    """The arena builds on the ladder, never the reverse (its CLI commands join ladder.cli's in arena/cli.py)."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] == "arena")
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", [p for p in _modules("arena") if p.name != "store.py"], ids=lambda p: p.name)
def test_only_the_arena_store_runs_the_arenas_sql(path: Path) -> None:
    """arena/store.py owns the arena's tables and every statement on them, as ladder/store.py does the ladder's."""
    calls = _sql_calls(path)
    assert not calls, f"arena/{path.name} runs SQL ({', '.join(calls)}): give arena/store.py a method for it"


@pytest.mark.parametrize("path", _modules("clients"), ids=lambda p: str(p.relative_to(ROOT)))
def test_bots_see_only_the_engine_and_the_protocol(path: Path) -> None:
    bad = sorted(
        n for n in _imports(path) if n.split(".")[0] in ("referee", "ladder") and not n.startswith("referee.rules")
    )
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_codec_sees_only_the_engine_and_the_generated_protocol() -> None:
    """hearts.v1.codec is shared by the referee and the bots, so it may import neither."""
    path = ROOT / "proto" / "hearts" / "v1" / "codec.py"
    bad = sorted(
        n
        for n in _imports(path)
        if n.split(".")[0] in ("ladder", "clients", "grpc")
        or (n.startswith("referee") and not n.startswith("referee.rules"))
    )
    assert not bad, f"the codec imports {bad}"


@pytest.mark.parametrize(
    "path",
    [p for p in _modules("ladder") + _modules("referee") if p.name != "store.py"],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_only_the_store_runs_sql(path: Path) -> None:
    """The store owns the schema and every statement on it; the rest of the code calls its parts."""
    calls = _sql_calls(path)
    assert not calls, f"{path.relative_to(ROOT)} runs SQL ({', '.join(calls)}): give the store a method for it"


@pytest.mark.parametrize("path", _modules("referee"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_referee_takes_only_the_isolation_value_from_the_sandbox(path: Path) -> None:
    """A record says what guarded each seat's bot; running bots (bubblewrap, limits, the watch) is the ladder's."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] == "sandbox" and n != "sandbox.isolation")
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _modules("sandbox"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_sandbox_imports_nothing_of_ours(path: Path) -> None:
    """The launcher uses the sandbox, never the other way: it knows processes, not matches."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] in ("ladder", "referee", "clients", "hearts"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize(
    "path",
    _modules("arena") + _modules("ladder") + _modules("referee") + _modules("clients") + _modules("sandbox"),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_nothing_below_the_site_imports_it(path: Path) -> None:
    """The site builds on the arena (mounted by its entry point, hearts_arena.site), never the reverse."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] == "web")
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _modules("web"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_site_runs_no_sql_and_reads_through_the_api(path: Path) -> None:
    """The site's pages read through the arena's API handlers and stores, so it runs no SQL of its own."""
    calls = _sql_calls(path)
    assert not calls, f"{path.relative_to(ROOT)} runs SQL ({', '.join(calls)})"


def _module_level_imports(path: Path) -> set[str]:
    """The imports a module runs when it is imported (not those inside its functions)."""
    tree = ast.parse(path.read_text())
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


@pytest.mark.parametrize(
    "path",
    _modules("ladder") + _modules("referee") + _modules("clients") + _modules("sandbox"),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_nothing_below_the_cluster_imports_it(path: Path) -> None:
    """The cluster plays the ladder's matches (a ``ladder.venue.Venue``), never the reverse: only the
    CLI reaches it, inside the function that reads --cluster, so the ladder runs without Dask."""
    found = _module_level_imports(path) if path == ROOT / "ladder" / "cli.py" else _imports(path)
    bad = sorted(n for n in found if n.split(".")[0] in ("cluster", "distributed", "dask"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _modules("cluster"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_cluster_builds_on_the_ladder_only(path: Path) -> None:
    """The cluster imports the ladder, the referee and the sandbox, never the arena or the site; and
    it runs no SQL (the client's ladder.store is the one writer)."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] in ("arena", "web"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"
    assert not _sql_calls(path), f"{path.relative_to(ROOT)} runs SQL"


def test_the_cluster_package_needs_no_dask_to_import() -> None:
    """``import cluster`` works without the extra: it says which extra to install when used."""
    found = _module_level_imports(ROOT / "cluster" / "__init__.py")
    assert not {n for n in found if n.split(".")[0] in ("distributed", "dask")}


@pytest.mark.parametrize(
    "path",
    _modules("arena") + _modules("cluster") + _modules("ladder") + _modules("referee") + _modules("clients")
    + _modules("sandbox"),
    ids=lambda p: str(p.relative_to(ROOT)),
)  # fmt: skip
def test_nothing_below_the_table_imports_it(path: Path) -> None:
    """``hearts play`` builds on the ladder and the referee (its command joins ladder.cli's in play/cli.py,
    which the entry point imports), never the reverse."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] == "play")
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _modules("play"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_table_builds_on_the_ladder_only(path: Path) -> None:
    """The table imports the ladder, the referee and the sample bots, never the arena, the site or the
    cluster, and runs no SQL (the ladder's store records its match)."""
    bad = sorted(n for n in _imports(path) if n.split(".")[0] in ("arena", "web", "cluster"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"
    assert not _sql_calls(path), f"{path.relative_to(ROOT)} runs SQL"
