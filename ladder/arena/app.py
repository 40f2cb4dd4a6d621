"""The arena's HTTP API (Starlette): JSON for the web site and for scripts. See docs/arena.md.

Every endpoint needs ``Authorization: Bearer TOKEN`` (401 without one or for a wrong one); a
participant acts only on their own bots (403 otherwise), organiser actions need an organiser's
token (403). The handlers only translate: what a viewer sees is ``ladder.arena.views`` (anonymity,
withheld matches, hidden addresses), what a participant or organiser does is ``ladder.arena.actions``,
and their refusals (``ladder.arena.errors``) are answered with their HTTP status (``http_status``).
Everything a bot controls (its handshake name, its errors, its log) is returned as JSON data, never
as markup.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ladder.arena import actions, asking, views
from ladder.arena.accounts import Account, SignInLimited
from ladder.arena.config import ArenaConfig
from ladder.arena.errors import BadRequest, Forbidden, NotFound, NotNow, Refused, TooLarge, TooMany
from ladder.arena.hosted_address import Resolve, resolve_host
from ladder.arena.state import ArenaState
from ladder.arena.store import WAITING
from ladder.arena.worker import ArenaWorker, Ratings, ladder_tournament, start_final

__all__ = ["ArenaState", "build_app", "http_status"]


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


_STATUS: dict[type[Refused], int] = {
    NotFound: 404,
    Forbidden: 403,
    NotNow: 409,
    BadRequest: 400,
    TooMany: 429,
    TooLarge: 413,
}


def http_status(refused: Refused) -> int:
    """The HTTP status that answers an arena's refusal."""
    return next((code for kind, code in _STATUS.items() if isinstance(refused, kind)), 400)


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"X-Content-Type-Options": "nosniff"})


Handler = Callable[[Request, ArenaState, Account], Awaitable[Any]]


def _endpoint(handler: Handler, *, organiser: bool = False) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        state: ArenaState = request.app.state.arena
        try:
            header = request.headers.get("authorization", "")
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise ApiError(401, "no token: send Authorization: Bearer TOKEN (the organiser gave you one)")
            try:
                # Not in a thread: a verified token is answered at once, and a check waits in the
                # guard's queue holding no thread that pages are served from.
                account = await state.guard.authenticate(state.store, token.strip(), client_address(request))
            except SignInLimited as e:
                raise ApiError(429, str(e), retry_after_s=max(1, round(e.retry_after))) from None
            if account is None:
                raise ApiError(401, "this token is not valid for this arena (ask the organiser for a new one)")
            if organiser and not account.organiser:
                raise ApiError(403, "this needs an organiser's token")
            try:
                result = await handler(request, state, account)
            except Refused as e:
                raise ApiError(http_status(e), str(e)) from None
            return result if isinstance(result, Response) else _json(result)
        except ApiError as e:
            response = _json({"error": e.message, **e.extra}, e.status)
            if "retry_after_s" in e.extra:
                response.headers["Retry-After"] = str(e.extra["retry_after_s"])
            return response

    return endpoint


def client_address(request: Request) -> str:
    """The address a request came from (behind a reverse proxy: the proxy's, so all clients count as one)."""
    return request.client.host if request.client is not None else "?"


# -- endpoints: each reads its request, asks ladder.arena.views or .actions, answers JSON --------------


async def status(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.status(state, me)


async def me(request: Request, state: ArenaState, me: Account) -> Any:
    return views.me(me)


async def leaderboard(request: Request, state: ArenaState, me: Account) -> Any:
    q = request.query_params
    return await views.leaderboard(
        state, me, board=q.get("board", "ladder"), rules=q.get("rules"), all_versions=q.get("versions") == "all"
    )


async def bots(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.bots(state, me)


async def bot(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.bot(state, me, request.path_params["name"])


async def versions(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.versions(state, me, request.path_params["name"])


async def version(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.version(state, me, request.path_params["name"], request.path_params["number"])


async def version_log(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.version_log(state, me, request.path_params["name"], request.path_params["number"])


async def submit(request: Request, state: ArenaState, me: Account) -> Any:
    slot = actions.open_slot(state, me, request.path_params["name"])
    body = await _capped_body(request, state.cfg.limits.max_archive_bytes)
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = json.loads(body)
        except ValueError:
            raise ApiError(400, "the body is not JSON") from None
        address = data.get("address") if isinstance(data, dict) else None
        v = await actions.submit_hosted(state, me, slot, address)
    else:
        v = await actions.submit_archive(state, me, slot, body)
    return _json(views.shown_version(state, me, v), 201)


async def _capped_body(request: Request, limit: int, what: str = "the archive") -> bytes:
    """The request's body, read no further than ``limit`` bytes (413 past it): a huge upload is
    refused without being held in memory."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"{what} is {declared} bytes; this arena takes at most {limit}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"{what} is more than {limit} bytes; this arena takes at most {limit}")
        chunks.append(chunk)
    return b"".join(chunks)


async def final_standings(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.final(state, me)


async def matches(request: Request, state: ArenaState, me: Account) -> Any:
    try:
        limit = int(request.query_params.get("limit", 50))
    except ValueError:
        raise ApiError(400, "limit must be a whole number") from None
    return await views.matches(state, me, limit=limit, after=request.query_params.get("after"))


async def match(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.match(state, me, request.path_params["id"])


async def askable(request: Request, state: ArenaState, me: Account) -> Any:
    return (await asyncio.to_thread(asking.askable, state, me, request.path_params["id"])).to_dict()


async def ask_again(request: Request, state: ArenaState, me: Account) -> Any:
    try:
        data = json.loads(await _capped_body(request, 4096, "the request"))
    except ValueError:
        raise ApiError(400, 'the body is not JSON: send {"step": N} (and "version": V for another version)') from None
    step = data.get("step") if isinstance(data, dict) else None
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise ApiError(400, 'give "step": the decision\'s number, from 0 (GET this path lists yours)')
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise ApiError(400, '"version" is a version\'s number (GET this path lists the valid ones)')
    return await asking.ask_again(state, me, request.path_params["id"], step, version)


async def live(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.live(state, me)


async def pause(request: Request, state: ArenaState, me: Account) -> Any:
    return await actions.pause(state, me)


async def resume(request: Request, state: ArenaState, me: Account) -> Any:
    return await actions.resume(state, me)


async def reveal(request: Request, state: ArenaState, me: Account) -> Any:
    return await actions.reveal(state, me)


async def final(request: Request, state: ArenaState, me: Account) -> Any:
    return await actions.final(state, me)


async def users(request: Request, state: ArenaState, me: Account) -> Any:
    return await views.users(state, me)


# (method, path, handler, organiser only, summary): the routes and the OpenAPI description alike.
API: list[tuple[str, str, Handler, bool, str]] = [
    ("GET", "/api/status", status, False, "The arena: rules, paused, matches, queue, live, deadline, you"),
    ("GET", "/api/me", me, False, "Your name, role and alias"),
    ("GET", "/api/leaderboard", leaderboard, False, "The ladder (?rules=, ?board=ladder|final, ?versions=all)"),
    ("GET", "/api/final", final_standings, False, "The final tournament: a Swiss's standings, a knockout's bracket"),
    ("GET", "/api/bots", bots, False, "Every bot"),
    ("GET", "/api/bots/{name}", bot, False, "One bot and its versions"),
    ("GET", "/api/bots/{name}/versions", versions, False, "A bot's versions with their reports (the owner's)"),
    ("POST", "/api/bots/{name}/versions", submit, False, 'Submit a version: a .zip body, or {"address": ...}'),
    ("GET", "/api/bots/{name}/versions/{number:int}", version, False, "One version with its reports"),
    ("GET", "/api/bots/{name}/versions/{number:int}/log", version_log, False, "A version's output (its owner's)"),
    ("GET", "/api/matches", matches, False, "Recorded matches, newest first (?limit=, ?after=)"),
    ("GET", "/api/matches/{id}", match, False, "One match in the export format (docs/export.md)"),
    ("GET", "/api/matches/{id}/ask", askable, False, "The decisions of a match you may ask your bot again"),
    ("POST", "/api/matches/{id}/ask", ask_again, False, 'Ask your bot a decision again: {"step": N, "version": V}'),
    ("GET", "/api/live", live, False, "The matches of the batch in play not yet recorded"),
    ("POST", "/api/admin/pause", pause, True, "Pause the ladder between matches"),
    ("POST", "/api/admin/resume", resume, True, "Resume the ladder"),
    ("POST", "/api/admin/reveal", reveal, True, "End anonymity: names for everyone"),
    ("POST", "/api/admin/final", final, True, "Start the final tournament (once)"),
    ("GET", "/api/admin/users", users, True, "Every user with role and alias"),
]


async def openapi(request: Request, state: ArenaState, me: Account) -> Any:
    paths: dict[str, dict[str, Any]] = {}
    for method, path, _h, organiser, summary in API:
        op: dict[str, Any] = {
            "summary": summary + (" (organiser)" if organiser else ""),
            "security": [{"bearer": []}],
            "responses": {"200": {"description": "JSON"}, "401": {"description": "no or a wrong token"}},
        }
        if organiser or method == "POST":
            op["responses"]["403"] = {"description": "not yours, or not an organiser"}
        paths.setdefault(path.replace(":int", ""), {})[method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "hearts-arena", "version": "1", "description": "See docs/arena.md"},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }


def routes() -> list[Route]:
    out = [Route(path, _endpoint(h, organiser=org), methods=[m]) for m, path, h, org, _s in API]
    return [*out, Route("/api/openapi.json", _endpoint(openapi))]


def build_app(
    arena_dir: Path, cfg: ArenaConfig, *, background: bool = True, resolve: Resolve = resolve_host
) -> Starlette:
    """The ASGI app. ``background``: run the pipeline and the ladder (the worker) with it.
    ``resolve``: how a hosted bot's host name is resolved (the system's resolver; a test drives its own)."""
    state = ArenaState(dir=arena_dir, cfg=cfg, ratings=Ratings(), resolve=resolve)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tid = ladder_tournament(state.store, cfg)
        if background:
            # The board fitted before anyone asks (the saved one is shown meanwhile): its own thread,
            # its own connection, while the server starts.
            threading.Thread(
                target=lambda: state.ratings.get(state.store, tid, cfg.rules), name="first-fit", daemon=True
            ).start()
            state.worker = ArenaWorker(arena_dir, cfg, state.ratings, resolve=resolve, hub=state.hub)
            state.worker.start()
            deadline_task = asyncio.create_task(_deadline_watch(state))
        try:
            yield
        finally:
            if background:
                deadline_task.cancel()
                assert state.worker is not None
                await asyncio.to_thread(state.worker.stop)
            state.ratings.close()

    app = Starlette(routes=routes(), lifespan=lifespan)
    app.state.arena = state
    # The web site (ladder/site/) and any other extension mount their pages here, found by their
    # entry points (group hearts_arena.site): the arena never imports them.
    for ep in importlib.metadata.entry_points(group="hearts_arena.site"):
        ep.load()(app, state)
    return app


async def _deadline_watch(state: ArenaState) -> None:
    """Start the final tournament at the deadline, when arena.toml says so."""
    cfg = state.cfg
    if cfg.deadline is None or not cfg.final_auto:
        return
    while not views.deadline_passed(state):
        await asyncio.sleep(0.5)
    # Versions submitted before the deadline may still be in the pipeline: they count once checked.
    while state.store.versions_in(WAITING):
        await asyncio.sleep(0.5)
    try:
        await asyncio.to_thread(lambda: start_final(state.store, cfg, resolve=state.resolve))
    except ValueError as e:
        if state.worker is not None:
            state.worker.events.append(f"the final tournament could not start at the deadline: {e}")
