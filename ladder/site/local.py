"""A plain tournament database's pages, served on 127.0.0.1 to the person whose file it is: what
``hearts replay MATCH_ID --browser`` and ``hearts match --browser`` open (ladder/cli). No arena is
needed: the database is read by the views' rules for a plain one (ladder/arena/local.py), with its
owner as the viewer (everything in it shown), and the pages are the site's (ladder/site/pages.py:
the same templates, the same data functions): the replay viewer of a match, the ladder, the
tournaments, the matches, the bots. ``/matches/ID.json`` is the data the match's page draws.

Only GETs are answered, and the file is opened read-only. Another program on this machine, or a
page the person's browser shows, may try the port: every request must name this server in its
``Host`` (127.0.0.1 or localhost with its port), so a page on a name rebound to 127.0.0.1 reads
nothing (421), and the site's headers (a Content-Security-Policy of its own files only, no framing)
go with every page.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ladder.arena.app import http_status
from ladder.arena.errors import Refused
from ladder.arena.local import OWNER, LocalState
from ladder.site import pages
from ladder.site.render import HEADERS, HERE, env

__all__ = ["local_app", "serve"]

_env = env()


def local_app(state: LocalState, port: int) -> Starlette:
    """The pages of ``state`` for a server listening on 127.0.0.1:``port``."""
    hosts = (f"127.0.0.1:{port}", f"localhost:{port}")

    def render(request: Request, page: pages.Page, status: int = 200) -> HTMLResponse:
        template, ctx = page
        html = _env.get_template(template).render(
            **ctx,
            me=OWNER,
            csrf="",
            arena_name=state.name,
            u=lambda path: "/" + path,
            static=lambda path: "/static/" + path,
            static_site=False,
            local=True,
            path=request.url.path,
        )
        return HTMLResponse(html, status_code=status, headers={**HEADERS, "Cache-Control": "no-store"})

    def guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            if request.headers.get("host") not in hosts:
                return PlainTextResponse("this viewer answers to 127.0.0.1 only", status_code=421, headers=HEADERS)
            try:
                return await handler(request)
            except Refused as e:
                page = ("error.html", {"status": http_status(e), "message": str(e), "title": "Not here"})
                return render(request, page, http_status(e))

        return endpoint

    def q(request: Request) -> dict[str, str]:
        return dict(request.query_params)

    async def leaderboard(request: Request) -> Response:
        return render(request, await pages.leaderboard_page(state, OWNER, q(request)))

    async def tournaments(request: Request) -> Response:
        return render(request, await pages.tournaments_page(state, OWNER))

    async def tournament(request: Request) -> Response:
        return render(request, await pages.tournament_page(state, OWNER, request.path_params["id"], q(request)))

    async def matches(request: Request) -> Response:
        return render(request, await pages.matches_page(state, OWNER, q(request)))

    async def match(request: Request) -> Response:
        return render(request, await pages.match_page(state, OWNER, request.path_params["id"], q(request)))

    async def match_json(request: Request) -> Response:
        data = await pages.match_data(state, OWNER, request.path_params["id"])
        return JSONResponse(data, headers={**HEADERS, "Cache-Control": "no-store"})

    async def bot(request: Request) -> Response:
        return render(request, await pages.bot_page(state, OWNER, request.path_params["name"]))

    static = StaticFiles(directory=HERE / "static")

    async def files(scope: Any, receive: Any, send: Any) -> None:
        request = Request(scope, receive)
        if request.headers.get("host") not in hosts:
            await PlainTextResponse("this viewer answers to 127.0.0.1 only", status_code=421)(scope, receive, send)
            return
        await static(scope, receive, send)

    return Starlette(
        routes=[
            Route("/", guarded(leaderboard)),
            Route("/tournaments", guarded(tournaments)),
            Route("/tournaments/{id}", guarded(tournament)),
            Route("/matches", guarded(matches)),
            Route("/matches/{id}.json", guarded(match_json)),  # before the page's route, which takes any id
            Route("/matches/{id}", guarded(match)),
            Route("/bots/{name}", guarded(bot)),
            Mount("/static", app=files),
        ]
    )


def serve(state: LocalState, sock: socket.socket) -> None:
    """Serve ``state``'s pages on ``sock`` (listening on 127.0.0.1) until Ctrl-C, which uvicorn turns
    into a KeyboardInterrupt once the server has stopped."""
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        local_app(state, port), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
