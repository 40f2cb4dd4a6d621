"""The whole suite's hooks: the order it runs in, and the loud line where the rule sources are absent.

Modules with slow tests run first, so that on several workers (``make test``) the long ones start
at once and the short ones fill in after them, instead of one long module left running alone at the end."""

from __future__ import annotations

import pytest
from rule_sources import EXPECTED, WHY_NOT


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow: dict[str, int] = {}
    for item in items:
        slow[item.nodeid.split("::")[0]] = slow.get(item.nodeid.split("::")[0], 0) + ("slow" in item.keywords)
    items.sort(key=lambda item: -slow[item.nodeid.split("::")[0]])  # stable: each module keeps its own order


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if WHY_NOT is not None and not EXPECTED:
        terminalreporter.write_line(f"*** RULE QUOTES NOT CHECKED: {WHY_NOT} ***", red=True, bold=True)
