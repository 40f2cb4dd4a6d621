"""hearts play's tests: the real ``hearts play`` command as a process (its page on a free port of
127.0.0.1, the sample bots in-process, a real SQLite file), driven over HTTP or by Debian's Chromium
through Playwright (``executable_path``: no browser is ever downloaded). Without a Chromium (or
Playwright) the browser tests are skipped with one loud line, as the site's are."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from chromium import browser, say_if_skipped, skip_without_chromium  # noqa: E402, F401
from cli_procs import Run  # noqa: E402
from play_helpers import Table  # noqa: E402


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_without_chromium(items, "tests/ladder/table/")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    say_if_skipped(terminalreporter)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """``table(*args)`` starts ``hearts play --no-browser --db tmp/arena.db *args`` and waits for the
    address it prints (``people=N``: for its N addresses, one a person); every process is killed at the
    end of the test if it is still there."""
    runs: list[Run] = []

    def start(*args: str, people: int = 1) -> Table:
        db = tmp_path / "arena.db"
        started = time.monotonic()
        run = Run(tmp_path, "play", "--no-browser", "--db", str(db), *args, name=f"play{len(runs)}")
        runs.append(run)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.findall(r"http://127\.0\.0\.1:\d+/\?key=[\w-]+", run.output())
            if len(found) >= people:
                return Table(run, found[0], db, started, urls=found)
            if run.proc.poll() is not None:
                pytest.fail(f"hearts play ended before it printed its address:\n{run.output()}")
            time.sleep(0.05)
        pytest.fail(f"hearts play printed no address within 60 s:\n{run.output()}")

    yield start
    for r in runs:
        r.kill()
