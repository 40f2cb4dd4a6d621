"""The sandbox's tests need bubblewrap that can make namespaces here. Without it they are skipped,
and the run says so in one loud line (never a silent skip): .ci/run installs it."""

from __future__ import annotations

import pytest

from ladder.sandbox import SandboxUnavailable, probe

try:
    probe()
    WHY_NOT: str | None = None
except SandboxUnavailable as e:
    WHY_NOT = str(e)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if WHY_NOT is None:
        return
    skip = pytest.mark.skip(reason=f"no sandbox here: {WHY_NOT}")
    for item in items:
        if "tests/ladder/sandbox/" in str(item.fspath) and "needs_bwrap" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if WHY_NOT is not None:
        terminalreporter.write_line(f"*** SANDBOX TESTS SKIPPED: {WHY_NOT} ***", red=True, bold=True)
