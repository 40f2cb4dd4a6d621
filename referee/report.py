"""Readable views of a match record (rich renderables): the summary after a match, and a replay.

The replay re-plays the record through the engine, so what it prints is checked: a record whose
plays break the rules raises ``IllegalPlayError`` instead of printing a story that never happened.
``replay_hands`` is that replay as data (each card, each trick's winner, the tricks taken), which
the web site's replay draws.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from referee.record import ForfeitReason, MatchRecord, SeatRecord
from referee.rules import Card, Match, MoonChoice, Phase, Rules, Trick, cards_of
from referee.rules.state import charged_points
from referee.settings import ms_text
from referee.untrusted import inert, inert_text

NAME_LIMIT = 40
"""Characters of a bot's name shown (a name may come from the bot's own handshake)."""


def _names(record: MatchRecord) -> list[str]:
    """The seats' bot names, inert: safe inside a ``Text``, and as table cells through ``Text``."""
    return [inert(s.bot, NAME_LIMIT) for s in record.seats]


def _sym(card: str) -> str:
    return Card.parse(card).symbol


def _cards(cards: Sequence[str]) -> str:
    return " ".join(_sym(c) for c in cards)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def latencies(record: MatchRecord, seat: int) -> list[float]:
    """Every decision latency of one seat, in ms (passes, plays, discards and moon choices)."""
    out = [p.latency_ms for p in record.plays if p.seat == seat and p.latency_ms is not None]
    for h in record.hands:
        out += [p.latency_ms for p in h.passes if p.seat == seat and p.latency_ms is not None]
        out += [c.latency_ms for c in h.charges if c.seat == seat and c.latency_ms is not None]
        shooter = h.moon if h.moon is not None else h.sun  # the engine sets moon=None for a sun
        if shooter == seat and h.moon_choice_latency_ms is not None:
            out.append(h.moon_choice_latency_ms)
        if h.discard_seat == seat and h.discard_latency_ms is not None:
            out.append(h.discard_latency_ms)
        if h.pass_call is not None and h.dealer == seat and h.pass_call_latency_ms is not None:
            out.append(h.pass_call_latency_ms)
    return out


def _person(record: MatchRecord, seat: int) -> str:
    """ " (a person)" after the name of a seat a person sat in (hearts play); else nothing."""
    return " (a person)" if record.seats[seat].kind == "human" else ""


def _forfeit_text(seat: SeatRecord) -> str:
    if seat.forfeit_reason == ForfeitReason.FAULTS:
        return f"{seat.faults} faults"
    return str(ForfeitReason(seat.forfeit_reason).value) if seat.forfeit_reason else "forfeit"


UNKNOWN_ISOLATION = "isolation unknown (not recorded)"
"""What a seat recorded without its isolation shows (a match stored before the store kept it)."""


def isolation_text(seat: SeatRecord) -> str:
    """What guarded the seat's bot, for a person: its isolation's label, or that it is unknown."""
    return seat.isolation.label if seat.isolation is not None else UNKNOWN_ISOLATION


def clock_text(seat: SeatRecord) -> str:
    """The clock the seat played under, for a person (``clock: budget 200 ms, bank 1000 ms, grace 50 ms``);
    empty where the record has none (a match stored before the store kept it)."""
    if seat.budget_ms is None or seat.bank_ms is None or seat.grace_ms is None:
        return ""
    budget, bank, grace = (ms_text(v) for v in (seat.budget_ms, seat.bank_ms, seat.grace_ms))
    return f"clock: budget {budget} ms, bank {bank} ms, grace {grace} ms"


def _teams_text(rules: Rules, names: Sequence[str]) -> str:
    """Under partnership, who plays with whom: '  teams: a & c against b & d'; else empty."""
    if rules.partnership == "none":
        return ""
    return f"  teams ({rules.partnership}): {names[0]} & {names[2]} against {names[1]} & {names[3]}"


def _team_totals_text(rules: Rules, names: Sequence[str], totals: Sequence[int]) -> str:
    t = rules.team_totals(totals)
    return f"{names[0]} & {names[2]} {t[0]}, {names[1]} & {names[3]} {t[1]}"


def summary(record: MatchRecord) -> RenderableType:
    """Scores by hand, the final standing with latencies, the faults and the notes (with partners, the
    teams too)."""
    rules = Rules.from_dict(record.rules)
    names = _names(record)
    teams = rules.partnership != "none"
    title = (
        f"Match {record.match_id}  rules {rules}  seed {record.seed}  "
        f"winner {', '.join(names[w] for w in record.winners) or 'none'}" + _teams_text(rules, names)
    )
    by_hand = Table(title="Scores by hand", title_justify="left")
    by_hand.add_column("hand", justify="right")
    by_hand.add_column("pass")
    for n in names:
        by_hand.add_column(Text(n), justify="right")
    if teams:
        by_hand.add_column("teams (0 & 2 : 1 & 3)", justify="right")
    by_hand.add_column("")
    for h in record.hands:
        note = ""
        if h.moon is not None:
            note = f"{names[h.moon]} shot the moon" + (f" ({h.moon_choice})" if h.moon_choice else "")
        if h.sun is not None:
            note = f"{names[h.sun]} shot the sun" + (f" ({h.moon_choice})" if h.moon_choice else "")
        team_cell = [" : ".join(map(str, rules.team_totals(h.totals)))] if teams and h.totals else []
        by_hand.add_row(
            str(h.hand),
            h.pass_direction,
            *(f"{sc:+d} → {t}" for sc, t in zip(h.score, h.totals)),
            *team_cell,
            Text(note),
        )

    standing = Table(title="Result (latency of each bot's decisions, ms)", title_justify="left")
    columns: list[tuple[str, str]] = [("seat", "right"), ("bot", "left"), ("score", "right")]
    if teams:
        columns += [("team", "right"), ("team total", "right")]
    columns += [
        ("place", "right"),
        ("faults", "right"),
        ("forfeit", "left"),
        ("asked", "right"),
        ("p50", "right"),
        ("p95", "right"),
        ("max", "right"),
    ]
    for col, just in columns:
        standing.add_column(col, justify=just)  # type: ignore[arg-type]  # rich's Literal; the values are of it
    for s in record.seats:
        lat = latencies(record, s.seat)
        standing.add_row(
            str(s.seat),
            Text(names[s.seat] + _person(record, s.seat)),
            str(s.final_score),
            *(
                (str(s.team if s.team is not None else s.seat % 2), str(rules.team_totals(record.scores)[s.seat % 2]))
                if teams
                else ()
            ),
            str(s.place),
            str(s.faults),
            _forfeit_text(s) if s.forfeit else "",
            str(len(lat)),
            *(f"{percentile(lat, q):.1f}" if lat else "-" for q in (50, 95, 100)),
        )
    parts: list[RenderableType] = [Text(title, style="bold"), by_hand, standing]
    if record.faults:
        faults = Table(title=f"Faults ({len(record.faults)})", title_justify="left")
        for col in ("hand", "trick", "seat", "kind", "detail", "instead"):
            faults.add_column(col)
        for f in record.faults:
            # The detail quotes the bot (its status message, its reply): data, never markup.
            faults.add_row(
                "-" if f.hand is None else str(f.hand),
                "-" if f.trick is None else str(f.trick),
                Text(names[f.seat]),
                f.kind.value,
                inert_text(f.detail),
                inert_text(f.action),
            )
        parts.append(faults)
    if record.notes:
        notes = Table(title=f"Notes ({len(record.notes)}): no faults, worth knowing", title_justify="left")
        for col in ("hand", "seat", "kind", "detail"):
            notes.add_column(col)
        for entry in record.notes:
            notes.add_row(
                "-" if entry.hand is None else str(entry.hand),
                Text(names[entry.seat]),
                entry.kind.value,
                inert_text(entry.detail),
            )
        parts.append(notes)
    return Group(*parts)


@dataclass(frozen=True)
class ReplayedPlay:
    """One card of a record as the engine replayed it: the tricks each seat had taken before it, and
    the trick it completed (None while the trick goes on; a completed trick's winner None: it stays
    on the table, two packs)."""

    seat: int
    card: str
    taken: tuple[int, ...]
    trick: Trick | None


@dataclass(frozen=True)
class ReplayedHand:
    """One hand of a record as the engine replayed it: each card played, the tricks (with leader and
    winner), the kitty as it was when taken (a mix pass deals a new kitty: the record holds the one
    dealt) and the tricks each seat took, as the engine counts them (a trick without a winner counts
    for whoever takes its cards)."""

    hand: int
    plays: tuple[ReplayedPlay, ...]
    tricks: tuple[Trick, ...]
    kitty: tuple[str, ...]
    taken: tuple[int, ...]


def replay_hands(record: MatchRecord) -> Iterator[ReplayedHand]:
    """Re-play the record through the engine, hand by hand; a record that stops inside a hand (an
    aborted match) ends with that hand as far as it was played."""
    rules = Rules.from_dict(record.rules)
    m = Match(rules, record.seed)
    plays = iter(record.plays)
    for h in record.hands:
        if m.phase is Phase.CALL:
            m.call_pass(m.to_move[0], h.pass_call or "")
        for p in h.passes:
            m.pass_cards(p.seat, [Card.parse(c) for c in p.cards])
        for c in h.charges:  # turbo_charging
            m.charge(c.seat, [Card.parse(x) for x in c.cards])
        hand = m.hand
        played: list[ReplayedPlay] = []
        kitty = h.kitty
        cut = False
        while not m.over and m.hand_number == h.hand:
            if m.phase is Phase.MOON:
                if h.moon_choice is None:
                    cut = True
                    break
                m.choose_moon(m.turn, MoonChoice(h.moon_choice))
                continue
            if m.phase is Phase.DISCARD:
                kitty = tuple(str(c) for c in cards_of(m.hand.kitty))
                m.discard(m.turn, [Card.parse(c) for c in h.discard])
                continue
            play = next(plays, None)
            if play is None:
                cut = True
                break
            taken = tuple(hand.tricks_won)
            trick = m.play(Card.parse(play.card), play.seat)
            played.append(ReplayedPlay(play.seat, play.card, taken, trick))
        yield ReplayedHand(h.hand, tuple(played), tuple(hand.tricks), kitty, tuple(hand.tricks_won))
        if cut:
            return


def _tricks_by_hand(record: MatchRecord) -> Iterator[tuple[int, list[Trick], tuple[str, ...]]]:
    """Each hand's tricks (with leader and winner) and its kitty as it was when taken, as the engine replays them."""
    for h in replay_hands(record):
        yield h.hand, list(h.tricks), h.kitty


def replay(record: MatchRecord) -> RenderableType:
    """The match hand by hand, trick by trick: what guarded each seat's bot and its clock, the deal, the
    passes, every trick's leader, cards, winner and points, and each hand's score."""
    rules = Rules.from_dict(record.rules)
    names = _names(record)
    n = len(names)
    # Whether a substitute made each play, in play order: the replay's plays are the record's, card for
    # card, so each trick's marks are the next as many flags as it has cards (its tricks are the engine's:
    # a boosted trick, booster_nines, has two cards of each seat, either of them a substitute's).
    flags = iter([p.substituted for p in record.plays])
    # The trick table names each seat by its number, and up to five seats its name after it: a name
    # cut to fit a narrow terminal (``0:heuris…``) still says whose it is, as ``heuris…`` alone could be
    # any of several bots (no space between: a cell is cut at its end, not broken onto a second line).
    # More than five seats (two packs): numbers alone (the header lists whose each is).
    seated = [str(s) for s in range(n)] if n > 5 else [f"{s}:{name}" for s, name in enumerate(names)]
    parts: list[RenderableType] = [
        Text(
            f"Match {record.match_id}  rules {rules}  seed {record.seed}  "
            f"seats: {', '.join(f'{i} {b}' + _person(record, i) for i, b in enumerate(names))}"
            + _teams_text(rules, names),
            style="bold",
        )
    ]
    parts.extend(
        Text(f"  seat {s.seat} {names[s.seat]}: {isolation_text(s)}" + (f"; {t}" if (t := clock_text(s)) else ""))
        for s in record.seats
    )
    for replayed, h in zip(replay_hands(record), record.hands):
        number, tricks, kitty = replayed.hand, replayed.tricks, replayed.kitty
        marks = [next(flags) for _ in replayed.plays]
        called = (
            f" (called by the dealer: {h.pass_call}" + (", substitute)" if h.pass_call_substituted else ")")
            if h.pass_call is not None
            else ""
        )
        parts.append(Text(f"\nHand {number}: pass {h.pass_direction}{called}, dealer {names[h.dealer]}", style="bold"))
        deal = Table(show_header=True, box=None, padding=(0, 1))
        deal.add_column("seat")
        deal.add_column("dealt")
        deal.add_column("passed")
        passes = {p.seat: p for p in h.passes}
        charges = {c.seat: c for c in h.charges}
        if rules.turbo_charging:
            deal.add_column("charged")  # 002 Turbo Hearts: 'placing the card face up in front of them'
        for s in range(n):
            p = passes.get(s)
            passed = (
                (_cards(p.cards) if p.cards else "passed on") + (" (substitute)" if p.substituted else "") if p else ""
            )
            row: list[Text | str] = [Text(names[s]), _cards(h.deal[s]), passed]
            c = charges.get(s)
            if rules.turbo_charging:
                row.append(((_cards(c.cards) or "none") + (" (substitute)" if c.substituted else "")) if c else "")
            deal.add_row(*row)
        parts.append(deal)
        charged = sum(Card.parse(x).mask for c in h.charges for x in c.cards)
        values = charged_points(rules, charged)[0] if charged else rules.card_points  # charged values count
        table = Table(box=None, padding=(0, 1))
        table.add_column("trick", justify="right")
        table.add_column("leader")
        for name in seated:
            table.add_column(Text(name))
        table.add_column("winner")
        table.add_column("points", justify="right")
        played = 0  # the plays of the tricks so far
        for t_no, trick in enumerate(tricks):
            cells = [""] * n
            for i, card in enumerate(trick.cards):
                seat = trick.seat_of(i, n)
                text = card.symbol + ("*" if marks[played + i] else "")
                # The winner's card in green: the engine's winner (no rule of our own says which card won).
                text = f"[bold green]{text}[/]" if seat == trick.winner else text
                # A boosted trick (booster_nines) has two rounds: a seat's second card follows its first.
                cells[seat] = f"{cells[seat]} {text}" if cells[seat] else text
            played += len(trick.cards)
            points = sum(values[c.index] for c in trick.cards)
            table.add_row(
                str(t_no),
                Text(seated[trick.leader]),
                *cells,
                Text(seated[trick.winner] if trick.winner is not None else "none: on the table"),
                str(points) if points else "",
            )
        parts.append(table)
        if h.discard_seat is not None:
            parts.append(
                Text(
                    f"{names[h.discard_seat]} took the kitty {_cards(kitty)} and discarded "
                    f"{_cards(h.discard)} into its tricks" + (" (substitute)" if h.discard_substituted else "")
                )
            )
        score = "  ".join(f"{names[s]} {h.points_taken[s]} pts → {h.score[s]:+d} = {h.totals[s]}" for s in range(n))
        shooter = h.moon if h.moon is not None else h.sun
        if shooter is not None:
            shot = "moon" if h.moon is not None else "sun"
            if rules.moon == "wins-match":  # 002 Da Nasty Fix: the shot wins the game
                score += f"  ({names[shooter]} shot the {shot} and wins the match)"
            else:
                score += f"  ({names[shooter]} shot the {shot}" + (f": {h.moon_choice})" if h.moon_choice else ")")
                if rules.partnership == "team":  # 002: 'one team takes all 14 penalty cards'
                    score = score[:-1] + f", for the team with {names[(shooter + 2) % 4]})"
        if rules.partnership != "none" and h.totals:
            score += "  teams: " + _team_totals_text(rules, names, h.totals)
        parts.append(Text(score))
    parts.append(Text("\n* a substitute played for a faulty or forfeited bot; green: what the trick's winner played"))
    return Group(*parts)
