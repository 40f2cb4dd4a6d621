"""The people's table on the web: a Starlette app on 127.0.0.1 that shows each person one ``HumanSeat``.

``table_app(table)`` serves the page (``static/``), pushes a seat's events to it as server-sent
events (``GET /events``, one ``data:`` line of JSON each, with its ``id:`` so that a page that
reconnects resumes where it was), and takes that person's answers (``POST /answer``), their start
(``POST /start``) and their next deal (``POST /deal``). Nothing is polled, and nothing of the match
reaches a page but its seat's events: what a bot in that seat would be sent.

Each person has a key of their own, and the key is what says whose seat a request is for: a page
holding one person's key reads only that seat's events and answers only for that seat (no request
names a seat), so one person's page can neither see nor act for another's.

Everything that comes in is hostile: another program on this machine, or a web page the person's
browser shows, may try the port. So every request must name this server in its ``Host`` (a page of
another site that rebinds its name to 127.0.0.1 does not), every request but the page's own files
carries a person's key (a random token in the address ``hearts play`` prints, which no other page
can read), and every ``POST`` is JSON from this server's own origin, at most ``MAX_BODY`` bytes.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from referee.human import AnswerRefused, HumanSeat

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 16 * 1024
"""The largest request body taken: an answer is a few hundred bytes."""
MAX_PAGES = 8
"""Pages that may follow one person's seat at once (each holds one stream): per person, so that one
person's key cannot crowd another person out."""
KEEPALIVE_S = 15.0
"""A comment line every so often on a quiet stream, so that a page that has gone is noticed."""
KEY_HEADER = "X-Table-Key"

# The page runs only its own script and style, talks only to this server, and is never framed.
_PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


class Table:
    """The people at one table: each person's seat and the key their page must show, who has asked
    to start, and what was sent. Person ``i`` is ``seats[i]`` with ``keys[i]``."""

    def __init__(self, *seats: HumanSeat, keys: Sequence[str] | None = None) -> None:
        if not seats:
            raise ValueError("a table seats at least one person")
        if keys is not None and len(keys) != len(seats):
            raise ValueError(f"{len(keys)} keys for {len(seats)} people")
        self.seats = seats
        self.keys = tuple(keys) if keys is not None else tuple(secrets.token_urlsafe(24) for _ in seats)
        if len(set(self.keys)) != len(self.keys):
            raise ValueError("each person needs a key of their own")
        self.port = 0  # set once the server listens
        self.start = asyncio.Event()  # every person asked to start (Space or Enter)
        self.started: set[int] = set()  # the people who asked so far
        self.pages = [0] * len(seats)  # streams open now, by person
        self.bytes_sent = 0  # event bytes written to the pages, all streams together
        self.delivered = [0] * len(seats)  # the highest event number a page of each person has been sent
        self.closing = False  # the sitting is over: each stream ends once it has sent everything

    def ask_to_start(self, person: int) -> None:
        """Person ``person`` is ready; the match starts once everyone is. Each person is told who is
        still awaited (names only: who sits where is public). Asking again tells nobody anything."""
        if person in self.started:
            return
        self.started.add(person)
        if len(self.started) == len(self.seats):
            self.start.set()
        if len(self.seats) > 1:
            for i in range(len(self.seats)):
                self.seats[i].tell({"type": "awaiting", **self.awaiting(i)})

    def awaiting(self, person: int) -> dict[str, Any]:
        """What person ``person``'s page says before the match: whether they asked to start, and the
        others not yet ready."""
        others = [i for i in range(len(self.seats)) if i != person and i not in self.started]
        return {
            "people": len(self.seats),
            "started": person in self.started,
            "others": [self.seats[i].name or f"person {i + 1}" for i in others],
        }

    def close(self) -> None:
        """End the streams once they have sent every event (the last one says the table closed)."""
        self.closing = True
        for seat in self.seats:
            seat.tell({"type": "closed"})

    @property
    def urls(self) -> list[str]:
        """Each person's address, with their key: what each of them opens (theirs only)."""
        return [f"http://127.0.0.1:{self.port}/?key={k}" for k in self.keys]

    def person(self, given: str) -> int | None:
        """Whose key ``given`` is (the person's number), or None. Every key is compared, each in
        constant time, so the time taken says nothing of which key came close."""
        found = None
        for i, k in enumerate(self.keys):
            if secrets.compare_digest(given.encode(), k.encode()):
                found = i
        return found

    def hosts(self) -> tuple[str, ...]:
        """The ``Host`` values a request to this server may carry (never a rebound name)."""
        return (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    def origins(self) -> tuple[str, ...]:
        """The origins a POST may come from: the table's own page."""
        return tuple(f"http://{h}" for h in self.hosts())


def last_event(request: Request) -> int:
    """The event a reconnecting page last had (``Last-Event-ID``, or ``?after=``): 0 for none."""
    text = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    return int(text) if text.isdigit() and len(text) < 10 else 0


def seat_stream(table: Table, person: int, after: int) -> AsyncIterator[bytes]:
    """Person ``person``'s seat's events after ``after``, as server-sent events (one ``data:`` line of
    JSON each, with its ``id:``), until the table closes and all are sent. The page is counted in
    ``table.pages`` and the seat joined from now until the stream ends."""
    seat = table.seats[person]
    table.pages[person] += 1
    seat.join()

    async def stream() -> AsyncIterator[bytes]:
        seen = min(after, len(seat.events))
        try:
            yield b"retry: 1000\n\n"
            while True:
                try:
                    batch = await asyncio.wait_for(seat.next_events(seen), KEEPALIVE_S)
                except TimeoutError:
                    yield b": still here\n\n"
                    continue
                out = b"".join(
                    b"id: %d\ndata: %s\n\n" % (e["seq"], json.dumps(e, separators=(",", ":")).encode()) for e in batch
                )
                seen = batch[-1]["seq"]
                table.bytes_sent += len(out)
                yield out
                table.delivered[person] = max(table.delivered[person], seen)
                if table.closing and seen >= len(seat.events):
                    return
        finally:
            table.pages[person] -= 1
            seat.leave()

    return stream()


def _refused(status: int, why: str) -> Response:
    return JSONResponse({"ok": False, "reason": why}, status_code=status, headers={"Cache-Control": "no-store"})


def _guarded(table: Table, *, key: bool = True, post: bool = False) -> Callable[..., Any]:
    """A route's checks before its handler: this server's own name, a person's key (whose it is goes
    to the handler as ``request.state.person``), and for a POST JSON from this server's own origin."""

    def wrap(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def guarded(request: Request) -> Response:
            if request.headers.get("host") not in table.hosts():
                return PlainTextResponse("this table answers to 127.0.0.1 only", status_code=421)
            if key:
                given = request.headers.get(KEY_HEADER) or request.query_params.get("key") or ""
                person = table.person(given)
                if person is None:
                    return _refused(403, "open the address hearts play printed: it holds the table's key")
                request.state.person = person
            if post:
                origin = request.headers.get("origin")
                if origin is not None and origin not in table.origins():
                    return _refused(403, "answers come from the table's own page")
                if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                    return _refused(415, "send JSON (Content-Type: application/json)")
            return await handler(request)

        return guarded

    return wrap


async def json_body(request: Request) -> Any:
    """The request's JSON, read no further than ``MAX_BODY`` bytes; ValueError past it or for no JSON."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise ValueError(f"a body of at most {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ValueError(f"a body of at most {MAX_BODY} bytes")
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError("the body is no JSON") from None


def table_app(table: Table) -> Starlette:
    """The app of one table (see the module's docstring)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "play.html", media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("play.js", "play.css"):
            return PlainTextResponse("no such file", status_code=404)
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return FileResponse(STATIC / name, media_type=f"{kind}; charset=utf-8", headers=_PAGE_HEADERS)

    async def events(request: Request) -> Response:
        person: int = request.state.person
        if table.pages[person] >= MAX_PAGES:
            return _refused(429, f"{MAX_PAGES} pages follow this seat already: close one")
        return StreamingResponse(
            seat_stream(table, person, last_event(request)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", "X-Content-Type-Options": "nosniff"},
        )

    async def answer(request: Request) -> Response:
        try:
            body = await json_body(request)
        except ValueError as e:
            return _refused(400, str(e))
        if not isinstance(body, dict):
            return _refused(400, 'send {"id": N, "answer": {...}}')
        try:
            table.seats[request.state.person].answer(body.get("id"), body.get("answer"))
        except AnswerRefused as e:
            return JSONResponse({"ok": False, "reason": e.reason, "rule": e.rule}, status_code=409)
        return JSONResponse({"ok": True})

    async def start(request: Request) -> Response:
        table.ask_to_start(request.state.person)
        return JSONResponse({"ok": True})

    async def deal(request: Request) -> Response:
        return JSONResponse({"ok": table.seats[request.state.person].deal_again()})

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)

    return Starlette(
        routes=[
            Route("/", _guarded(table, key=False)(page)),
            Route("/static/{name}", _guarded(table, key=False)(static)),
            Route("/favicon.ico", _guarded(table, key=False)(no_icon)),
            Route("/events", _guarded(table)(events)),
            Route("/answer", _guarded(table, post=True)(answer), methods=["POST"]),
            Route("/start", _guarded(table, post=True)(start), methods=["POST"]),
            Route("/deal", _guarded(table, post=True)(deal), methods=["POST"]),
        ]
    )
