"""Debian's Chromium through Playwright, for the tests of every page (``executable_path``: no browser
is ever downloaded). Without one, those tests are skipped with one loud line, never silently."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("HEARTS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
try:
    import playwright.sync_api  # noqa: F401

    WHY_NOT: str | None = None if Path(CHROMIUM).is_file() else f"no Chromium at {CHROMIUM} (apt-get install chromium)"
except ImportError:
    WHY_NOT = "Playwright for Python is not installed (pip install -e '.[test]')"


def skip_without_chromium(items: list[pytest.Item], folder: str) -> None:
    """Mark the tests of ``folder`` that take the ``browser`` fixture skipped where no Chromium runs."""
    if WHY_NOT is None:
        return
    skip = pytest.mark.skip(reason=f"no browser here: {WHY_NOT}")
    for item in items:
        if folder in str(item.fspath) and "browser" in item.fixturenames:
            item.add_marker(skip)


def say_if_skipped(terminalreporter: pytest.TerminalReporter) -> None:
    """The one loud line of a run whose browser tests were skipped."""
    if WHY_NOT is not None:
        terminalreporter.write_line(f"*** BROWSER TESTS SKIPPED: {WHY_NOT} ***", red=True, bold=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a module's tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()
