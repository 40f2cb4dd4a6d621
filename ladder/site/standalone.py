"""A match's replay viewer as one HTML document that stands alone: the match page's viewer (its template,
``replay_viewer.html``), the site's stylesheet and ``replay.js`` inlined, its steps from the same
``replay_steps`` of the same engine-checked replay (``referee.report.replay_hands``). It needs no
server and no network: a notebook shows it in an iframe's ``srcdoc`` (``ladder.notebook``).

The escaping is the site's: the template escapes every name and text, the steps go in as JSON through
``|tojson`` and the script writes them with ``textContent`` only. The stylesheet and the script are our
own files, the only text put in unescaped.
"""

from __future__ import annotations

from markupsafe import Markup

from ladder.export import match_to_json
from ladder.site.render import HERE, env, replay_steps, seat_names
from referee.record import MatchRecord
from referee.report import replay_hands

__all__ = ["replay_document"]


def _static(name: str, closing: str) -> Markup:
    text = (HERE / "static" / name).read_text(encoding="utf-8")
    if closing in text.lower():  # it would end its element early
        raise ValueError(f"ladder/site/static/{name} holds {closing!r}: it cannot be inlined")
    return Markup(text)  # our own file, checked above: no bot text


def replay_document(record: MatchRecord, *, step: int = 0) -> str:
    """The replay of ``record`` as a whole HTML document, at ``step`` (0: the first deal). Every seat
    face up, as the record's owner sees it. ``IllegalPlayError`` for a record whose plays break the
    rules (the engine replays it)."""
    data = match_to_json(record)
    steps = replay_steps(data, list(replay_hands(record)))
    step = max(0, min(len(steps) - 1, step))
    return (
        env()
        .get_template("replay_page.html")
        .render(
            m=data,
            names=seat_names(data),
            steps=steps,
            step=step,
            s=steps[step] if steps else None,
            seat_view=None,
            bot_links=False,
            css=_static("style.css", "</style"),
            js=_static("replay.js", "</script"),
        )
    )
