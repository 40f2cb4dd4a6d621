"""``hearts site build``: the leaderboard, the matches, every bot's page and every replay as plain
files (the server's templates, as a visitor not signed in sees them), for a teacher who publishes
results without running a server. Links are relative, so the folder works from any web server or
straight from the disk.

A plain tournament database (no arena's tables: ``build_local_site``) is written the same way, read
by the views' rules for one (ladder/arena/local.py): its ladder, its tournaments (each one's board and
matches), its matches, its bots' pages, every bot by its name; no sign-in, no submissions."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ladder.arena import views
from ladder.arena.config import ArenaConfig
from ladder.arena.errors import Refused
from ladder.arena.local import LocalState
from ladder.arena.state import ArenaState
from ladder.arena.worker import Ratings
from ladder.site import pages
from ladder.site.pages import VISITOR
from ladder.site.render import HERE, env

__all__ = ["build_local_site", "build_site"]


def _file(path: str) -> str:
    """The file a page's path is written to: ``bots/NAME`` → ``bots/NAME.html``, ``""`` → ``index.html``."""
    return (path or "index") + ".html"


def build_site(arena_dir: Path, cfg: ArenaConfig, out: Path, *, replays: int = 200) -> int:
    """Write the site under ``out``; returns how many pages were written."""
    state = ArenaState(dir=arena_dir, cfg=cfg, ratings=Ratings())
    return asyncio.run(_build(state, out, replays))


def build_local_site(db: Path, out: Path, *, replays: int = 200) -> int:
    """Write the site of a plain tournament database ``db`` (no arena's tables) under ``out``; returns
    how many pages were written. The file is only read."""
    return asyncio.run(_build(LocalState(db), out, replays))


async def _build(state: views.State, out: Path, replays: int) -> int:
    e = env()
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(HERE / "static", out / "static", dirs_exist_ok=True)
    written = 0

    def write(path: str, page: pages.Page) -> None:
        nonlocal written
        depth = path.count("/")
        prefix = "../" * depth
        template, ctx = page
        html = e.get_template(template).render(
            **ctx,
            me=VISITOR,
            csrf="",
            arena_name=state.name if isinstance(state, LocalState) else state.cfg.name,
            local=isinstance(state, LocalState),
            u=lambda p: prefix + quote(_file(p), safe="/"),
            static=lambda p: prefix + "static/" + p,
            static_site=True,
            path="/" + path,
        )
        target = out / _file(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html)
        written += 1

    write("", await pages.leaderboard_page(state, VISITOR, {}))
    if isinstance(state, LocalState):
        write("tournaments", await pages.tournaments_page(state, VISITOR))
        for t in await views.tournaments(state, VISITOR):
            write(f"tournaments/{t['id']}", await pages.tournament_page(state, VISITOR, str(t["id"]), {}))
    listing = await pages.matches_page(state, VISITOR, {})
    # A match whose deal is still to be played in other seats (duplicate deals) is left out until then:
    # its record shows their cards. Its page says so, for the links to it.
    withheld = [m for m in listing[1]["matches"] if m["withheld"]]
    listing[1]["matches"] = [m for m in listing[1]["matches"] if m not in withheld]
    write("matches", listing)
    for m in withheld:
        message = f"match {m['id']}'s deal is still to be played in other seats: its replay comes with a later build"
        write(
            f"matches/{quote(m['id'], safe='')}",
            ("error.html", {"status": 409, "message": message, "title": "Not yet"}),
        )
    for name in await views.bot_names(state, VISITOR):
        try:
            # The file is named by the name's URL quoting (no "/" or ".." can reach the path).
            write(f"bots/{quote(name, safe='')}", await pages.bot_page(state, VISITOR, name))
        except Refused:
            continue
    matches: list[dict[str, Any]] = listing[1]["matches"]
    for m in matches[:replays]:
        write(f"matches/{quote(m['id'], safe='')}", await pages.match_page(state, VISITOR, m["id"], {}))
    return written
