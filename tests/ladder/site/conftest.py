"""The web site's tests: a real arena (`hearts arena serve`, uvicorn on a free port, the site mounted
by its entry point) with recorded matches, driven by Playwright in Debian's Chromium
(``executable_path``: no browser is ever downloaded). Without a Chromium (or Playwright) here the
browser tests are skipped with one loud line; .ci/run installs chromium so CI always runs them.

Screenshots of the main pages go to the test's folder, and to $HEARTS_SITE_SCREENSHOTS when set
(docs/ holds three of them, shown in the README).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arena"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from arena_helpers import HOUSE4, make_arena  # noqa: E402
from chromium import browser, say_if_skipped, skip_without_chromium  # noqa: E402, F401
from site_helpers import quiet  # noqa: E402


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_without_chromium(items, "tests/ladder/site/")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    say_if_skipped(terminalreporter)


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An anonymous classroom arena of four house bots with a few recorded matches, and two
    participants (alice, bob) with their tokens. Its ladder is then paused (``site_helpers.playing``
    lets it play for a test) unless the module sets ``LADDER_PLAYS = True``; its final is a round
    robin unless the module sets ``FINAL_FORMAT``."""
    root = tmp_path_factory.mktemp("site")
    final = getattr(request.module, "FINAL_FORMAT", "round-robin")
    classroom = f'anonymous = true\nfinal_deals = 1\nfinal_seed = 7\nfinal_format = "{final}"'
    a = make_arena(root, house=HOUSE4, classroom=classroom)
    alice, bob = a.add_user("alice"), a.add_user("bob")
    a.serve()
    try:
        a.wait_for(a.organiser, lambda s: s["matches"] >= 3, timeout=120)
        if not getattr(request.module, "LADDER_PLAYS", False):
            quiet(a)
        yield {"arena": a, "alice": alice, "bob": bob, "root": root}
    finally:
        a.stop()
