"""``hearts site build``: the leaderboard, the matches, every bot's page and every replay as plain
files (the server's templates, as a visitor not signed in sees them), for a teacher who publishes
results without running a server. Links are relative, so the folder works from any web server or
straight from the disk.

A rebuild into the same folder writes only what changed: each page is written when its bytes differ
from the file there, and a match's replay (a record never changes) is not even rendered again while
what it shows is as before (its row on the matches page: names, results) and the site's own code is
the same; what the last build wrote and this one does not (a replay past ``replays``) is removed.
``MANIFEST`` in the folder keeps what each page was built from; files the build did not write are
never touched.

A plain tournament database (no arena's tables: ``build_local_site``) is written the same way, read
by the views' rules for one (ladder/arena/local.py): its ladder, its tournaments (each one's board and
matches), its matches, its bots' pages, every bot by its name; no sign-in, no submissions."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from dataclasses import dataclass, field
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

__all__ = ["MANIFEST", "Built", "build_local_site", "build_site"]

MANIFEST = ".hearts-site.json"
_FORMAT = 1


@dataclass
class Built:
    """What a build did: pages written (new or changed), left as they were, and removed."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return len(self.written) + len(self.unchanged)

    def __str__(self) -> str:
        written, unchanged, removed = len(self.written), len(self.unchanged), len(self.removed)
        return f"{self.pages} pages: {written} written, {unchanged} unchanged, {removed} removed"


def _code_signature() -> str:
    """The site's own code, templates and files, the views it reads and the engine's replay: a
    replay built by other code is built again."""
    h = hashlib.sha256()
    for root in (HERE, HERE.parent / "arena" / "views.py", HERE.parents[1] / "referee" / "report.py"):
        files = sorted(
            p for p in ([root] if root.is_file() else root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts
        )
        for p in files:
            h.update(p.relative_to(HERE.parents[1]).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _file(path: str) -> str:
    """The file a page's path is written to: ``bots/NAME`` → ``bots/NAME.html``, ``""`` → ``index.html``."""
    return (path or "index") + ".html"


def build_site(arena_dir: Path, cfg: ArenaConfig, out: Path, *, replays: int = 200, full: bool = False) -> Built:
    """Write the site under ``out`` (``full``: every page rendered again); says what it wrote."""
    state = ArenaState(dir=arena_dir, cfg=cfg, ratings=Ratings())
    return asyncio.run(_build(state, out, replays, full))


def build_local_site(db: Path, out: Path, *, replays: int = 200, full: bool = False) -> Built:
    """Write the site of a plain tournament database ``db`` (no arena's tables) under ``out``; says
    what it wrote. The file is only read."""
    return asyncio.run(_build(LocalState(db), out, replays, full))


def _read_manifest(out: Path, signature: str) -> dict[str, Any]:
    """The last build's pages (file -> its sha256) and replays (file -> what it showed), if it was
    this code's; else nothing is known."""
    try:
        data = json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return {"pages": {}, "replays": {}}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {"pages": {}, "replays": {}}
    known = {k: v for k, v in data.get("pages", {}).items() if isinstance(k, str) and isinstance(v, str)}
    same = data.get("code") == signature
    replays = data.get("replays", {}) if same and isinstance(data.get("replays"), dict) else {}
    return {"pages": known, "replays": replays}


async def _build(state: views.State, out: Path, replays: int, full: bool) -> Built:
    e = env()
    out.mkdir(parents=True, exist_ok=True)
    for f in sorted((HERE / "static").rglob("*")):  # the site's own files, copied when they differ
        target = out / "static" / f.relative_to(HERE / "static")
        if f.is_file() and (not target.is_file() or target.read_bytes() != f.read_bytes()):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
    signature = _code_signature()
    arena_name = state.name if isinstance(state, LocalState) else state.cfg.name
    last = {"pages": {}, "replays": {}} if full else _read_manifest(out, signature)
    built = Built()
    hashes: dict[str, str] = {}
    shown: dict[str, str] = {}

    def keep(path: str, key: str) -> bool:
        """Whether the replay at ``path`` is as the last build left it, showing what ``key`` says."""
        name = _file(path)
        target = out / name
        if last["replays"].get(name) != key or name not in last["pages"] or not target.is_file():
            return False
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        if digest != last["pages"][name]:
            return False  # changed by hand since: written again
        hashes[name], shown[name] = digest, key
        built.unchanged.append(name)
        return True

    def write(path: str, page: pages.Page) -> None:
        depth = path.count("/")
        prefix = "../" * depth
        template, ctx = page
        html = e.get_template(template).render(
            **ctx,
            me=VISITOR,
            csrf="",
            arena_name=arena_name,
            local=isinstance(state, LocalState),
            u=lambda p: prefix + quote(_file(p), safe="/"),
            static=lambda p: prefix + "static/" + p,
            static_site=True,
            path="/" + path,
        )
        name = _file(path)
        target = out / name
        data = html.encode()
        digest = hashlib.sha256(data).hexdigest()
        hashes[name] = digest
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == digest:
            built.unchanged.append(name)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(target)  # a reader of the folder sees the old page or the new one, never half of one
        built.written.append(name)

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
        path = f"matches/{quote(m['id'], safe='')}"
        # What the replay shows beyond its record: its row (the names as a visitor sees them, the
        # results) and the arena's name in its header.
        key = hashlib.sha256(json.dumps([arena_name, m], sort_keys=True, default=str).encode()).hexdigest()
        if not keep(path, key):
            write(path, await pages.match_page(state, VISITOR, m["id"], {}))
            shown[_file(path)] = key
    for name in sorted(set(last["pages"]) - set(hashes)):
        target = out / name
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == last["pages"][name]:
            target.unlink()  # the last build's, and no page now: gone (one changed by hand is left)
            built.removed.append(name)
    manifest = json.dumps({"format": _FORMAT, "code": signature, "pages": hashes, "replays": shown}, indent=1)
    if not (out / MANIFEST).is_file() or (out / MANIFEST).read_text() != manifest:
        (out / MANIFEST).write_text(manifest)
    return built
