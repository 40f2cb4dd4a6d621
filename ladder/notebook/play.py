"""``play``: one match, synchronously, among bots given as objects, names, addresses or module specs.

Every seat becomes the referee's seat that the rest of the harness uses for it: a bot object (or a
sample bot, or ``pkg.mod:Class``) an ``SdkSeat`` played in this process, an address a ``GrpcSeat``.
The match is ``referee.match.play_match``'s, so its judge, clocks, faults and record are a
tournament's. Where an event loop is running already (a Jupyter cell runs in one), the match runs
on a loop of its own in a worker thread while the caller waits: asyncio lets one thread run one loop.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from clients.bots import BOTS, make_bot
from ladder.bots.inprocess import BotModule, SdkSeat, is_module_spec
from ladder.ratings.leaderboard import Leaderboard, compute_leaderboard, load_leaderboard, rated_match, ruleset_text
from ladder.store import Store, canonical_rules
from referee.isolation import Isolation
from referee.match import play_match
from referee.record import MatchRecord, MatchStatus
from referee.rules import Rules
from referee.seats import GrpcSeat, Seat, SeatUnreachable, reach, unreachable_message
from referee.settings import MatchSettings

__all__ = ["SeatSpec", "leaderboard", "play"]

T = TypeVar("T")

SeatSpec = Any
"""What ``play`` seats: a bot object (anything with ``pass_cards(view)`` and ``play_card(view)``, an SDK
``Bot`` or not) or its class, a sample bot's name (``"random"``...), ``"HOST:PORT"`` or ``"unix:PATH"``
(a bot served there) or ``"pkg.mod:Class"`` (imported and played in this process)."""

REACH_TIMEOUT_S = 3.0


def play(
    seats: Sequence[SeatSpec],
    rules: str | Rules = "standard",
    seed: int | None = None,
    *,
    names: Sequence[str] | None = None,
    settings: MatchSettings | None = None,
    db: str | Path | None = None,
) -> MatchRecord:
    """Play one match among ``seats`` (in seat order, as many as the rules' players) and return its record.

    ``rules`` is a ``--rules`` text (``"spot"``, ``"standard,target=50"``) or a ``Rules``; ``seed``
    deals the cards (random when None; the record keeps it) and seeds each sample ``random`` bot (from
    the match seed and its seat), so the same seed and the same bots play the same match.
    ``names`` are the bots' names in the record (default: a sample bot's name, an object's
    handshake name: ``Bot.name``, else its class's name; a served bot's own handshake name).
    ``settings`` are the match's clock and fault policy (``MatchSettings``; the default is a
    tournament's). ``db``: a store file (created if need be) the record is saved to, as
    ``hearts match --db`` saves one; ``hearts replay`` and ``hearts ladder`` read it.

    Works inside a running event loop (Jupyter's), on a loop of its own in a worker thread. A bot's
    failures are faults in the record, as in any match; ``ValueError`` (``BotModuleError`` among them)
    for a seat that names no bot or the wrong number of seats or names, ``TypeError`` for an object
    that is no bot, ``SeatUnreachable`` when a served bot does not answer its handshake.
    """
    r = rules if isinstance(rules, Rules) else Rules.parse(rules)
    if len(seats) != r.players:
        raise ValueError(f"the rules ({r}) need {r.players} seats, not {len(seats)}")
    if names is not None and len(names) != len(seats):
        raise ValueError(f"{len(names)} names for {len(seats)} seats")
    seed = seed if seed is not None else secrets.randbelow(2**31)
    chairs = [_seat(spec, i, seed, names[i] if names is not None else None) for i, spec in enumerate(seats)]
    store = Store(db) if db is not None else None  # opened before playing: a match that cannot be saved is lost
    try:
        record = _run(lambda: _play(chairs, r, seed, settings, names))
        if store is not None:
            store.save_match(record)
    finally:
        if store is not None:
            store.close()
    return record


def _bot_seed(seed: int, seat: int) -> int:
    """A sample bot's own seed, from the match's and its seat: the same match plays the same bots."""
    return random.Random(f"hearts-arena play {seed} seat {seat}").getrandbits(63)


def _is_address(text: str) -> bool:
    host, colon, port = text.rpartition(":")
    return text.startswith("unix:") or (bool(colon) and bool(host) and port.isdigit())


def _seat(spec: SeatSpec, seat: int, seed: int, name: str | None) -> Seat:
    if isinstance(spec, str):
        text = spec.strip()
        if text in BOTS:
            return SdkSeat(make_bot(text, seed=_bot_seed(seed, seat)), name or text)
        if is_module_spec(text):
            return SdkSeat(BotModule.parse(text).load(), name)
        if _is_address(text):
            return GrpcSeat(text, name, isolation=Isolation("remote"))
        raise ValueError(
            f"seat {seat}: {spec!r} names no bot: give a bot object, a sample bot ({', '.join(BOTS)}), "
            "HOST:PORT or pkg.mod:Class"
        )
    if isinstance(spec, type):  # a bot class: an object of it, as a pkg.mod:Class spec makes one
        spec = spec()
    try:
        return SdkSeat(spec, name)
    except TypeError as e:
        raise TypeError(f"seat {seat}: {e}") from None


async def _play(
    seats: list[Seat], rules: Rules, seed: int, settings: MatchSettings | None, names: Sequence[str] | None
) -> MatchRecord:
    try:
        served = [s for s in seats if isinstance(s, GrpcSeat)]
        if served:  # as hearts match does: a bot that is not there is said plainly, before the match
            problems, missing = [], []
            for chair, error in zip(served, await reach(served, REACH_TIMEOUT_S)):
                address = chair.address or ""
                message = unreachable_message(chair.name or address, address, error) if error is not None else None
                if message is not None:
                    problems.append(message)
                    missing.append(address)
            if problems:
                raise SeatUnreachable("\n".join(problems), missing)
        return await play_match(seats, rules, seed, settings=settings, names=names)
    finally:
        for s in seats:
            await s.close()


def _run(make: Callable[[], Awaitable[T]]) -> T:
    """``make()`` run to its end on a new event loop: in this thread, or in a worker thread while this
    one waits when this thread runs a loop already (Jupyter's)."""

    async def main() -> T:
        return await make()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hearts-play") as pool:
        return pool.submit(asyncio.run, main()).result()


def leaderboard(matches: Iterable[MatchRecord] | str | Path, *, rules: str | Rules | None = None) -> Leaderboard:
    """The ladder of ``matches``: records (``play``'s, of one ruleset; those that did not finish are left
    out), or a store file (``play(..., db=...)``'s), rated as ``hearts ladder`` rates it (``rules``: which
    ruleset; by default its latest). ``ValueError`` for records of several rulesets: a ladder rates one."""
    if isinstance(matches, str | Path):
        with Store(matches, readonly=True) as store:
            return load_leaderboard(store, rules=rules)
    records = [m for m in matches if MatchStatus(m.status) is MatchStatus.FINISHED]
    if rules is not None:
        wanted = str(rules if isinstance(rules, Rules) else Rules.parse(rules))
        records = [m for m in records if canonical_rules(m.rules) == wanted]
    kinds = {canonical_rules(m.rules) for m in records}
    if len(kinds) > 1:
        raise ValueError(
            f"the records are of {len(kinds)} rulesets ({', '.join(sorted(kinds))}): a ladder rates one; give rules=..."
        )
    lb = compute_leaderboard(rated_match(m) for m in records)
    lb.rules = ruleset_text(records[0].rules) if records else None
    return lb
