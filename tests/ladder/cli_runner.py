"""Helpers for tests that run ``hearts`` in this process with click's CliRunner: whatever its exit
status, a command must end with a message, never a traceback."""

from __future__ import annotations

from click.testing import CliRunner, Result

from ladder.cli import main


def run(*args: str, **kw: object) -> Result:
    result = CliRunner().invoke(main, list(args), **kw)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def ok(*args: str, **kw: object) -> str:
    result = run(*args, **kw)
    assert result.exit_code == 0, result.output
    return result.output
