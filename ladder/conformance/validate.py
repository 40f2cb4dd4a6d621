"""``hearts validate``: does a bot conform? A suite of checks, run against a bot's address.

``await validate(address)`` returns a ``Report``: each ``Check`` with its outcome (pass, warn,
fail, or skip for what could not run), a one-line detail, and for a bad answer the evidence: the
request sent (a line of text, and in full as the proto3 JSON of the message), what came back,
the fault kind the referee would record and the rule sentence the position exercises. The bot
passes when no check fails (a warning is fine). ``Report.to_dict()`` is the JSON of
``hearts validate --json`` (schema ``hearts-arena/validate``, ``version`` 1).

The checks, in order: the health service reports SERVING (a bot still starting waited for, up to
the startup timeout, as the launcher waits); server reflection (a warning without it, a failure when
it lists the service but cannot resolve it as grpcurl does); the handshake and its fields; for
every ruleset the bot claims (or those asked for), each position of ``ladder.conformance.positions`` that the
ruleset can ask, one request each; statelessness (one
view asked twice, the views of two matches interleaved); the concurrency the handshake claims
(that many requests at once); calls cancelled mid-flight do not break the next one; one complete
short match against stand-ins; the latency of every decision against the budget.

Every call goes through the referee's own ``GrpcSeat``, and every answer is judged by the
referee's own code (``referee.match.DECISIONS``: the decoding, then the engine's check as the
answer is applied), so a timeout, an unreachable bot, an error status, a malformed or oversized
reply and each illegal answer are classified exactly as a match records them: a bot that passes
validate plays its matches without faults on these positions. A validation keeps one clock, as
a match does (``budget + bank left + grace`` a decision). A bot that cannot be reached is asked
nothing more (a match forfeits it at once), nor one that timed out three times (a match forfeits
it after three faults): the checks left are reported as one skipped row.

This module runs the checks in that order. Those of the gRPC service (health, reflection, handshake)
are in ``service``, those on play in ``checks``; ``session`` asks and judges each request, ``report``
holds what was found, ``render`` shows it in a terminal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT
from ladder.conformance.checks import (
    ask_positions,
    cancellation,
    complete_match,
    concurrency,
    latency_check,
    rulesets,
    statelessness,
)
from ladder.conformance.report import Check, Latency, Outcome, Report
from ladder.conformance.service import handshake, health, reflection
from ladder.conformance.session import Guise, Session, Stop
from ladder.sandbox import Isolation
from referee.match import MatchSettings
from referee.record import utc_now
from referee.rules import Rules


async def validate(
    address: str,
    *,
    rules: Sequence[Rules] | None = None,
    budget_ms: float = 1000.0,
    bank_ms: float = 10000.0,
    grace_ms: float = 50.0,
    match: bool = True,
    command: str | None = None,
    on_check: Callable[[Check], None] | None = None,
    diagnose: Callable[[], Awaitable[str | None]] | None = None,
    vouch: Callable[[], Awaitable[str | None]] | None = None,
    isolation: Isolation | None = None,
    guise: Guise | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
) -> Report:
    """Validate the bot served at ``address``: every check, in order; ``on_check`` sees each as it
    is made. ``rules``: the rulesets to check (default: every one the handshake claims). The time
    control is a match's (``MatchSettings``): each decision may take ``budget + bank left + grace``.
    ``match``: play the complete short match too. ``command`` is only recorded in the report.
    ``diagnose`` says why an unreachable bot is gone when its sandbox knows (a limit it hit: a
    ``resource_limit`` fault), as a match's seat asks its launcher; ``vouch`` what its launcher saw
    serving the address when that was not the bot it started (an ``impersonation`` fault).
    ``isolation``: what guards the bot, from whoever started it (its launcher), kept in the report
    and in its match's record. ``guise``: what the bot is told, to look like a tournament's matches
    (``Guise``). ``startup_timeout``: how long a bot that is still starting may take to report
    SERVING, as the launcher allows. Never raises for anything the bot does."""
    settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms)
    s = Session(address, settings, on_check, diagnose, vouch, isolation, guise=guise, startup_s=startup_timeout)
    started = utc_now()
    checked: list[Rules] = []
    try:
        await health(s)
        if guise is None:
            await reflection(s)
        else:
            s.add(Check("reflection", "reflection", Outcome.SKIP, "not asked: no match asks it"))
        bot = await handshake(s)
        checked = rulesets(s, bot, rules)
        for i, r in enumerate(checked):
            await ask_positions(s, r, i)
        await statelessness(s, checked[0])
        await concurrency(s, checked[0], bot)
        await cancellation(s, checked[0])
        if match:
            await complete_match(s, checked[0])
    except Stop as stop:
        s.checks.append(Check("stopped", "the checks left", Outcome.SKIP, str(stop)))
    finally:
        await s.seat.close()
    s.checks.append(latency_check(s))
    if on_check is not None:
        on_check(s.checks[-1])
    return Report(
        address=address,
        command=command,
        bot=s.bot,
        rules=tuple(str(r) for r in checked),
        budget_ms=budget_ms,
        bank_ms=bank_ms,
        grace_ms=grace_ms,
        checks=tuple(s.checks),
        latency=Latency.of(s.latencies),
        started_at=started,
        finished_at=utc_now(),
        isolation=isolation,
    )
