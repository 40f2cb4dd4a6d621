"""The checks on play: the rulesets checked, each edge-case position, statelessness, concurrency, calls
cancelled mid-flight, a complete match against stand-ins, and the latency of every decision."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hearts.v1 import codec
from ladder.conformance.positions import Position, play_positions, positions
from ladder.conformance.report import BotInfo, Check, Latency, Outcome
from ladder.conformance.session import Session, asked_check, shown
from referee.match import DECISIONS, NAME_LIMIT, Clock, MatchSettings, play_match
from referee.record import FaultKind
from referee.report import latencies
from referee.rules import PRESETS, Match, MoonChoice, Observation, Phase, Rules, SeededRandom
from referee.seats import Ask, InProcessSeat, Seat

UNLIMITED_CONCURRENCY = 8  # requests sent at once to a bot that declares no limit (0)
MAX_CONCURRENCY = 32  # the most requests sent at once, whatever a bot declares
CANCEL_AFTER_MS = (0.0, 1.0, 3.0)  # when each cancelled call is cancelled, after it was sent
SHORT_TARGET = 26  # the target of the complete match: a hand or a few
MATCH_SEED = 1
CLOSE = 0.5  # a p99 above this share of the budget is close to it (a warning)

VARIANTS: tuple[tuple[str, ...], ...] = (
    ("standard,players=3",),
    ("standard,players=5,pass_cycle=five-player", "standard,players=5"),
    ("standard,pass_cycle=scatter mix call",),
    ("standard,pass_on=true",),
    ("standard,kitty=first-trick,hand_size=12,kitty_discard=true",),
    ("standard,moon=shooter-chooses",),
    ("standard,queen_at_first_safe_chance=true",),
    ("standard,first_lead=left-of-dealer",),
    ("standard,turbo_charging=true,turbo_charges=any,charged_singleton=may-slough",),
    ("cancellation,players=10,pass_cycle=left-right-hold",),
)
"""Rulesets beyond the presets that ask what the presets do not (3 and 5 players, every pass
direction, passing on, the kitty's discard, the moon's choice, several turbo-charges, other legal-move rules); each is
checked when the bot claims it. Among alternatives, the first the bot claims."""


def rulesets(s: Session, bot: BotInfo | None, asked: Sequence[Rules] | None) -> list[Rules]:
    """The rules asked for, else every preset and variant the handshake claims (all without one)."""
    if asked:
        for rules in asked:
            if bot is not None and not bot.claims(rules):
                s.add(
                    Check(
                        "claims",
                        "claims the rules",
                        Outcome.WARN,
                        "the handshake does not claim these rules (its presets and options): checked as asked",
                        str(rules),
                    )
                )
        return list(dict.fromkeys(asked))
    claimed = bot or BotInfo("", "", "", "", codec.PROTOCOL_VERSION, (), (), 0, False)
    out = [rules for rules in PRESETS.values() if claimed.claims(rules)]
    for alternatives in VARIANTS:
        for text in alternatives:
            rules = Rules.parse(text)
            if claimed.claims(rules):
                out.append(rules)
                break
    if not out:
        s.add(
            Check(
                "claims",
                "claims the rules",
                Outcome.WARN,
                f"the handshake claims no ruleset this harness plays (presets {list(claimed.claimed_presets)}, "
                f"options {list(claimed.claimed_options)}): standard is checked; give --rules to check others",
            )
        )
        out.append(Rules())
    return out


async def ask_positions(s: Session, rules: Rules, index: int) -> None:
    """Each position of the catalogue these rules can build, one request each; those they cannot, one skipped row."""
    built, missing = positions(rules, s.seed(0))
    for n, position in enumerate(built):
        asked = await s.ask(position, f"validate-{index}-{n}")
        s.add(asked_check("position", position.name, position, asked, f"{shown(asked)}: legal"))
    if missing:
        s.add(
            Check(
                "position",
                "positions not built",
                Outcome.SKIP,
                "no such position under these rules (none dealt, or none in seeded play): "
                + "; ".join(name for name, _ in missing),
                str(rules),
            )
        )


async def statelessness(s: Session, rules: Rules) -> None:
    """One view asked twice; then two matches' decisions interleaved, each answered from its own view."""
    built, _ = positions(rules, s.seed(0))
    plays = [p for p in built if p.phase is Phase.PLAY and len(p.observation().legal) > 1] or built
    if not plays:
        s.add(Check("stateless", "the same view twice", Outcome.SKIP, "no position under these rules", str(rules)))
        return
    position = plays[0]
    first = await s.ask(position, "validate-same")
    second = await s.ask(position, "validate-same") if first.fault is None else first
    bad = first if first.fault is not None else second
    detail = f"{shown(first)} then {shown(second)}"
    if first.fault is None and second.fault is None and shown(first) != shown(second):
        detail += " (different answers: fine for a bot that draws at random)"
    s.add(asked_check("stateless", "the same view twice", position, bad, detail + ": both legal"))

    tables = [Match(rules, s.seed(101)), Match(rules, s.seed(102))]
    ids = ["validate-interleaved-a", "validate-interleaved-b"]
    asked_count = 0
    for _ in range(20):
        for m, match_id in zip(tables, ids):
            if m.over:
                continue
            seat = m.to_move[0]
            position = Position("two matches interleaved", rules, m, seat)
            asked = await s.ask(position, match_id)
            asked_count += 1
            if asked.fault is not None:
                s.add(asked_check("stateless", "two matches interleaved", position, asked, ""))
                return
            asked.decision.apply(m, seat, asked.value)  # the bot's own answer moves its match on
    s.add(
        Check(
            "stateless",
            "two matches interleaved",
            Outcome.PASS,
            f"{asked_count} decisions of two matches, asked in turn: all legal",
            str(rules),
        )
    )


async def concurrency(s: Session, rules: Rules, bot: BotInfo | None) -> None:
    """As many requests at once as the handshake claims to serve, each of another match: all answered
    legally within budget + grace (the deadline once a bot's bank is spent)."""
    declared = bot.max_concurrent_games if bot is not None else 0
    n = min(declared or UNLIMITED_CONCURRENCY, MAX_CONCURRENCY)
    plays = play_positions(rules, n, s.seed(0))
    settings = s.settings
    clocks = [Clock(MatchSettings(settings.budget_ms, 0.0, settings.grace_ms)) for _ in plays]
    asked = await asyncio.gather(
        *(s.ask(p, f"validate-many-{i}", clock=c) for i, (p, c) in enumerate(zip(plays, clocks)))
    )
    why = "as many as its handshake's max_concurrent_games" if declared else f"{n}: it declares no limit"
    slowest = max(a.latency_ms for a in asked)
    for position, a in zip(plays, asked):
        if a.fault is not None:
            late = sum(1 for x in asked if x.fault is not None and x.fault.kind is FaultKind.TIMEOUT)
            check = asked_check("concurrency", f"{n} requests at once", position, a, "")
            if late:
                hint = f"{late} of {n} requests at once were not answered within the budget: " + (
                    f"declare max_concurrent_games = {max(1, n - late)} or fewer"
                    if declared
                    else "declare max_concurrent_games (1 for a bot that answers one request at a time)"
                )
                check = replace(check, detail=hint)
            s.add(check)
            return
    s.add(
        Check(
            "concurrency",
            f"{n} requests at once",
            Outcome.PASS,
            f"{n} plays of {n} matches at once ({why}): all legal within the budget, the slowest in {slowest:.1f} ms",
            str(rules),
        )
    )


async def cancellation(s: Session, rules: Rules) -> None:
    """Calls cancelled by the referee's side mid-flight (a match cancelled, a tournament stopped) must not
    break the bot: the next call is answered legally."""
    plays = play_positions(rules, len(CANCEL_AFTER_MS) + 1, s.seed(0))
    answered_first = 0
    for i, (position, after_ms) in enumerate(zip(plays, CANCEL_AFTER_MS)):
        decision = DECISIONS[position.phase]
        obs = position.observation()
        match_id, names = s.table(f"validate-cancel-{i}", rules.players, position.seat)
        ask = Ask(obs, codec.ViewEncoder(match_id, names, s.budget_ms), 0, decision.rest(obs))
        task = asyncio.ensure_future(getattr(s.seat, decision.method)(ask, s.clock.deadline()))
        await asyncio.sleep(after_ms / 1000)
        if task.done():
            answered_first += 1
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    position = plays[-1]
    asked = await s.ask(position, "validate-after-cancel")
    cancelled = len(CANCEL_AFTER_MS) - answered_first
    when = ", ".join(f"{ms:g}" for ms in CANCEL_AFTER_MS)
    s.add(
        asked_check(
            "cancel",
            "cancelled calls, then the next",
            position,
            asked,
            f"{len(CANCEL_AFTER_MS)} calls cancelled {when} ms after they were sent ({cancelled} before their "
            f"answer came); the next answered {shown(asked)}: legal",
        )
    )


class _StandIn:
    """The other seats of the complete match: the lowest legal card, the first cards of the hand."""

    def pass_cards(self, obs: Observation) -> Sequence[Any]:
        return obs.hand.cards[: obs.rules.pass_count]

    def play_card(self, obs: Observation) -> Any:
        return obs.legal.cards[0]

    def discard_cards(self, obs: Observation) -> Sequence[Any]:
        return obs.hand.cards[: len(obs.kitty)]

    def call_pass(self, obs: Observation) -> str:
        return "left"

    def charge_cards(self, obs: Observation) -> Sequence[Any]:
        return ()

    def choose_moon(self, obs: Observation) -> MoonChoice:
        return MoonChoice.ADD_TO_OTHERS


def _short(rules: Rules) -> Rules:
    try:
        return rules.replace(target=min(rules.target, SHORT_TARGET))
    except ValueError:  # a target the other options need (an exact-target reset): the full match
        return rules


async def complete_match(s: Session, rules: Rules) -> None:
    """A real match (``referee.match.play_match``): the bot in seat 0, stand-ins in the others, as a
    tournament seats it (one seat, one request at a time); zero faults expected. Under a guise, the
    whole match of the rules, the bot in a seat its seed draws, every seat named as ``table`` names it."""
    short = _short(rules) if s.guise is None else rules
    n = short.players
    seed = s.seed(MATCH_SEED)
    k = 0 if s.guise is None else SeededRandom(seed, "seat").below(n)
    name = (s.bot.name if s.bot is not None else "") or "bot"
    seats: list[Seat] = [InProcessSeat(_StandIn(), f"stand-in {i}") for i in range(n)]
    seats[k] = s.seat
    names = [f"stand-in-{i}" for i in range(n)]
    names[k] = name[:NAME_LIMIT]
    match_id = None
    if s.guise is not None:
        match_id, names = s.table("validate-match", n, k)
    record = await play_match(seats, short, seed, settings=s.settings, match_id=match_id, names=names)
    s.latencies.extend(latencies(record, k))
    faults = [f for f in record.faults if f.seat == k]
    notes = [x for x in record.notes if x.seat == k]
    me = record.seats[k]
    where = f"{len(record.hands)} hands of {short} (seed {seed}), the bot in seat {k} against {n - 1} stand-ins"
    if not faults:
        noted = "".join(f"; noted: {n.detail}" for n in notes)
        outcome = Outcome.WARN if notes else Outcome.PASS
        s.add(Check("match", "a complete match", outcome, f"{where}: no faults; place {me.place}{noted}", str(short)))
        return
    first = faults[0]
    kinds = ", ".join(dict.fromkeys(f.kind.value for f in faults))
    at = (
        f"hand {first.hand}" + (f" trick {first.trick}" if first.trick is not None else "")
        if first.hand is not None
        else "the handshake"
    )
    forfeit = "; it forfeited" if me.forfeit else ""
    s.add(
        Check(
            "match",
            "a complete match",
            Outcome.FAIL,
            f"{where}: {len(faults)} faults ({kinds}){forfeit}; the first at {at}: {first.detail}",
            str(short),
            fault=first.kind,
            request=first.sent,
            received=first.received,
        )
    )


def latency_check(s: Session) -> Check:
    """The latency of every decision answered against the budget: a p99 over ``budget + grace`` fails (the
    bank drains, then a decision times out), a slowest over it or a p99 close to the budget warns."""
    lat = Latency.of(s.latencies)
    budget, grace = s.settings.budget_ms, s.settings.grace_ms
    if lat.decisions == 0 or lat.p50_ms is None or lat.p99_ms is None or lat.max_ms is None:
        return Check("latency", "latency", Outcome.SKIP, "no decision was answered")
    figures = (
        f"p50 {lat.p50_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms, max {lat.max_ms:.1f} ms over {lat.decisions} decisions; "
        f"budget {budget:g} ms"
    )
    if lat.p99_ms > budget + grace:
        return Check(
            "latency",
            "latency",
            Outcome.FAIL,
            f"{figures}: more than 1 in 100 decisions over the budget drains the time bank, then times out",
            fault=FaultKind.TIMEOUT,
        )
    if lat.max_ms > budget + grace:
        return Check("latency", "latency", Outcome.WARN, f"{figures}: the slowest drew on the time bank")
    if lat.p99_ms > CLOSE * budget:
        return Check("latency", "latency", Outcome.WARN, f"{figures}: close to the budget")
    return Check("latency", "latency", Outcome.PASS, figures)
