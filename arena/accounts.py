"""Participants, organisers and their tokens.

A token is ``USER_ID.SECRET`` (32 random bytes, URL-safe): it is shown once, when it is made, and
the arena keeps only its scrypt hash (``hashlib.scrypt``, a random salt per token). The id in front
finds the one hash to check, so a request costs one scrypt, and a verified token is remembered
(by its SHA-256, in memory only) so that a script's next request costs none.

Wrong tokens cost the arena a scrypt each, so they are bounded (``SignInGuard``): one scrypt at a
time in the whole process, and past ``MAX_FAILURES`` wrong tokens from one client address within
``FAILURE_WINDOW_S`` its unverified tokens are refused unchecked until the window has passed.
Guessing cannot then take the cores the ladder's matches are played on.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.store import ArenaStore, UserRow

__all__ = [
    "AccountError",
    "Account",
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
_scrypt_turn = threading.Lock()  # one check at a time, whatever the number of request threads


def authenticate(store: ArenaStore, token: str) -> Account | None:
    """The account of a token, or None for an unknown or wrong one."""
    head, _, secret = token.partition(".")
    if not head.isdigit() or not secret:
        return None
    user: UserRow | None = store.user(int(head))
    if user is None:
        return None
    key = hashlib.sha256(token.encode()).hexdigest()
    cached = _verified.get(key)
    # Remembered only while the stored hash is the one it matched: a new token revokes the old one.
    if not (cached is not None and cached == (user.id, user.token_hash)):
        with _scrypt_turn:
            if not _check(token, user.token_hash):
                return None
        _verified[key] = (user.id, user.token_hash)
    return Account(user.id, user.name, user.role, user.alias)


def remembered(token: str) -> bool:
    """Whether this process has verified ``token`` already (checking it again costs no scrypt)."""
    return hashlib.sha256(token.encode()).hexdigest() in _verified


MAX_FAILURES = 10
FAILURE_WINDOW_S = 60.0


class SignInLimited(Exception):
    """Too many wrong tokens from one client address: ``retry_after`` seconds until it may try again."""

    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"too many wrong tokens from your address: try again in {max(1, round(retry_after))} s "
            "(a token you have signed in with before still works)"
        )


class SignInGuard:
    """Wrong tokens counted by client address over a sliding window. Past ``max_failures`` the
    address's tokens this process has not verified are refused without a check (``SignInLimited``)
    until the oldest failure leaves the window; a token verified before still passes, so a
    classroom behind one address is not locked out by one student's guessing."""

    def __init__(
        self,
        max_failures: int = MAX_FAILURES,
        window_s: float = FAILURE_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_failures, self.window_s, self.clock = max_failures, window_s, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()  # requests are authenticated in worker threads

    def authenticate(self, store: ArenaStore, token: str, client: str) -> Account | None:
        """``authenticate`` for a request from ``client``: the account, None for a wrong token
        (counted), or ``SignInLimited`` for an address past its failures."""
        if not remembered(token):
            wait = self.retry_after(client)
            if wait is not None:
                raise SignInLimited(wait)
        account = authenticate(store, token)
        if account is None:
            with self._lock:
                self._failures.setdefault(client, deque()).append(self.clock())
        return account

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
