"""The rule tests' one loud line: where the rule sources are absent, the quotes went unchecked."""

from __future__ import annotations

import pytest
from test_citations import EXPECTED, WHY_NOT


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if WHY_NOT is not None and not EXPECTED:
        terminalreporter.write_line(f"*** RULE QUOTES NOT CHECKED: {WHY_NOT} ***", red=True, bold=True)
