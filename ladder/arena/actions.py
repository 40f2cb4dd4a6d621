"""What participants and organisers do to the arena: submit a version of a bot (an archive, or the
address of a bot one hosts), and the organiser's pause, resume, reveal and final. The API's handlers
and the site's forms both call these and only translate their refusals (``ladder.arena.errors``).

A submission is judged in this order, the same through either door: the deadline, the name (its
form, then whether it is the participant's: another's, a house bot's or an alias answers as reading
it does), the participant's versions waiting, then what was sent (its size, the archive or the
address, the participant's stored bytes)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ladder.arena.accounts import Account, new_alias
from ladder.arena.errors import BadRequest, Forbidden, NotNow, TooLarge, TooMany
from ladder.arena.hosted_address import AddressRefused, pin
from ladder.arena.state import ArenaState
from ladder.arena.store import WAITING, BotRow, VersionRow, VersionStatus
from ladder.arena.submissions import ArchiveError, check_archive, stored_bytes, unpack
from ladder.arena.views import deadline_passed, not_shown, shown_bot
from ladder.arena.worker import start_final
from ladder.bots.registry import RegistryError, check_name

__all__ = [
    "HOSTED_HINT",
    "MAX_WAITING",
    "Slot",
    "final",
    "open_slot",
    "pause",
    "resume",
    "reveal",
    "submit",
    "submit_archive",
    "submit_hosted",
]

MAX_WAITING = 3
"""Versions one participant may have waiting for the pipeline at once (it validates one at a time)."""
HOSTED_HINT = 'send {"address": "HOST:PORT"} for a bot you host, or a .zip as application/zip'
_HOST_PORT = re.compile(r"(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}")  # as a bots file's address


@dataclass(frozen=True)
class Slot:
    """A bot ``name`` the participant may submit a version of now (``bot``: None until its first)."""

    name: str
    bot: BotRow | None


def open_slot(state: ArenaState, me: Account, name: str) -> Slot:
    """Whether ``me`` may submit a version of bot ``name`` now: the deadline, the name, the queue."""
    cfg, store = state.cfg, state.store
    if deadline_passed(state) and not me.organiser:
        assert cfg.deadline is not None
        raise Forbidden(f"submissions closed at the deadline, {cfg.deadline.isoformat()}")
    try:
        check_name(name)
    except RegistryError as e:
        raise BadRequest(str(e)) from None
    existing = store.bot(name)
    # Taken: another's bot, a house bot, or an alias (another's bot's, or a user's).
    if (
        existing is None
        and store.alias_taken(name)
        or existing is not None
        and (existing.owner_id != me.id or existing.house)
    ):
        if shown_bot(state, me, name) is None:
            raise not_shown(name)  # as reading it answers: an anonymous board's names stay unknown
        if existing is not None and existing.house:
            raise Forbidden(f"bot {name!r} is a house bot")
        raise Forbidden(f"bot {name!r} is another participant's: choose another name")
    waiting = [v for v in store.versions_in(WAITING) if v.submitted_by == me.id]
    if len(waiting) >= MAX_WAITING and not me.organiser:
        # One participant's flood must not hold everyone's versions back: the pipeline takes one at a time.
        raise TooMany(
            f"you have {len(waiting)} versions waiting to be built and validated (at most {MAX_WAITING}): "
            "wait for their reports, then submit again"
        )
    return Slot(name, existing)


def _bot_id(state: ArenaState, me: Account, slot: Slot) -> int:
    store = state.store
    return slot.bot.id if slot.bot is not None else store.add_bot(slot.name, me.id, new_alias(store, slot.name))


async def submit_hosted(state: ArenaState, me: Account, slot: Slot, address: object) -> VersionRow:
    """A version that is the address of a bot ``me`` hosts (``HOST:PORT``; a local one only where
    arena.toml allows it, or for an organiser)."""
    if not isinstance(address, str) or not _HOST_PORT.fullmatch(address):
        raise BadRequest(HOSTED_HINT)
    if not state.cfg.limits.allow_local_addresses and not me.organiser:
        try:
            await asyncio.to_thread(pin, address, resolve=state.resolve)
        except AddressRefused as e:
            raise BadRequest(str(e)) from None
    return state.store.add_version(_bot_id(state, me, slot), me.id, kind="address", address=address)


async def submit_archive(state: ArenaState, me: Account, slot: Slot, data: bytes) -> VersionRow:
    """A version unpacked from a .zip (checked before anything is written; within ``me``'s quota),
    pending for the pipeline once its directory is in place."""
    cfg, store = state.cfg, state.store
    limit = cfg.limits.max_archive_bytes
    if len(data) > limit:
        raise TooLarge(f"the archive is {len(data)} bytes; this arena takes at most {limit}")
    try:
        checked = check_archive(data, cfg.limits)
    except ArchiveError as e:
        raise BadRequest(str(e)) from None
    if not me.organiser:
        await _within_quota(state, me, checked.size + checked.unpacked)
    bot_id = _bot_id(state, me, slot)
    staging = state.dir / "versions" / slot.name / f".incoming-{checked.sha256[:16]}"
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(staging)
    try:
        await asyncio.to_thread(unpack, data, checked, staging, cfg.limits)
    except ArchiveError as e:
        raise BadRequest(str(e)) from None
    (staging.parent / f".{checked.sha256[:16]}.zip").write_bytes(data)
    v = store.add_version(
        bot_id,
        me.id,
        status=VersionStatus.UPLOADING,  # not picked up by the pipeline before its directory is in place
        kind="archive",
        content_hash=checked.sha256,
        size=checked.size,
        files=checked.files,
        command=checked.manifest.command,
        build=checked.manifest.build,
        language=checked.manifest.language,
    )
    final_dir = state.dir / "versions" / slot.name / str(v.number)
    staging.rename(final_dir)  # the version's directory, never written again
    (staging.parent / f".{checked.sha256[:16]}.zip").rename(final_dir.with_suffix(".zip"))
    store.set_uploaded(v.id, str(final_dir.resolve()))
    return store.version_by_id(v.id) or v


async def submit(
    state: ArenaState, me: Account, name: str, *, archive: bytes | None = None, address: str | None = None
) -> VersionRow:
    """A new version of ``me``'s bot ``name``: ``archive`` (a .zip's bytes) or ``address`` (a bot
    ``me`` hosts); a ``Refused`` names what is wrong."""
    slot = open_slot(state, me, name)
    if archive is not None:
        return await submit_archive(state, me, slot, archive)
    return await submit_hosted(state, me, slot, address)


async def _within_quota(state: ArenaState, me: Account, more: int) -> None:
    """Refused if ``more`` bytes would take the participant's versions past ``max_stored_bytes``: one
    participant's uploads cannot fill the disk everyone's bots and matches are kept on."""
    store, quota = state.store, state.cfg.limits.max_stored_bytes
    dirs = [Path(v.path) for b in store.bots() if b.owner_id == me.id for v in store.versions(b.name) if v.path]
    used = await asyncio.to_thread(stored_bytes, dirs)
    if used + more > quota:
        raise TooLarge(
            f"your versions take {used} bytes and this one {more} more: each participant may keep {quota} "
            "bytes in this arena. Ask the organiser to raise [submissions] max_stored_bytes"
        )


# -- the organiser's -----------------------------------------------------------------------------------


def _organiser(me: Account) -> None:
    if not me.organiser:
        raise Forbidden("this needs an organiser's token")


async def pause(state: ArenaState, me: Account) -> dict[str, bool]:
    """Pause the ladder between matches."""
    _organiser(me)
    state.store.set_meta("paused", "1")
    return {"paused": True}


async def resume(state: ArenaState, me: Account) -> dict[str, bool]:
    """Resume the ladder."""
    _organiser(me)
    state.store.set_meta("paused", "0")
    return {"paused": False}


async def reveal(state: ArenaState, me: Account) -> dict[str, bool]:
    """End anonymity: every bot by its name, for everyone."""
    _organiser(me)
    state.store.set_meta("revealed", "1")
    return {"revealed": True}


async def final(state: ArenaState, me: Account) -> dict[str, int]:
    """Start the final tournament (once)."""
    _organiser(me)
    try:
        # In a thread: a hosted bot's name is resolved, and its DNS may be slow on purpose.
        tid = await asyncio.to_thread(lambda: start_final(state.store, state.cfg, resolve=state.resolve))
    except ValueError as e:
        raise NotNow(str(e)) from None
    return {"final_tournament": tid}
