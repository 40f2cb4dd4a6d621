"""`hearts arena backup` of a live arena: the copy is served by `hearts arena serve` on another port,
holds every match of its snapshot whole, and plays on with the submitted version it copied, while the
source arena goes on playing undisturbed. And its refusals: a DEST in use, a DIR that is no arena."""

from __future__ import annotations

import io
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest
from arena_helpers import GOOD_BOT, HOUSE3, Arena, hearts, make_arena, write_bot
from cli_runner import run

from ladder.arena.backup import rehome_versions
from ladder.arena.store import ArenaStore


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in folder.iterdir():
            zf.write(p, p.name)
    return buf.getvalue()


@pytest.mark.slow  # two served arenas and their bots
def test_a_backup_of_a_playing_arena_serves_every_match_and_the_source_plays_on(
    tmp_path: Path, arena_factory: list[Arena]
) -> None:
    a = make_arena(tmp_path, house=HOUSE3)
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    with a.client(alice) as c:
        sent = c.post(
            "/api/bots/alice-low/versions",
            content=_zip(write_bot(tmp_path / "good", GOOD_BOT)),
            headers={"content-type": "application/zip"},
        )
        assert sent.status_code == 201, sent.text
    a.wait_for(alice, lambda v: v["status"] == "valid", path="/api/bots/alice-low/versions/1")
    a.wait_for(a.organiser, lambda s: s["matches"] >= 2 and s["live"] > 0)  # playing as the copy is made

    dest = tmp_path / "copy"
    out = hearts("arena", "backup", str(a.dir), str(dest), "--logs").stdout
    copied = int(re.search(r"(\d+) matches, (\d+) hands", out).group(1))  # type: ignore[union-attr]
    assert copied >= 2 and "integrity ok" in out and "arena.lock" in out  # the lock is the source's own
    # The source went on: more matches after the copy, from the same server.
    a.wait_for(a.organiser, lambda s: s["matches"] > copied + 1)
    assert a.proc is not None and a.proc.poll() is None

    with sqlite3.connect(dest / "arena.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        ids = [r[0] for r in conn.execute("SELECT id FROM matches")]
        [(path,)] = conn.execute("SELECT path FROM arena_versions WHERE kind = 'archive'").fetchall()
    assert len(ids) == copied
    assert Path(path) == (dest / "versions" / "alice-low" / "1").resolve() and (Path(path) / "bot.py").is_file()
    assert (dest / "logs").is_dir() and not (dest / "arena.lock").exists()

    b = Arena(dir=dest, organiser=a.organiser)  # the organiser's token is the copy's too (its hash is)
    arena_factory.append(b)
    b.serve()
    with b.client(b.organiser) as org:
        status = org.get("/api/status").json()
        assert status["bots"] == 4 and status["matches"] >= copied
        listed = {m["id"] for m in org.get("/api/matches?limit=200").json()["matches"]}
        assert set(ids) <= listed
        for match_id in ids:
            r = org.get(f"/api/matches/{match_id}")
            assert r.status_code == 200 and r.json()["match_id"] == match_id, r.text
    # The copy plays on, alice's copied version among its bots.
    b.wait_for(b.organiser, lambda s: s["matches"] >= copied + 2)


def _idle_arena(root: Path) -> Path:
    """An arena as `hearts arena init` makes it, made in this process (no server: nothing plays)."""
    run("arena", "init", str(root / "arena"))
    return root / "arena"


def test_a_dest_in_use_is_refused_with_what_to_do(tmp_path: Path) -> None:
    a = Arena(dir=_idle_arena(tmp_path), organiser="")
    dest = tmp_path / "taken"
    dest.mkdir()
    (dest / "notes.txt").write_text("mine")
    r = run("arena", "backup", str(a.dir), str(dest))
    assert r.exit_code == 1 and "exists and is not an empty folder: name a new folder" in r.output
    assert (dest / "notes.txt").read_text() == "mine" and len(list(dest.iterdir())) == 1
    inside = run("arena", "backup", str(a.dir), str(a.dir / "backup"))
    assert inside.exit_code == 1 and "is inside the arena" in inside.output


def test_a_folder_that_is_no_arena_is_refused(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    r = run("arena", "backup", str(tmp_path / "plain"), str(tmp_path / "copy"))
    assert r.exit_code == 1 and "is not an arena (no arena.toml and arena.db)" in r.output
    assert not (tmp_path / "copy").exists()


def test_an_empty_dest_takes_the_copy_of_an_idle_arena(tmp_path: Path) -> None:
    a = Arena(dir=_idle_arena(tmp_path), organiser="")
    (tmp_path / "empty").mkdir()
    r = run("arena", "backup", str(a.dir), str(tmp_path / "empty"))
    assert r.exit_code == 0, r.output
    assert "0 matches, 0 hands" in r.output and (tmp_path / "empty" / "arena.toml").is_file()


def test_a_moved_arena_finds_its_versions_folders_again(tmp_path: Path) -> None:
    """A version's row names its folder by an absolute path: after a move, serve points it at the new place."""
    old = tmp_path / "old" / "versions" / "bob" / "1"
    new_dir = tmp_path / "new"
    (new_dir / "versions" / "bob" / "1").mkdir(parents=True)
    store = ArenaStore(new_dir / "arena.db")
    try:
        owner = store.add_user("bob", "participant", "x", "alias-bob")
        v = store.add_version(store.add_bot("bob", owner, "alias-bot"), owner, kind="archive", path=str(old))
        assert rehome_versions(store, new_dir) == 1
        assert store.version_by_id(v.id).path == str((new_dir / "versions" / "bob" / "1").resolve())  # type: ignore[union-attr]
        assert rehome_versions(store, new_dir) == 0  # already home
    finally:
        store.close()
