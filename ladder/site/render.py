"""The site's templates and what they draw: cards, the replay's steps, the SVG plots.

One Jinja2 environment, autoescape on for every template (``select_autoescape`` with the default
on): every bot-controlled string (names, versions, fault texts, reports, logs) reaches the page
escaped, in text and in attributes alike. No template marks bot text ``|safe``; the replay's data
goes into a ``<script type="application/json">`` through ``|tojson``, which writes ``<``, ``>``,
``&`` and ``'`` as ``\\u003c`` and so on, and the viewer reads it with ``JSON.parse`` and writes
it with ``textContent`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from referee.isolation import FEATURE_DOCS, Isolation, IsolationError
from referee.report import ReplayedHand
from referee.settings import ms_text

__all__ = [
    "HEADERS",
    "Card",
    "card",
    "clocks",
    "env",
    "isolations",
    "places",
    "points_svg",
    "rating_svg",
    "replay_steps",
    "seat_names",
    "team_totals",
    "teams",
]

HERE = Path(__file__).resolve().parent
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    # Only the site's own files: no inline script runs, whatever a page holds.
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
}
"""The headers of every page the site serves (the arena's, and a plain database's on 127.0.0.1)."""
SUITS = {"S": ("♠", "spades", "black"), "H": ("♥", "hearts", "red"), "D": ("♦", "diamonds", "red"),
         "C": ("♣", "clubs", "black")}  # fmt: skip
RANK_ORDER = {r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "A"])}
SUIT_ORDER = {"C": 0, "D": 1, "S": 2, "H": 3}
RANK_NAMES = {"J": "jack", "Q": "queen", "K": "king", "A": "ace", "T": "10"}
COMPASS = ["South", "West", "North", "East"]  # seat 0 drawn at the bottom, play goes clockwise
# Where each seat sits at a table of 3, 4 or 5 (the stylesheet places each).
PLACES = {
    3: ["South", "West", "East"],
    4: COMPASS,
    5: ["South", "West", "Northwest", "Northeast", "East"],
}


def places(n: int) -> list[str]:
    return PLACES.get(n, [f"Seat {i + 1}" for i in range(n)])


@dataclass(frozen=True)
class Card:
    text: str  # as recorded: "QS", "10H"
    rank: str  # "Q", "10"
    symbol: str  # "♠"
    suit: str  # "spades"
    colour: str  # "red" | "black"
    label: str  # "queen of spades": what a screen reader says

    @property
    def short(self) -> str:
        return self.rank + self.symbol


def card(text: str) -> Card:
    rank, s = text[:-1], text[-1:].upper()
    symbol, suit, colour = SUITS.get(s, ("?", "unknown", "black"))
    rank = "10" if rank == "T" else rank
    return Card(text, rank, symbol, suit, colour, f"{RANK_NAMES.get(rank, rank)} of {suit}")


def card_key(text: str) -> tuple[int, int]:
    return SUIT_ORDER.get(text[-1:].upper(), 9), RANK_ORDER.get(text[:-1], 99)


def sort_cards(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=card_key)


def seat_names(match: dict[str, Any]) -> list[str]:
    return [str(s["bot"]) for s in sorted(match["seats"], key=lambda s: s["seat"])]


UNKNOWN_ISOLATION = "unknown (not recorded)"
"""What a seat without a recorded isolation shows (a match stored before the store kept it)."""


def isolations(match: dict[str, Any]) -> list[dict[str, Any]]:
    """What guarded each seat's bot, in seat order, from the seats' recorded ``isolation`` text: its
    label, its exact text and the features in force with what each guarantees; unknown where the
    record has none (exported before version 3, or stored before the store kept it)."""
    out = []
    for s in sorted(match["seats"], key=lambda s: s["seat"]):
        text = s.get("isolation")
        try:
            iso = Isolation.parse(text) if isinstance(text, str) else None
        except IsolationError:
            iso = None  # not one this version knows: shown as the record has it
        out.append(
            {
                "seat": s["seat"],
                "text": text if isinstance(text, str) else None,
                "label": iso.label if iso is not None else (str(text) if text is not None else UNKNOWN_ISOLATION),
                "features": [(f, FEATURE_DOCS[f]) for f in iso.features] if iso is not None else [],
            }
        )
    return out


UNKNOWN_CLOCK = "unknown (not recorded)"
"""What a seat without a recorded clock shows (a match stored before the store kept it)."""


def clocks(match: dict[str, Any]) -> list[dict[str, Any]]:
    """The clock each seat played under, in seat order, from the seats' recorded ``budget_ms``, ``bank_ms``
    and ``grace_ms``: its words, and whether it differs from the clock most seats had (a bot's own, a
    handicap); unknown where the record has none (exported before version 4, or stored before the store
    kept it)."""
    seats = sorted(match["seats"], key=lambda s: s["seat"])
    kept = [tuple(s.get(k) for k in ("budget_ms", "bank_ms", "grace_ms")) for s in seats]
    known = [c for c in kept if all(isinstance(v, int | float) and not isinstance(v, bool) for v in c)]
    usual = max(known, key=known.count) if known else None
    return [
        {
            "seat": s["seat"],
            "label": f"budget {ms_text(c[0])} ms, bank {ms_text(c[1])} ms, grace {ms_text(c[2])} ms"
            if c in known
            else UNKNOWN_CLOCK,
            "own": c in known and c != usual,
        }
        for s, c in zip(seats, kept)
    ]


def teams(match: dict[str, Any]) -> list[list[int]]:
    """Under partnership (002 Partnership Hearts), each team's seats, team 0 first: [[0, 2], [1, 3]], as
    the seats' recorded ``team`` says; empty for a match without partners (or exported before teams)."""
    by_team: dict[int, list[int]] = {}
    for s in sorted(match["seats"], key=lambda s: s["seat"]):
        if s.get("team") is not None:
            by_team.setdefault(int(s["team"]), []).append(int(s["seat"]))
    return [by_team[t] for t in sorted(by_team)]


def team_totals(match: dict[str, Any], totals: Sequence[int]) -> list[int]:
    """The teams' totals from the seats' (team 0 first): the one total partners carry under
    partnership=team, the partners' sum under individual; empty without partners."""
    from referee.rules import Rules  # the engine only for pages that show teams

    if not totals or not teams(match):
        return []
    return list(Rules.parse(str(match["rules"])).team_totals(totals))


def replay_steps(match: dict[str, Any], replayed: Sequence[ReplayedHand]) -> list[dict[str, Any]]:
    """The replay, one snapshot per step: each hand's deal, its passes, each card played, its score.

    ``match`` is the record as the viewer may see it (the export format), ``replayed`` the engine's
    replay of it (``referee.report.replay_hands``): who took each trick is the engine's word. Two packs
    (more than five seats: 002 Cancellation Hearts) list a card held twice twice.

    A snapshot holds the four hands as they stand (sorted), the cards on the table, the totals
    before the hand, tricks taken, a caption and a mark (a fault or a substituted play) where one
    happened. Hands after the pass are the cards each seat then plays, so every variant's pass
    (left, scatter, kitty) is drawn as it was played.
    """
    names = seat_names(match)
    n = len(names)
    faults: dict[tuple[Any, Any, int], list[dict[str, Any]]] = {}
    for f in match.get("faults", []):
        faults.setdefault((f["hand"], f["trick"], f["seat"]), []).append(f)
    plays_by_hand: dict[int, list[dict[str, Any]]] = {}
    for p in match.get("plays", []):
        plays_by_hand.setdefault(p["hand"], []).append(p)
    steps: list[dict[str, Any]] = []
    totals = [0] * n
    for h, engine in zip(match.get("hands", []), replayed):
        hi = h["hand"]
        plays = plays_by_hand.get(hi, [])
        hands = [sort_cards(d) for d in h["deal"]]
        base = {"hand": hi + 1, "totals": list(totals)}
        steps.append({**base, "kind": "deal", "hands": [list(x) for x in hands], "table": [None] * n,
                      "tricks": [0] * n, "passes": None, "mark": None,
                      "caption": f"Hand {hi + 1}: the deal (pass {h['pass_direction']})"})  # fmt: skip
        if h.get("passes"):
            after = [sort_cards([p["card"] for p in plays if p["seat"] == s]) for s in range(n)]
            if all(after):
                hands = after
            passes: list[list[str] | None] = [None] * n
            marks = []
            for p in h["passes"]:
                passes[p["seat"]] = [str(c) for c in p["cards"]]
                if p.get("substituted"):
                    marks.append(f"{names[p['seat']]}'s pass was substituted by the referee")
            for f in faults.get((hi, None, 0), []) + [x for s in range(1, n) for x in faults.get((hi, None, s), [])]:
                marks.append(f"fault: {names[f['seat']]}: {f['kind']}")
            steps.append({**base, "kind": "pass", "hands": [list(x) for x in hands], "table": [None] * n,
                          "tricks": [0] * n, "passes": passes, "mark": "; ".join(marks) or None,
                          "caption": f"Hand {hi + 1}: the passes ({h['pass_direction']})"})  # fmt: skip
        # turbo_charging: the charged cards lie face up before their charger until played (002 Turbo).
        charged: list[list[str]] = [[] for _ in range(n)]
        for c in h.get("charges") or ():
            charged[c["seat"]] = [str(x) for x in c["cards"]]
        table: list[str | None] = [None] * n
        if any(charged):
            marks = [
                f"{names[c['seat']]}'s charge was substituted by the referee"
                for c in h["charges"]
                if c.get("substituted")
            ]
            steps.append({**base, "kind": "charge", "hands": [list(x) for x in hands], "table": [None] * n,
                          "tricks": [0] * n, "passes": None, "charged": [list(x) for x in charged],
                          "mark": "; ".join(marks) or None,
                          "caption": f"Hand {hi + 1}: the turbo-charged cards, face up"})  # fmt: skip
        ended = False  # the card before completed its trick: this one starts the next on a cleared table
        # A boosted trick (booster_nines) goes round twice: a seat's first card lies under its second.
        under: list[str | None] = [None] * n
        for p, played in zip(plays, engine.plays):
            if ended:
                table = [None] * n
                under = [None] * n
            seat, c = played.seat, played.card
            if c in hands[seat]:
                hands[seat].remove(c)  # one copy: with two packs a hand may hold the card twice
            if c in charged[seat]:
                charged[seat] = [x for x in charged[seat] if x != c]
            if table[seat] is not None:
                under[seat] = table[seat]
            table[seat] = c
            marks = []
            if p.get("substituted"):
                marks.append("substituted: the referee played this card for the bot")
            for f in faults.get((hi, p["trick"], seat), []):
                marks.append(f"fault: {f['kind']}")
            caption = f"Hand {hi + 1}, trick {p['trick'] + 1}: {names[seat]} plays {card(c).short}"
            step = {**base, "kind": "play", "seat": seat, "card": c, "hands": [list(x) for x in hands],
                    "table": list(table), "tricks": list(played.taken), "passes": None,
                    "charged": [list(x) for x in charged] if any(charged) else None,
                    "mark": "; ".join(marks) or None, "caption": caption}  # fmt: skip
            if any(under):
                step["under"] = list(under)
            steps.append(step)
            ended = played.trick is not None
        score = list(h.get("score") or [0] * n)
        totals = list(h.get("totals") or totals)
        moon = f" — {names[h['moon']]} shot the moon" if h.get("moon") is not None else ""
        steps.append({**base, "kind": "score", "hands": [list(x) for x in hands], "table": [None] * n,
                      "tricks": list(engine.taken), "passes": None, "mark": None, "totals": list(totals),
                      "score": score,
                      "caption": f"Hand {hi + 1} scored: " + ", ".join(
                          f"{names[s]} +{score[s]}" for s in range(n)) + moon})  # fmt: skip
    return steps


# -- plots ------------------------------------------------------------------------------------------


def rating_svg(points: Sequence[tuple[int, float]], *, width: int = 640, height: int = 200) -> str:
    """A line of Elo over the bot's matches: numbers only, so the markup holds no bot text."""
    if len(points) < 2:
        return ""
    pad = 36
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    lo, hi = min(ys), max(ys)
    if hi - lo < 20:
        lo, hi = lo - 10, hi + 10
    x0, x1 = min(xs), max(xs)

    def sx(x: float) -> float:
        return pad + (x - x0) / max(1, x1 - x0) * (width - pad - 8)

    def sy(y: float) -> float:
        return 8 + (hi - y) / (hi - lo) * (height - pad - 8)

    path = " ".join(f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for i, (x, y) in enumerate(points))
    ticks = []
    for k in range(5):
        y = lo + (hi - lo) * k / 4
        ticks.append(
            f'<line x1="{pad}" x2="{width - 8}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" class="grid"/>'
            f'<text x="{pad - 4}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.0f}</text>'
        )
    return (
        f'<svg viewBox="0 0 {width} {height}" class="plot" role="img" aria-label="rating history">'
        + "".join(ticks)
        + f'<path d="{path}" class="line"/>'
        + f'<text x="{width / 2:.0f}" y="{height - 6}" text-anchor="middle">matches played ({x0}–{x1})</text>'
        + "</svg>"
    )


def points_svg(hands: Mapping[int, int], *, width: int = 640, height: int = 160) -> str:
    """A histogram of hands by the points taken in them (``hands``: points -> hands; below 0 counted
    at 0, above the last bin at it)."""
    if not any(hands.values()):
        return ""
    top = max(26, max(hands))
    bins = [0] * (top + 1)
    for v, n in hands.items():
        bins[max(0, min(top, v))] += n
    peak = max(bins)
    pad, bw = 24, (width - 32) / len(bins)
    bars = []
    for i, b in enumerate(bins):
        h = 0 if peak == 0 else (height - pad - 8) * b / peak
        x = 8 + i * bw
        bars.append(
            f'<rect x="{x:.1f}" y="{height - pad - h:.1f}" width="{max(1.0, bw - 1):.1f}" height="{h:.1f}">'
            f"<title>{i} points: {b} hands</title></rect>"
        )
        if i % 5 == 0:
            bars.append(f'<text x="{x + bw / 2:.1f}" y="{height - 8}" text-anchor="middle">{i}</text>')
    return (
        f'<svg viewBox="0 0 {width} {height}" class="plot hist" role="img" aria-label="points per hand">'
        + "".join(bars)
        + "</svg>"
    )


# -- the environment --------------------------------------------------------------------------------


def env() -> jinja2.Environment:
    e = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    e.globals.update(
        card=card,
        places=places,
        sort_cards=sort_cards,
        teams=teams,
        team_totals=team_totals,
        isolations=isolations,
        clocks=clocks,
        # A plain tournament database's pages (ladder/arena/local.py): its names have no versions, it
        # has tournaments and no accounts. An arena's renderers leave it False.
        local=False,
    )
    e.filters["q"] = lambda s: quote(str(s), safe="")
    e.filters["pct"] = lambda x: "—" if x is None or x != x else f"{x:.1f}%"
    e.filters["num"] = lambda x, d=1: "—" if x is None or (isinstance(x, float) and x != x) else f"{x:.{d}f}"
    return e


Linker = Callable[[str], str]
