"""``hearts submit``: a new version of a participant's bot, sent to an arena, and its report."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from ladder.cli.common import _fail, console
from referee.untrusted import inert


@click.command("submit")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--arena", "url", required=True, help="The arena's URL, e.g. http://127.0.0.1:8765.")
@click.option("--token", envvar="HEARTS_TOKEN", required=True, help="Your token (or HEARTS_TOKEN in the environment).")
@click.option("--bot", "bot_name", required=True, help="Your bot's name in the arena (made on its first submission).")
@click.option("--address", default=None, help="HOST:PORT of a bot you host yourself, instead of PATH.")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the validation and print the report.")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds to wait for the report.")
@click.option("--json", "as_json", is_flag=True, help="Print the version and its reports as JSON.")
def submit(
    path: Path | None,
    url: str,
    token: str,
    bot_name: str,
    address: str | None,
    wait: bool,
    timeout: float,
    as_json: bool,
) -> None:
    """Submit PATH (a directory or a .zip with bot.toml) as a new version of your bot, or --address.

    \b
    bot.toml, at the top of the directory:
      command = "python bot.py --port {port}"   # starts the bot; {port} is filled in
      build = "pip install -r requirements.txt --target deps"   # optional, run once
      language = "python"
    The arena builds it, validates it (hearts validate) and, if it passes, plays it on the ladder.
    Exit status: 0 when the version is valid, 1 when it failed (the report says why), 2 on usage errors.
    """
    import httpx

    from ladder.arena.store import VersionStatus
    from ladder.arena.submissions import ArchiveError, zip_directory

    if (path is None) == (address is None):
        _fail("give PATH (a directory or .zip) or --address HOST:PORT", 2)
    headers = {"Authorization": f"Bearer {token}"}
    endpoint = f"{url.rstrip('/')}/api/bots/{bot_name}/versions"
    try:
        if address is not None:
            r = httpx.post(endpoint, json={"address": address}, headers=headers, timeout=60)
        else:
            assert path is not None
            data = zip_directory(path) if path.is_dir() else path.read_bytes()
            r = httpx.post(endpoint, content=data, headers={**headers, "Content-Type": "application/zip"}, timeout=60)
    except ArchiveError as e:
        _fail(str(e))
    except httpx.HTTPError as e:
        _fail(f"cannot reach the arena at {url}: {e}")
    if r.status_code >= 400:
        _fail(f"the arena refused the submission ({r.status_code}): {_error(r)}")
    v = r.json()
    if not as_json:
        console.print(
            f"submitted {inert(v['bot'])} version {v['number']} ({v['status']})", highlight=False, markup=False
        )
    if not wait:
        if as_json:
            click.echo(json.dumps(_with_schema(v), indent=2))
        return
    deadline = time.monotonic() + timeout
    shown = v["status"]
    while v["status"] not in (VersionStatus.VALID, VersionStatus.FAILED):
        if time.monotonic() > deadline:
            _fail(f"no verdict after {timeout:g} s (status {v['status']}); `--no-wait` and ask the API later")
        time.sleep(1.0)
        try:
            r = httpx.get(f"{endpoint}/{v['number']}", headers=headers, timeout=30)
        except httpx.HTTPError as e:
            _fail(f"cannot reach the arena at {url}: {e}")
        if r.status_code >= 400:
            _fail(f"the arena answered {r.status_code}: {_error(r)}")
        v = r.json()
        if v["status"] != shown and not as_json:
            console.print(f"  {v['status']}", highlight=False, markup=False)
            shown = v["status"]
    if as_json:
        click.echo(json.dumps(_with_schema(v), indent=2))
    else:
        _print_report(v)
    sys.exit(0 if v["status"] == VersionStatus.VALID else 1)


SUBMISSION_SCHEMA = "hearts-arena/submission"
SUBMISSION_VERSION = 1  # bump on any change a reader of the last version would misread; adding a field is one too


def _with_schema(v: dict[str, Any]) -> dict[str, Any]:
    """The version as the API gave it, ``schema`` and ``version`` (of this output's shape) first."""
    return {"schema": SUBMISSION_SCHEMA, "version": SUBMISSION_VERSION, **v}


def _error(r: Any) -> str:
    try:
        return str(r.json().get("error", r.text))
    except ValueError:
        return str(r.text[:500])


def _print_report(v: dict[str, Any]) -> None:
    from ladder.arena.store import VersionStatus

    build = v.get("build_report")
    if build is not None and not build.get("ok"):
        console.print("[red]the build failed[/]", highlight=False)
        console.print(inert(build.get("error") or f"exit code {build.get('exit_code')}"), highlight=False, markup=False)
        console.print(inert(build.get("output") or "", limit=8000, multiline=True), highlight=False, markup=False)
    report = v.get("validation_report")
    if report is not None and "checks" in report:
        from ladder.conformance.render import render
        from ladder.conformance.report import Report

        console.print(render(Report.from_dict(report)))
    elif report is not None:
        console.print(inert(report.get("error", ""), limit=4000, multiline=True), highlight=False, markup=False)
        if report.get("log"):
            console.print(inert(report["log"], limit=4000, multiline=True), highlight=False, markup=False)
    verdict = (
        "[green]valid: it plays on the ladder[/]"
        if v["status"] == VersionStatus.VALID
        else "[red]refused: it never plays[/]"
    )
    console.print(verdict)
