"""Accepting a submission is the arena's, not a handler's: ``actions.submit`` takes the participant, the
bot's name and the archive (or a hosted address) and returns the new version, or refuses with a typed
error that says what is wrong; the organiser's actions refuse a participant alike."""

from __future__ import annotations

import asyncio
import io
import zipfile
from pathlib import Path

import pytest

from ladder.arena import actions
from ladder.arena.accounts import Account, add_user
from ladder.arena.config import ArenaConfig, HouseBot
from ladder.arena.errors import BadRequest, Forbidden, NotFound, TooMany
from ladder.arena.state import ArenaState
from ladder.arena.store import ArenaStore, VersionRow, VersionStatus
from ladder.arena.worker import Ratings, sync_house

pytestmark = pytest.mark.slow  # whole processes and servers


def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


GOOD = _zip({"bot.py": "print(1)\n", "bot.toml": 'command = "python bot.py --port {port}"\n'})


def test_a_submission_is_a_version_or_a_refusal_naming_what_is_wrong(tmp_path: Path) -> None:
    cfg = ArenaConfig(house=(HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),))
    store = ArenaStore(tmp_path / "arena.db")
    add_user(store, "organiser", organiser=True)
    alice, _ = add_user(store, "alice")
    bob, _ = add_user(store, "bob")
    sync_house(store, cfg)
    store.close()
    state = ArenaState(dir=tmp_path, cfg=cfg, ratings=Ratings())

    def submit(me: Account, name: str, *, archive: bytes | None = None, address: str | None = None) -> VersionRow:
        return asyncio.run(actions.submit(state, me, name, archive=archive, address=address))

    v = submit(alice, "mine", archive=GOOD)
    assert (v.bot, v.number, v.status, v.kind) == ("mine", 1, VersionStatus.PENDING, "archive")
    assert v.path is not None and Path(v.path).is_dir() and Path(v.path, "bot.toml").is_file()
    with pytest.raises(BadRequest, match="no bot.toml"):
        submit(alice, "mine", archive=_zip({"bot.py": ""}))
    with pytest.raises(BadRequest, match="not a zip"):
        submit(alice, "mine", archive=b"not a zip")
    with pytest.raises(BadRequest, match="is not allowed"):
        submit(alice, "bad name", archive=GOOD)
    with pytest.raises(Forbidden, match="house bot"):
        submit(alice, "lowest", archive=GOOD)
    with pytest.raises(Forbidden, match="another participant's"):
        submit(bob, "mine", archive=GOOD)
    with pytest.raises(BadRequest, match="HOST:PORT"):
        submit(alice, "hosted", address="no port")
    hosted = submit(alice, "hosted", address="10.255.255.1:1")
    assert hosted.kind == "address" and hosted.address == "10.255.255.1:1"
    assert submit(alice, "mine", archive=GOOD).number == 2
    with pytest.raises(TooMany, match="waiting"):
        submit(alice, "third", archive=GOOD)
    with pytest.raises(Forbidden, match="organiser"):
        asyncio.run(actions.pause(state, alice))
    state.cfg = ArenaConfig(house=cfg.house, anonymous=True)
    with pytest.raises(NotFound, match="that you can see"):  # a name not shown is answered as reading it is
        submit(bob, "mine", archive=GOOD)
