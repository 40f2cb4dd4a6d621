"""``hearts validate``: check that a bot plays by the protocol before it plays on a ladder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ladder.cli.common import (
    _CLOCK_OPTIONS,
    _SANDBOX_OPTION,
    _STARTUP_TIMEOUT_OPTION,
    _parse_rules,
    console,
    engine_note,
)
from referee.rules import Rules
from referee.untrusted import inert


@click.command("validate")
@click.argument("address", required=False)
@click.option(
    "--command",
    "command",
    metavar="CMD",
    help="Start the bot with CMD as a tournament does ({port} is a free port), validate it, stop it, e.g. "
    '"python my_bot.py --port {port}". Instead of ADDRESS.',
)
@click.option(
    "--rules",
    "rulesets",
    multiple=True,
    metavar="RULES",
    help="A ruleset to check, PRESET[,option=value...] (repeat for more). Default: every ruleset the "
    "bot's handshake claims.",
)
@_CLOCK_OPTIONS[0]
@_CLOCK_OPTIONS[1]
@_CLOCK_OPTIONS[2]
@_STARTUP_TIMEOUT_OPTION
@_SANDBOX_OPTION
@click.option("--verbose", "-v", is_flag=True, help="One row per check: every passing position too.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of the table.")
@click.pass_context
def validate_command(
    ctx: click.Context,
    address: str | None,
    command: str | None,
    rulesets: tuple[str, ...],
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    startup_timeout: float,
    sandbox: str,
    verbose: bool,
    as_json: bool,
) -> None:
    """Check that the bot at ADDRESS (HOST:PORT, or an SDK bot class PKG.MOD:CLASS served here on the
    SDK's own server), or started by --command, plays by the protocol:
    health, reflection, the handshake, a legal answer on every edge-case position of each ruleset
    it claims, statelessness, concurrency, cancelled calls, one complete match and its latency.
    Exit status 0 when no check fails (warnings are fine), 1 when one does.

    \b
    Examples:
      hearts validate localhost:50051
      hearts validate --command "python my_bot.py --port {port}" --rules standard
      hearts validate my_bot:MyBot
      hearts validate --command "python my_bot.py --port {port}" --sandbox
    """
    engine_note()
    import asyncio
    import json

    from ladder.bots.inprocess import BotModuleError, is_module_spec
    from ladder.bots.launcher import BotStartError
    from ladder.conformance.render import render
    from ladder.conformance.report import Check
    from ladder.sandbox import SandboxUnavailable

    if (address is None) == (command is None):
        raise click.UsageError(
            "give the bot's ADDRESS (HOST:PORT), its class (PKG.MOD:CLASS, e.g. my_bot:MyBot) or --command CMD "
            "(one of them)"
        )
    if address is not None and not is_module_spec(address):
        host, colon, port = address.rpartition(":")
        if not address.startswith("unix:") and (not colon or not host or not port.isdigit()):
            hint = f", nor PKG.MOD:CLASS (e.g. {address.removesuffix('.py')}:MyBot)" if address.endswith(".py") else ""
            raise click.BadParameter(f"{address!r} is not HOST:PORT (e.g. localhost:50051){hint}", param_hint="ADDRESS")
    if sandbox != "off" and command is None:
        raise click.UsageError(
            "--sandbox runs a bot that hearts validate starts: give --command CMD (a bot at an address runs "
            "wherever it runs; a class PKG.MOD:CLASS would share this process)"
        )
    rules = [_parse_rules(text, "--rules") for text in rulesets]
    shown = console.is_terminal and not as_json
    status = console.status("validating") if shown else None

    def on_check(check: Check) -> None:
        if status is not None:
            status.update(f"validating: {inert(check.name)}")

    try:
        if status is not None:
            status.start()
        report = asyncio.run(
            _validated(address, command, rules, budget_ms, bank_ms, grace_ms, startup_timeout, on_check, sandbox)
        )
    except (BotStartError, BotModuleError, SandboxUnavailable) as e:
        raise click.ClickException(str(e)) from None
    finally:
        if status is not None:
            status.stop()
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=True))
    else:
        console.print(render(report, verbose=verbose))
        if (command is not None or address is not None and is_module_spec(address)) and not report.ok:
            console.print(f"the bot's own output is in {VALIDATE_LOGS / 'validate.log'}", soft_wrap=True)
    if not report.ok:
        ctx.exit(1)


VALIDATE_LOGS = Path("logs")
"""Where a bot started by hearts validate --command logs (validate.log), as a tournament's bots do."""


async def _validated(
    address: str | None,
    command: str | None,
    rules: list[Rules],
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    startup_timeout: float,
    on_check: Callable[[Any], None],
    sandbox: str = "off",
) -> Any:
    """The validation of the bot at ``address`` (an SDK bot class is served here on port 0 by the SDK's
    own server), or of the bot ``command`` starts (stopped after)."""
    from ladder.bots.inprocess import BotModule, is_module_spec
    from ladder.bots.launcher import Launcher
    from ladder.conformance.validate import validate
    from ladder.sandbox import Isolation

    if address is not None and is_module_spec(address):
        import logging

        from clients.sdk import BotServer
        from clients.sdk import log as sdk_log
        from ladder.bots.inprocess import print_to

        bot = BotModule.parse(address).load()
        VALIDATE_LOGS.mkdir(parents=True, exist_ok=True)
        with open(VALIDATE_LOGS / "validate.log", "a", buffering=1, encoding="utf-8", errors="replace") as log:
            # The bot's prints and its server's tracebacks go to the log, as a started bot's do: the
            # screen (and --json) keep the report alone.
            handler = logging.StreamHandler(log)
            sdk_log.addHandler(handler)
            sdk_log.propagate = False
            try:
                async with BotServer(bot, port=0) as server:
                    print_to(log, server.servicer.methods)
                    return await validate(
                        server.address,
                        rules=rules,
                        budget_ms=budget_ms,
                        bank_ms=bank_ms,
                        grace_ms=grace_ms,
                        on_check=on_check,
                        isolation=Isolation("in-process"),  # served by the SDK's server in this process
                    )
            finally:
                sdk_log.removeHandler(handler)
                sdk_log.propagate = True
    if command is None:
        assert address is not None
        return await validate(
            address,
            rules=rules,
            budget_ms=budget_ms,
            bank_ms=bank_ms,
            grace_ms=grace_ms,
            on_check=on_check,
            isolation=Isolation("remote"),
            startup_timeout=startup_timeout,
        )
    from ladder.sandbox import SandboxMode

    async with Launcher(VALIDATE_LOGS, startup_timeout=startup_timeout, sandbox=SandboxMode(sandbox)) as launcher:
        started = await launcher.start("validate", command)

        async def diagnose() -> str | None:  # a limit the sandbox stopped the bot at: resource_limit
            return await launcher.diagnose("validate", started)

        async def vouch() -> str | None:  # another process serving its address: impersonation
            return await launcher.vouch("validate", started)

        return await validate(
            started,
            rules=rules,
            budget_ms=budget_ms,
            bank_ms=bank_ms,
            grace_ms=grace_ms,
            on_check=on_check,
            command=command,
            diagnose=diagnose,
            vouch=vouch,
            isolation=launcher.isolation("validate"),
        )
