"""A match record as HTML, for a notebook: its results table and the site's replay viewer inline.

The viewer is the match page's (``ladder.site.standalone.replay_document``: its template, stylesheet and
script, its steps from the engine's replay), a whole document in an iframe's ``srcdoc``, sandboxed to
run its own script only (no access to the notebook's page). It needs no server and no network.

Every name and text a bot controls is made inert (``referee.untrusted.inert``) and escaped here; the
viewer's document escapes its own, and the whole of it is escaped once more as the attribute's value.
"""

from __future__ import annotations

import html

from ladder.site.render import places
from ladder.site.standalone import replay_document
from referee.record import FaultKind, FaultRecord, ForfeitReason, MatchRecord, SeatRecord
from referee.rules import IllegalPlayError, Rules
from referee.untrusted import inert

__all__ = ["record_html", "replay_iframe"]

NAME_LIMIT = 64
"""Characters shown of a bot's name (the name may be its own handshake's)."""

REPLAY_HEIGHT_PX = 840

_STYLE = (
    "<style>.hearts-match td,.hearts-match th{text-align:right}"
    ".hearts-match .bot,.hearts-match .where,.hearts-match .text{text-align:left}"
    ".hearts-match caption{caption-side:top;text-align:left}"
    ".hearts-match tr.winner td{font-weight:bold}</style>"
)


def _e(text: object, limit: int = NAME_LIMIT) -> str:
    return html.escape(inert(text, limit), quote=True)


def _rules_text(record: MatchRecord) -> str:
    try:
        return str(Rules.from_dict(record.rules))
    except (TypeError, ValueError, KeyError):
        return "(rules this version cannot read)"


def _forfeit(seat: SeatRecord) -> str:
    if not seat.forfeit:
        return ""
    if seat.forfeit_reason is None:
        return "forfeit"
    return f"forfeit ({ForfeitReason(seat.forfeit_reason).value})"


def _where(f: FaultRecord) -> str:
    if f.hand is None:
        return "handshake"
    return f"hand {f.hand + 1}" + (f", trick {f.trick + 1}" if f.trick is not None else "")


def replay_iframe(record: MatchRecord, *, height: int = REPLAY_HEIGHT_PX) -> str:
    """The replay viewer of ``record`` in an iframe whose ``srcdoc`` is the whole viewer; a line saying
    why instead for a record the engine cannot replay."""
    try:
        document = replay_document(record)
    except IllegalPlayError as error:
        return f'<p class="hearts-replay">No replay: the engine refuses this record ({_e(error, 300)}).</p>'
    return (
        f'<iframe class="hearts-replay" title="replay of match {_e(record.match_id)}" sandbox="allow-scripts" '
        f'style="width:100%;height:{int(height)}px;border:1px solid #ccc;border-radius:6px" '
        f'srcdoc="{html.escape(document, quote=True)}"></iframe>'
    )


def record_html(record: MatchRecord, *, replay: bool = True) -> str:
    """``record`` as HTML: a line of what was played, a table of the seats (where each sat, its bot, final
    score, place, faults, forfeit; the winners in bold), the faults, and with ``replay`` the replay viewer.
    ``MatchRecord._repr_html_`` draws this once ``ladder.notebook`` is imported."""
    where = places(len(record.seats))
    winners = set(record.winners)
    head = (
        f"<caption>Match <code>{_e(record.match_id)}</code> · rules <code>{_e(_rules_text(record), 300)}</code> · "
        f"seed {int(record.seed)} · {len(record.hands)} hands</caption>"
    )
    rows = "".join(
        f'<tr class="{"winner" if s.seat in winners else ""}" data-seat="{s.seat}">'
        f'<td>{s.seat}</td><td class="where">{_e(where[s.seat] if s.seat < len(where) else "")}</td>'
        f'<td class="bot">{_e(s.bot)}{" (a person)" if s.kind == "human" else ""}</td>'
        f"<td>{int(s.final_score)}</td><td>{int(s.place)}</td><td>{int(s.faults)}</td>"
        f'<td class="text">{_e(_forfeit(s))}</td></tr>'
        for s in sorted(record.seats, key=lambda s: s.seat)
    )
    out = [
        _STYLE,
        '<div class="hearts-record">',
        f'<table class="hearts-match">{head}<thead><tr><th>seat</th><th class="where">at</th><th class="bot">bot</th>'
        '<th>score</th><th>place</th><th>faults</th><th class="text">forfeit</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>",
    ]
    if record.faults:
        names = {s.seat: s.bot for s in record.seats}
        faults = "".join(
            f'<tr><td class="text">{_e(_where(f))}</td><td class="bot">{_e(names.get(f.seat, f.seat))}</td>'
            f'<td class="text">{_e(FaultKind(f.kind).value)}</td><td class="text">{_e(f.action, 300)}</td>'
            f'<td class="text">{_e(f.detail, 300)}</td></tr>'
            for f in record.faults
        )
        out.append(
            f"<details><summary>{len(record.faults)} fault{'s' if len(record.faults) != 1 else ''}</summary>"
            '<table class="hearts-match"><thead><tr><th class="text">where</th><th class="bot">bot</th>'
            '<th class="text">kind</th><th class="text">what the referee did</th><th class="text">detail</th>'
            f"</tr></thead><tbody>{faults}</tbody></table></details>"
        )
    if replay:
        out.append(replay_iframe(record))
    out.append("</div>")
    return "".join(out)
