"""Participants, organisers and their tokens.

A token is ``USER_ID.SECRET`` (32 random bytes, URL-safe): it is shown once, when it is made, and
the arena keeps only its scrypt hash (``hashlib.scrypt``, a random salt per token). The id in front
finds the one hash to check, so a request costs one scrypt, and a verified token is remembered
(by its SHA-256, in memory only) so that a script's next request costs none.

Wrong tokens cost the arena a scrypt each, so they are bounded (``SignInGuard``): every check runs
on the ``CheckQueue``'s own threads (``CHECK_WORKERS``, one), at most ``MAX_WAITING`` wait for it, served
in turn by client address, and past ``MAX_FAILURES`` wrong tokens from one client address within
``FAILURE_WINDOW_S`` its unverified tokens are refused unchecked until the window has passed.
Guessing cannot then take the cores the ladder's matches are played on, nor the threads that
serve pages, nor stand in front of another address's sign-in.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import hmac
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ladder.arena.store import ArenaStore, UserRow

__all__ = [
    "AccountError",
    "Account",
    "CheckQueue",
    "SignInBusy",
    "SignInGuard",
    "SignInLimited",
    "add_user",
    "authenticate",
    "hash_token",
    "new_alias",
    "read_roster",
]

_N, _R, _P = 2**14, 8, 1  # scrypt's interactive-login parameters
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_ADJ = "amber azure brisk calm clever crimson daring eager gentle golden hidden jolly keen lucky mellow nimble".split()
_NOUN = "badger beaver crane falcon fox heron lynx marten otter owl panda raven robin seal tiger wolf".split()


class AccountError(ValueError):
    """A user that cannot be added or a roster that cannot be read: the message says which."""


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    role: str
    alias: str

    @property
    def organiser(self) -> bool:
        return self.role == "organiser"


def hash_token(token: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def _check(token: str, stored: str) -> bool:
    try:
        _kind, n, r, p, salt, digest = stored.split("$")
        got = hashlib.scrypt(token.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32)
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def new_alias(store: ArenaStore, seed: str) -> str:
    """An alias like ``keen-otter-3f`` not yet taken by a user or a bot."""
    while True:
        a = f"{secrets.choice(_ADJ)}-{secrets.choice(_NOUN)}-{secrets.token_hex(1)}"
        if not store.alias_taken(a):
            return a


def add_user(store: ArenaStore, name: str, *, organiser: bool = False) -> tuple[Account, str]:
    """Add a participant (or an organiser); returns the account and its token, which is shown once."""
    if not _NAME.match(name):
        raise AccountError(
            f"user name {name!r} is not allowed: letters, digits, '.', '_' and '-', starting with a letter or digit"
        )
    if store.user_by_name(name) is not None:
        raise AccountError(f"user {name!r} exists already (`hearts arena user token {name}` makes a new token)")
    alias = new_alias(store, name)
    uid = store.add_user(name, "organiser" if organiser else "participant", "", alias)
    token = f"{uid}.{secrets.token_urlsafe(32)}"
    store.set_token(uid, hash_token(token))
    return Account(uid, name, "organiser" if organiser else "participant", alias), token


def new_token(store: ArenaStore, name: str) -> str:
    """Replace a user's token (the old one stops working); returns the new one, shown once."""
    user = store.user_by_name(name)
    if user is None:
        raise AccountError(f"no user {name!r} in this arena (`hearts arena user list` lists them)")
    token = f"{user.id}.{secrets.token_urlsafe(32)}"
    store.set_token(user.id, hash_token(token))
    return token


_verified: dict[str, tuple[int, str]] = {}  # sha256(token) -> (user id, stored hash it matched)
_MAX_TOKEN = 256  # a token is ``ID.`` and 43 characters: anything longer is wrong, and not hashed


def _user_of(store: ArenaStore, token: str) -> UserRow | None:
    """The user a token names by its id in front (no check of its secret), or None."""
    head, _, secret = token.partition(".")
    # ASCII digits only, and few: int() refuses other digits and SQLite integers past 2**63.
    if not (0 < len(head) <= 18 and head.isascii() and head.isdigit()) or not secret or len(token) > _MAX_TOKEN:
        return None
    return store.user(int(head))


def _known(user: UserRow, token: str) -> bool:
    """Whether ``token`` was verified against ``user``'s stored hash as it is now (no scrypt)."""
    # Remembered only while the stored hash is the one it matched: a new token revokes the old one.
    return _verified.get(hashlib.sha256(token.encode()).hexdigest()) == (user.id, user.token_hash)


def _verify(user: UserRow, token: str) -> bool:
    """One scrypt: whether ``token`` matches ``user``'s stored hash (remembered when it does)."""
    if not _check(token, user.token_hash):
        return False
    _verified[hashlib.sha256(token.encode()).hexdigest()] = (user.id, user.token_hash)
    return True


def _account(user: UserRow) -> Account:
    return Account(user.id, user.name, user.role, user.alias)


def authenticate(store: ArenaStore, token: str) -> Account | None:
    """The account of a token, or None for an unknown or wrong one, checked in the caller's thread:
    for scripts and tests (a server goes through ``SignInGuard``, which bounds the checks)."""
    user = _user_of(store, token)
    if user is None or not (_known(user, token) or _verify(user, token)):
        return None
    return _account(user)


MAX_FAILURES = 10
FAILURE_WINDOW_S = 60.0
CHECK_WORKERS = 1
"""Threads that run scrypt checks, for the whole process: wrong tokens take at most this many cores."""
MAX_WAITING = 64
"""Checks that may wait for a check thread at once; past it a sign-in is answered 429 at once."""


class SignInLimited(Exception):
    """Too many wrong tokens from one client address: ``retry_after`` seconds until it may try again."""

    def __init__(self, retry_after: float, message: str | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(
            message
            or f"too many wrong tokens from your address: try again in {max(1, round(retry_after))} s "
            "(a token you have signed in with before still works)"
        )


class SignInBusy(SignInLimited):
    """Every place in the queue of token checks is taken: ``retry_after`` seconds until it may try again."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(
            retry_after,
            f"the arena is checking too many tokens at once: try again in {max(1, round(retry_after))} s "
            "(a token you have signed in with before still works, and so does a signed-in session)",
        )


T = TypeVar("T")


@dataclass
class _Job:
    client: str
    run: Callable[[], Any]
    future: Future[Any]


class CheckQueue:
    """The process's budget of token checks: ``workers`` threads of its own run them, so wrong
    tokens take at most that many cores and never a thread that serves requests. At most
    ``max_waiting`` checks wait; they are served in turn by client address (one of each address
    waiting, then again), so one address's flood never stands in front of another's sign-in. When
    every place is taken, a newcomer takes the newest place of the address holding the most, if that
    address would still hold more than the newcomer's; else it is refused (``SignInBusy``)."""

    def __init__(self, workers: int = CHECK_WORKERS, max_waiting: int = MAX_WAITING) -> None:
        self.workers, self.max_waiting = workers, max_waiting
        self._waiting: dict[str, deque[_Job]] = {}  # by client address, oldest first
        self._turns: deque[str] = deque()  # the addresses with checks waiting, next to be served first
        self._count = 0
        self._running = 0  # threads: started when checks wait, ended when none do
        self._check_s = 0.05  # a check's duration, as measured (for Retry-After)
        self._lock = threading.Lock()

    def submit(self, client: str, run: Callable[[], T]) -> Future[T]:
        """Queue ``run`` (a check) for ``client``: its future, or ``SignInBusy`` when no place is left."""
        job = _Job(client, run, Future())
        with self._lock:
            if self._count >= self.max_waiting:
                self._evict_for(client)
            self._waiting.setdefault(client, deque()).append(job)
            if len(self._waiting[client]) == 1:
                self._turns.append(client)
            self._count += 1
            if self._running < self.workers:
                self._running += 1
                threading.Thread(target=self._work, name="token-checks", daemon=True).start()
        return job.future

    async def run(self, client: str, check: Callable[[], T]) -> T:
        """``check`` run in its turn on a check thread; awaiting it holds no thread."""
        return await asyncio.wrap_future(self.submit(client, check))

    def waiting(self) -> int:
        """Checks queued and not yet started."""
        with self._lock:
            return self._count

    def _retry_after(self) -> float:
        return max(1.0, self._count * self._check_s / self.workers)

    def _evict_for(self, client: str) -> None:
        """Make a place for ``client`` in a full queue (under the lock), or raise ``SignInBusy``."""
        mine = len(self._waiting.get(client, ()))
        most = max(self._waiting, key=lambda c: len(self._waiting[c]))
        if len(self._waiting[most]) <= mine + 1:
            raise SignInBusy(self._retry_after())
        victim = self._waiting[most].pop()
        self._count -= 1
        if victim.future.set_running_or_notify_cancel():
            victim.future.set_exception(SignInBusy(self._retry_after()))

    def _take(self) -> _Job | None:
        """The next check in turn (under the lock), or None when none waits."""
        if not self._turns:
            return None
        client = self._turns.popleft()
        queue = self._waiting[client]
        job = queue.popleft()
        if queue:
            self._turns.append(client)
        else:
            del self._waiting[client]
        self._count -= 1
        return job

    def _work(self) -> None:
        while True:
            with self._lock:
                job = self._take()
                if job is None:
                    self._running -= 1
                    return
            if not job.future.set_running_or_notify_cancel():
                continue  # its request has gone
            started = time.monotonic()
            try:
                result = job.run()
            except BaseException as e:  # the request's to answer, whatever it is
                job.future.set_exception(e)
            else:
                job.future.set_result(result)
            self._check_s = 0.8 * self._check_s + 0.2 * (time.monotonic() - started)


class SignInGuard:
    """Wrong tokens counted by client address over a sliding window, and every scrypt check run in
    the ``CheckQueue``. Past ``max_failures`` the address's tokens this process has not verified
    are refused without a check (``SignInLimited``) until the oldest failure leaves the window; a
    token verified before still passes, so a classroom behind one address is not locked out by one
    student's guessing. A verified token costs no check and never waits for one."""

    def __init__(
        self,
        max_failures: int = MAX_FAILURES,
        window_s: float = FAILURE_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
        checks: CheckQueue | None = None,
    ) -> None:
        self.max_failures, self.window_s, self.clock = max_failures, window_s, clock
        self.checks = checks if checks is not None else CheckQueue()
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()  # failures are counted on the check threads

    async def authenticate(self, store: ArenaStore, token: str, client: str) -> Account | None:
        """The account of a request's token from ``client``: None for a wrong token (counted), or
        ``SignInLimited`` for an address past its failures (``SignInBusy`` for a full queue).
        A token verified before is answered at once, in the caller's thread."""
        user = _user_of(store, token)
        if user is not None and _known(user, token):
            return _account(user)
        self._refuse_if_limited(client)
        if user is None:
            self._failed(client)
            return None
        if not await self.checks.run(client, lambda: self._check_in_turn(user, token, client)):
            return None
        return _account(user)

    def _check_in_turn(self, user: UserRow, token: str, client: str) -> bool:
        """The check, on a check thread, once its turn has come."""
        if _known(user, token):
            return True  # the same token, checked while this one waited
        self._refuse_if_limited(client)  # failures that came in while it waited count: no scrypt
        if _verify(user, token):
            return True
        self._failed(client)
        return False

    def _refuse_if_limited(self, client: str) -> None:
        wait = self.retry_after(client)
        if wait is not None:
            raise SignInLimited(wait)

    def _failed(self, client: str) -> None:
        with self._lock:
            self._failures.setdefault(client, deque()).append(self.clock())

    def retry_after(self, client: str) -> float | None:
        """Seconds until ``client`` may try an unverified token again; None if it may now."""
        now = self.clock()
        with self._lock:
            times = self._failures.get(client)
            if times is None:
                return None
            while times and times[0] <= now - self.window_s:
                times.popleft()
            if not times:
                del self._failures[client]
                return None
            if len(times) < self.max_failures:
                return None
            return times[0] + self.window_s - now


def read_roster(path: Path) -> list[str]:
    """The names of a class roster: a CSV whose column ``name`` (or else its first column) names each participant."""
    try:
        rows = list(csv.reader(path.read_text().splitlines()))
    except OSError as e:
        raise AccountError(f"roster {path}: {e.strerror}") from None
    if not rows:
        raise AccountError(f"roster {path}: the file is empty")
    header = [h.strip().lower() for h in rows[0]]
    col = header.index("name") if "name" in header else 0
    body = rows[1:] if "name" in header else rows
    names = [r[col].strip() for r in body if len(r) > col and r[col].strip()]
    if not names:
        raise AccountError(f"roster {path}: no names (a column 'name', or names in the first column)")
    return names
