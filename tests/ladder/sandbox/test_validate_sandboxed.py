"""hearts validate --sandbox: the bot it starts runs in bubblewrap, a good bot still passes every check,
and a bot stopped at a limit fails with the fault a match records for it, resource_limit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.conformance.report import Report
from referee.record import FaultKind

pytestmark = [pytest.mark.needs_bwrap, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
HEARTS = str(Path(sys.executable).with_name("hearts"))


def _validate(tmp_path: Path, attack: str, budget_ms: int = 500) -> tuple[int, Report, str]:
    bot = tmp_path / "bot"
    bot.mkdir(parents=True)
    shutil.copy(HERE / "bots" / "attacker.py", bot / "bot.py")
    (bot / "targets.json").write_text("{}")
    for d in (tmp_path, bot):
        os.chmod(d, 0o755)  # the bot's own uid must reach its directory
    run = subprocess.run(
        [HEARTS, "validate", "--sandbox", "--command", f"python {bot}/bot.py {attack}", "--rules", "standard"]
        + ["--json", "--budget-ms", str(budget_ms)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, Report.from_dict(json.loads(run.stdout)), run.stderr


def test_a_good_bot_passes_every_check_in_the_sandbox(tmp_path: Path) -> None:
    code, report, err = _validate(tmp_path, "none")
    assert code == 0 and report.ok, [c for c in report.checks if c.outcome.value == "fail"] or err
    assert report.isolation is not None and report.isolation.kind == "sandbox", report.isolation  # as it ran


def test_a_bot_stopped_at_its_memory_limit_fails_as_resource_limit(tmp_path: Path) -> None:
    """The fault kind validate could not see outside a sandbox (test_validate.py's faulty bots cover the rest)."""
    # A budget the 1.5 GB it takes fits in on a loaded machine: the limit, not the clock, stops it.
    code, report, _ = _validate(tmp_path, "memory", budget_ms=5000)
    assert code == 1
    failures = report.failures()
    assert failures and {c.fault for c in failures} == {FaultKind.RESOURCE_LIMIT}
    assert any("memory" in c.detail for c in failures)
