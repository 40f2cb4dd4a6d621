"""hearts play's tests: the real ``hearts play`` command as a process (its page on a free port of
127.0.0.1, the sample bots in-process, a real SQLite file), driven over HTTP or by Debian's Chromium
through Playwright (``executable_path``: no browser is ever downloaded). Without a Chromium (or
Playwright) the browser tests are skipped with one loud line, as the site's are."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ladder"))
from cli_procs import Run  # noqa: E402
from play_helpers import Table  # noqa: E402

CHROMIUM = os.environ.get("HEARTS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
try:
    import playwright.sync_api  # noqa: F401

    WHY_NOT: str | None = None if Path(CHROMIUM).is_file() else f"no Chromium at {CHROMIUM} (apt-get install chromium)"
except ImportError:
    WHY_NOT = "Playwright for Python is not installed (pip install -e '.[test]')"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if WHY_NOT is None:
        return
    skip = pytest.mark.skip(reason=f"no browser here: {WHY_NOT}")
    for item in items:
        if "tests/play/" in str(item.fspath) and "browser" in item.fixturenames:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if WHY_NOT is not None:
        terminalreporter.write_line(f"*** BROWSER TESTS SKIPPED: {WHY_NOT} ***", red=True, bold=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """``table(*args)`` starts ``hearts play --no-browser --db tmp/arena.db *args`` and waits for the
    address it prints; every process is killed at the end of the test if it is still there."""
    runs: list[Run] = []

    def start(*args: str) -> Table:
        db = tmp_path / "arena.db"
        started = time.monotonic()
        run = Run(tmp_path, "play", "--no-browser", "--db", str(db), *args, name=f"play{len(runs)}")
        runs.append(run)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"http://127\.0\.0\.1:\d+/\?key=[\w-]+", run.output())
            if found:
                return Table(run, found.group(0), db, started)
            if run.proc.poll() is not None:
                pytest.fail(f"hearts play ended before it printed its address:\n{run.output()}")
            time.sleep(0.05)
        pytest.fail(f"hearts play printed no address within 60 s:\n{run.output()}")

    yield start
    for r in runs:
        r.kill()
