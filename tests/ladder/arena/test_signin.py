"""Sign-in under a flood of wrong tokens, through the real arena app (the API and the site) served by
a real uvicorn on a free port, spoken to over real HTTP from distinct loopback addresses (127.0.0.N,
each its own client to the server). The token check is held on an event the test controls, so what
answers while checks wait, and in which order the checks run, is counted, never timed."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from ladder.arena import accounts
from ladder.arena.accounts import MAX_FAILURES, add_user
from ladder.arena.app import ArenaState, build_app
from ladder.arena.config import ArenaConfig
from ladder.arena.store import ArenaStore

pytestmark = pytest.mark.slow  # whole processes and servers

PATIENCE_S = 60.0  # how long a step may take before the test gives up on it (it never waits this long)


class HeldChecks:
    """A stand-in for scrypt that the test holds: each check is recorded in order, waits for
    ``gate``, and is the real check only for the tokens in ``real`` (every other token is wrong)."""

    def __init__(self, real: set[str]) -> None:
        self.real, self.order, self.gate = real, list[str](), threading.Event()
        self.inside = self.most = 0
        self._lock = threading.Lock()
        self._check = accounts._check
        self.gate.set()

    def __call__(self, token: str, stored: str) -> bool:
        with self._lock:
            self.order.append(token)
            self.inside += 1
            self.most = max(self.most, self.inside)
        try:
            self.gate.wait(PATIENCE_S)
            return token in self.real and self._check(token, stored)
        finally:
            with self._lock:
                self.inside -= 1


class Arrivals:
    """``app`` counting the sign-ins (``/api/me`` and the sign-in form's POSTs) from ``addresses``
    that reached it: the test sees the server hold each, whatever the server does with it."""

    def __init__(self, app: Any, addresses: list[str]) -> None:
        self.app, self.addresses, self.count = app, set(addresses), 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["client"][0] in self.addresses:
            self.count += scope["path"] == "/api/me" or scope["method"] == "POST"
        await self.app(scope, receive, send)


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 and a free port, in a thread: its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(PATIENCE_S)


def client(url: str, address: str, token: str | None = None) -> httpx.AsyncClient:
    """An HTTP client whose requests come from ``address`` (a loopback address: 127.0.0.N)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=url, headers=headers, transport=transport, timeout=PATIENCE_S)


async def sign_in_form(c: httpx.AsyncClient, token: str) -> httpx.Response:
    """The site's sign-in form, as a browser sends it (its CSRF cookie first)."""
    if "hearts_csrf" not in c.cookies:
        await c.get("/signin")
    return await c.post("/signin", data={"token": token, "csrf": c.cookies["hearts_csrf"]}, follow_redirects=False)


async def until(what: str, ready: Callable[[], bool]) -> None:
    """Wait for ``ready()``, looking again every few milliseconds (the test never needs ``PATIENCE_S``)."""
    deadline = time.monotonic() + PATIENCE_S
    while not ready():
        assert time.monotonic() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.005)


def arena(tmp_path: Path, *names: str) -> tuple[Any, dict[str, tuple[int, str]]]:
    """The real arena app (the site mounted, no ladder running) with users ``names``: their ids and tokens."""
    store = ArenaStore(tmp_path / "arena.db")
    users = {n: add_user(store, n) for n in names}
    store.close()
    return build_app(tmp_path, ArenaConfig(), background=False), {n: (a.id, t) for n, (a, t) in users.items()}


def test_wrong_tokens_wait_their_turn_and_hold_up_no_page_no_verified_token_and_no_other_sign_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 wrong tokens from 6 addresses (each within its limit; half by the API, half by the site's
    form) are queued for the one check thread. While it is held: the leaderboard (API and page), a
    signed-in page and a verified token answer; a valid first sign-in from a 7th address is checked
    after one check of each other address, before the 50 later wrong ones, and succeeds; the full
    queue answers 429 with Retry-After at once; a newcomer's check takes the place of a flooder's."""
    app, users = arena(tmp_path, "alice", "bob", "carol")
    alice, bob, carol = (users[n][1] for n in ("alice", "bob", "carol"))
    held = HeldChecks(real={alice, bob})
    monkeypatch.setattr(accounts, "_check", held)
    state: ArenaState = app.state.arena
    flooders = [f"127.0.0.{n}" for n in range(2, 8)]
    arrived = Arrivals(app, flooders)

    async def scenario(url: str) -> None:
        seen = client(url, "127.0.0.1", bob)
        assert (await seen.get("/api/me")).json()["name"] == "bob"  # verified: remembered from now on
        session = client(url, "127.0.0.1")
        assert (await sign_in_form(session, bob)).status_code == 303  # a signed-in session
        visitor = client(url, "127.0.0.1")
        checks_before = len(held.order)
        held.gate.clear()

        flood: list[asyncio.Task[httpx.Response]] = []
        by_address: dict[str, list[asyncio.Task[httpx.Response]]] = {a: [] for a in flooders}
        for k, address in enumerate(flooders):
            c = client(url, address)
            if k >= 3:
                await c.get("/signin")  # its CSRF cookie, as a browser has it
            for i in range(MAX_FAILURES):
                guess = f"{users['carol'][0]}.guess-{k}-{i}"
                call: Awaitable[httpx.Response] = (
                    c.get("/api/me", headers={"Authorization": f"Bearer {guess}"}) if k < 3 else sign_in_form(c, guess)
                )
                task = asyncio.ensure_future(call)
                flood.append(task)
                by_address[address].append(task)
        await until("every wrong token reached the arena", lambda: arrived.count == len(flood))
        await until("a wrong token is being checked", lambda: len(held.order) == checks_before + 1)

        # Nothing that needs no check waits for one.
        r = await seen.get("/api/leaderboard")
        assert r.status_code == 200 and r.json()["board"] == "ladder"
        assert (await seen.get("/api/me")).json()["name"] == "bob"
        r = await visitor.get("/")
        assert r.status_code == 200 and "Leaderboard" in r.text
        r = await session.get("/me", follow_redirects=False)
        assert r.status_code == 200 and "Your bots" in r.text
        assert len(held.order) == checks_before + 1, "none of them cost a check"

        await until("the other wrong tokens wait", lambda: state.guard.checks.waiting() == len(flood) - 1)
        newcomer = client(url, "127.0.0.8")
        first = asyncio.ensure_future(sign_in_form(newcomer, alice))
        await until("the valid sign-in waits", lambda: state.guard.checks.waiting() == len(flood))

        # The queue's bound: filled from a 9th address, then one more from a flooder is refused at once.
        filler = client(url, "127.0.0.9")
        extra = [
            asyncio.ensure_future(filler.get("/api/me", headers={"Authorization": f"Bearer {carol}x{i}"}))
            for i in range(accounts.MAX_WAITING - len(flood))
        ]
        await until("the queue is full", lambda: state.guard.checks.waiting() == accounts.MAX_WAITING)
        c = client(url, flooders[1])
        r = await c.get("/api/me", headers={"Authorization": f"Bearer {carol}-one-more"})
        assert r.status_code == 429 and "checking too many tokens" in r.json()["error"], r.text
        assert int(r.headers["Retry-After"]) >= 1 and r.json()["retry_after_s"] == int(r.headers["Retry-After"])
        assert len(held.order) == checks_before + 1
        # A 10th address gets a place all the same: the newest check of an address holding the most goes.
        late = client(url, "127.0.0.10")
        last = asyncio.ensure_future(late.get("/api/me", headers={"Authorization": f"Bearer {carol}-late"}))
        await until("one flooder's newest check gave its place", lambda: any(t.done() for t in flood))
        (evicted,) = [t for t in flood if t.done()]
        assert evicted.result().status_code == 429 and "Retry-After" in evicted.result().headers
        (robbed,) = [a for a, ts in by_address.items() if evicted in ts]
        assert state.guard.checks.waiting() == accounts.MAX_WAITING

        held.gate.set()
        signed_in = await first
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/me", signed_in.text
        answers = await asyncio.gather(*flood)
        assert sorted(r.status_code for r in answers) == [401] * (len(flood) - 1) + [429]
        assert {r.status_code for r in await asyncio.gather(*extra, last)} == {401}

        checked = held.order[checks_before:]
        turn = checked.index(alice)
        assert turn <= len(flooders) + 1, f"checked after {turn} others: {checked[:turn]}"
        assert sum(1 for t in checked[turn:] if "guess" in t) >= len(flood) - 10
        assert held.most == 1, "one check at a time"

        # The per-address limit still holds: a flooder's next unverified token is refused unchecked...
        c = client(url, next(a for a in flooders if a != robbed))  # one whose 10 wrong tokens were all checked
        r = await c.get("/api/me", headers={"Authorization": f"Bearer {carol}"})
        assert r.status_code == 429 and "too many wrong tokens" in r.json()["error"]
        assert len(held.order) == checks_before + len(checked)
        # ...and a token verified before passes from there.
        r = await c.get("/api/me", headers={"Authorization": f"Bearer {alice}"})
        assert r.json()["name"] == "alice"

    with served(arrived) as url:
        try:
            asyncio.run(scenario(url))
        finally:
            held.gate.set()


def test_wrong_tokens_queued_past_an_address_s_limit_are_refused_unchecked_in_their_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One address sends more wrong tokens at once than its limit: they all pass the door (no failure
    is counted yet), but once its limit is reached the rest are refused (429) without a check."""
    app, users = arena(tmp_path, "carol")
    held = HeldChecks(real=set())
    monkeypatch.setattr(accounts, "_check", held)
    uid = users["carol"][0]
    arrived = Arrivals(app, ["127.0.0.2"])

    async def scenario(url: str) -> None:
        held.gate.clear()
        c = client(url, "127.0.0.2")
        burst = [
            asyncio.ensure_future(c.get("/api/me", headers={"Authorization": f"Bearer {uid}.burst{i}"}))
            for i in range(MAX_FAILURES + 5)
        ]
        await until("every token reached the arena", lambda: arrived.count == len(burst))
        await until("a check has started", lambda: len(held.order) == 1)
        held.gate.set()
        codes = [r.status_code for r in await asyncio.gather(*burst)]
        assert len(held.order) == MAX_FAILURES, f"{len(held.order)} checks for a limit of {MAX_FAILURES}"
        assert sorted(codes) == [401] * MAX_FAILURES + [429] * 5

    with served(arrived) as url:
        try:
            asyncio.run(scenario(url))
        finally:
            held.gate.set()


def test_a_malformed_token_is_refused_without_a_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A token's id is ASCII digits of a size SQLite holds: others are wrong tokens (401), not errors."""
    app, users = arena(tmp_path, "carol")
    held = HeldChecks(real=set())
    monkeypatch.setattr(accounts, "_check", held)
    secret = users["carol"][1].split(".", 1)[1]

    async def scenario(url: str) -> None:
        c = client(url, "127.0.0.2")
        for token in (b"9" * 5000 + b".x", b"99999999999999999999.x", b"\xb2." + secret.encode(), b"1." + b"x" * 300):
            r = await c.get("/api/me", headers={"Authorization": b"Bearer " + token})
            assert r.status_code == 401, (token[:30], r.text)
            r = await sign_in_form(c, token.decode("latin-1"))
            assert r.status_code == 401, (token[:30], r.text)
        assert held.order == []

    with served(app) as url:
        asyncio.run(scenario(url))


def test_retry_after_is_a_whole_number_of_seconds_on_the_sign_in_page(tmp_path: Path) -> None:
    """The site's 429 carries Retry-After as the API's does."""
    app, users = arena(tmp_path, "carol")
    uid = users["carol"][0]

    async def scenario(url: str) -> None:
        c = client(url, "127.0.0.2")
        for i in range(MAX_FAILURES):
            assert (await sign_in_form(c, f"{uid}.guess{i}")).status_code == 401
        r = await sign_in_form(c, users["carol"][1])
        assert r.status_code == 429 and "Too many wrong tokens" in r.text
        assert re.fullmatch(r"[1-9]\d*", r.headers["Retry-After"])

    with served(app) as url:
        asyncio.run(scenario(url))
