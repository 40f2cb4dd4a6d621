"""A validation report for a terminal: who was checked, a table of the checks, each failure with its
evidence, the verdict. Every string the bot controls is shown inert."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ladder.conformance.report import Outcome, Report
from referee.match import NAME_LIMIT
from referee.untrusted import inert, inert_text

_STYLES = {Outcome.PASS: "green", Outcome.WARN: "yellow", Outcome.FAIL: "bold red", Outcome.SKIP: "dim"}
FAILURES_SHOWN = 10
"""Failures shown with their evidence under the table (the JSON report holds every one)."""


def render(report: Report, *, verbose: bool = False) -> RenderableType:
    """The report for a terminal: who was checked, a table of the checks (the passing positions of a
    ruleset on one row unless ``verbose``), each failure with its evidence, and the verdict. Every
    string the bot controls, and every detail, is shown inert."""
    head = Text("validated ")
    bot = report.bot
    if bot is not None:
        head.append(inert(bot.name or "(no name)", NAME_LIMIT), style="bold")
        extra = " ".join(inert(x, 40) for x in (bot.version, f"({bot.language})" if bot.language else "") if x)
        head.append(f" {extra}" if extra else "")
        if bot.author:
            head.append(f" by {inert(bot.author, 60)}")
    else:
        head.append("a bot that gave no handshake", style="bold")
    head.append(f" at {inert(report.address)}")
    if report.command is not None:
        head.append(f", started by {inert(report.command)}")
    if report.isolation is not None:
        head.append(f"; {report.isolation.label}")
    parts: list[RenderableType] = [head]
    table = Table(title_justify="left", expand=True)
    table.add_column("check", ratio=2, overflow="fold")
    table.add_column("result", no_wrap=True)
    table.add_column("detail", ratio=3)
    for name, rules, outcome, detail in _rows(report, verbose):
        check = inert_text(name)
        if rules:
            check.append(f" {inert(rules)}", style="dim")
        table.add_row(check, Text(outcome.value, style=_STYLES[outcome]), detail)
    parts.append(table)
    if _has_summed_positions(report) and not verbose:
        parts.append(Text("positions: the rule sources' edge cases, one request each; --verbose shows one row each"))
    failures = report.failures()
    if failures:
        parts.append(Text("Failures", style="bold"))
        for i, c in enumerate(failures[:FAILURES_SHOWN], 1):
            title = Text(f"{i:>2}. ")
            title.append(inert(c.name), style="bold")
            if c.rules:
                title.append(f" ({inert(c.rules)})")
            if c.fault is not None:
                title.append(f": {c.fault.value}", style="red")
            parts.append(title)
            for label, value in (
                ("detail", c.detail),
                ("sent", c.request),
                ("received", c.received),
                ("rule", c.cites),
            ):
                if value:
                    parts.append(Text(f"    {label + ':':<10}{inert(value, 600)}"))
        if len(failures) > FAILURES_SHOWN:
            parts.append(Text(f"    ... and {len(failures) - FAILURES_SHOWN} more (--json holds every one)"))
    counts = report.counts()
    verdict = Text("OK" if report.ok else "FAILED", style="bold green" if report.ok else "bold red")
    verdict.append(
        f": {counts['fail']} failed, {counts['warn']} warnings, {counts['pass']} passed, {counts['skip']} skipped",
        style="",
    )
    parts.append(verdict)
    return Group(*parts)


def _has_summed_positions(report: Report) -> bool:
    return any(c.kind == "position" and c.outcome is Outcome.PASS for c in report.checks)


def _rows(report: Report, verbose: bool) -> list[tuple[str, str | None, Outcome, Text]]:
    """The table's rows: a ruleset's passing positions summed up on one row, where the first stood."""
    rows: list[tuple[str, str | None, Outcome, Text]] = []
    summed: dict[str | None, int] = {}
    counts: dict[str | None, int] = {}
    for c in report.checks:
        if not verbose and c.kind == "position" and c.outcome is Outcome.PASS:
            counts[c.rules] = counts.get(c.rules, 0) + 1
            if c.rules not in summed:
                summed[c.rules] = len(rows)
                rows.append(("positions", c.rules, Outcome.PASS, Text()))
            continue
        rows.append((c.name, c.rules, c.outcome, inert_text(c.detail)))
    for rules, at in summed.items():
        n = counts[rules]
        rows[at] = ("positions", rules, Outcome.PASS, Text(f"{n} answered legally"))
    return rows
