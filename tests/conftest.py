"""The whole suite's hooks: the order it runs in, and the loud line where the rule sources are absent.

Modules run longest first (their times as last measured, in ``tests/durations.json``), so that on
several workers (``make test``) the long ones start at once and the short ones fill in after them,
instead of one long module left running alone at the end: longest-first is what keeps the workers
finishing together. ``make test-durations`` measures them again; a module not yet measured is taken
as long if it has slow tests, else short. The order changes nothing a test checks."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from rule_sources import EXPECTED, WHY_NOT

DURATIONS = Path(__file__).with_name("durations.json")
RECORD = "HEARTS_RECORD_DURATIONS"  # set (to anything): the run writes its modules' times to DURATIONS
UNMEASURED_SLOW_S = 10.0
UNMEASURED_S = 0.5


def module_of(nodeid: str) -> str:
    return nodeid.split("::")[0]


def measured() -> dict[str, float]:
    """Each module's seconds (setup, call and teardown of all its tests) as last measured."""
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.get("modules", {}).items()}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seconds = measured()
    slow: set[str] = {module_of(i.nodeid) for i in items if "slow" in i.keywords}

    def weight(item: pytest.Item) -> float:
        m = module_of(item.nodeid)
        if m in seconds:
            return seconds[m]
        return UNMEASURED_SLOW_S if m in slow else UNMEASURED_S

    items.sort(key=lambda item: -weight(item))  # stable: each module keeps its own order


_times: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if os.environ.get(RECORD):
        _times[module_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Written by the one process that sees every report: the controller under xdist, else the run itself.
    if not os.environ.get(RECORD) or hasattr(session.config, "workerinput") or not _times:
        return
    modules = {m: round(s, 1) for m, s in sorted(_times.items(), key=lambda kv: (-kv[1], kv[0]))}
    text = json.dumps(
        {"about": "seconds per test module, longest first: make test-durations", "modules": modules},
        indent=1,
        ensure_ascii=False,
    )
    DURATIONS.write_text(text + "\n")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if WHY_NOT is not None and not EXPECTED:
        terminalreporter.write_line(f"*** RULE QUOTES NOT CHECKED: {WHY_NOT} ***", red=True, bold=True)
