"""The site's routes on the arena's Starlette app (mounted by ``mount``, the entry point
``hearts_arena.site`` that ladder/arena/app.py loads): reading pages for everyone, the participant's area
and the organiser's behind a session, and ``/play``: a table of the house bots to play at yourself
(ladder/site/tables.py), hearts play's page behind the session.

Sessions: a participant signs in by POSTing their token in a form (never in a URL); the site checks
it as the API does and sets ``hearts_session``, an HMAC-signed cookie (HttpOnly, SameSite=Lax,
Secure over https) holding the user id and a fingerprint of their stored token hash, so a new
token (``hearts arena user token``) ends every session of the old one. Every form carries a CSRF
token equal to the HttpOnly ``hearts_csrf`` cookie (SameSite=Strict) and bound to the session; a
POST whose Origin is another site is refused as well.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import html
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlparse

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ladder.arena import actions, asking, views
from ladder.arena.accounts import Account, SignInLimited
from ladder.arena.app import ApiError, client_address, http_status
from ladder.arena.errors import Refused
from ladder.arena.live import stream as live_stream
from ladder.arena.state import ArenaState
from ladder.site import pages
from ladder.site.pages import VISITOR
from ladder.site.render import HEADERS, HERE, env
from ladder.site.tables import PlayTable, TableRefused, Tables, table_rules
from ladder.table.table import MAX_PAGES, STATIC, json_body, last_event, seat_stream
from referee.human import AnswerRefused

__all__ = ["mount"]

SESSION = "hearts_session"
CSRF = "hearts_csrf"
SESSION_S = 14 * 24 * 3600

_env = env()


def _secret(state: ArenaState) -> bytes:
    s = state.store.get_meta("site_secret")
    if s is None:
        state.store.set_meta("site_secret", secrets.token_hex(32))
        s = state.store.get_meta("site_secret")
    assert s is not None
    return bytes.fromhex(s)


def _sign(state: ArenaState, payload: dict[str, Any]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
    mac = hmac.new(_secret(state), body.encode(), hashlib.sha256).hexdigest()
    return f"{body}.{mac}"


def _unsign(state: ArenaState, value: str) -> dict[str, Any] | None:
    body, _, mac = value.partition(".")
    good = hmac.new(_secret(state), body.encode(), hashlib.sha256).hexdigest()
    if not mac or not hmac.compare_digest(mac, good):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _fingerprint(token_hash: str) -> str:
    return hashlib.sha256(token_hash.encode()).hexdigest()[:24]


def viewer(request: Request) -> Account:
    state: ArenaState = request.app.state.arena
    raw = request.cookies.get(SESSION)
    data = _unsign(state, raw) if raw else None
    if data is None or not isinstance(data.get("u"), int):
        return VISITOR
    user = state.store.user(data["u"])
    if user is None or data.get("h") != _fingerprint(user.token_hash):
        return VISITOR
    if data.get("c") != request.cookies.get(CSRF):
        return VISITOR  # a session cookie without its CSRF pair is not a session
    return Account(user.id, user.name, user.role, user.alias)


def _csrf_of(request: Request) -> str:
    return request.cookies.get(CSRF) or request.scope.setdefault("hearts_new_csrf", secrets.token_urlsafe(24))


def _cookie(request: Request, response: Response, name: str, value: str, *, samesite: str = "lax") -> None:
    response.set_cookie(
        name,
        value,
        max_age=SESSION_S,
        httponly=True,
        samesite=samesite,  # type: ignore[arg-type]
        secure=request.url.scheme == "https",
        path="/",
    )


def render(request: Request, template: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
    state: ArenaState = request.app.state.arena
    me = request.scope.get("hearts_viewer") or viewer(request)
    csrf = _csrf_of(request)
    html = _env.get_template(template).render(
        **ctx,
        me=me,
        csrf=csrf,
        arena_name=state.cfg.name,
        u=lambda path: "/" + path,
        static=lambda path: "/static/" + path,
        static_site=False,
        path=request.url.path,
    )
    response = HTMLResponse(html, status_code=status, headers=HEADERS)
    if "hearts_new_csrf" in request.scope:
        _cookie(request, response, CSRF, request.scope["hearts_new_csrf"], samesite="strict")
    return response


def _error(request: Request, status: int, message: str) -> HTMLResponse:
    return render(request, "error.html", {"status": status, "message": message, "title": "Not here"}, status)


def _page(fn: Any) -> Any:
    async def endpoint(request: Request) -> Response:
        try:
            return await fn(request)
        except ApiError as e:
            return _error(request, e.status, e.message)
        except Refused as e:
            return _error(request, http_status(e), str(e))

    return endpoint


def _state(request: Request) -> ArenaState:
    state: ArenaState = request.app.state.arena
    return state


def _query(request: Request) -> dict[str, str]:
    return dict(request.query_params)


# -- reading pages ----------------------------------------------------------------------------------


async def leaderboard(request: Request) -> Response:
    t, ctx = await pages.leaderboard_page(_state(request), viewer(request), _query(request))
    return render(request, t, ctx)


async def matches(request: Request) -> Response:
    t, ctx = await pages.matches_page(_state(request), viewer(request), _query(request))
    return render(request, t, ctx)


async def match(request: Request) -> Response:
    t, ctx = await pages.match_page(_state(request), viewer(request), request.path_params["id"], _query(request))
    return render(request, t, ctx)


async def ask_again(request: Request) -> Response:
    """The match page's ask form: the viewer's bot asked a decision again, its answer on the page."""
    me = _signed_in(request)
    form = await _form(request)
    state = _state(request)
    match_id = request.path_params["id"]
    try:
        number = int(str(form.get("step", "")))
        version_text = str(form.get("version", "")).strip()
        version = int(version_text) if version_text else None
    except ValueError:
        raise ApiError(400, "choose a decision (and a version) from the lists") from None
    query = {"step": str(form.get("at", "0"))}
    asked: dict[str, Any] | None = None
    error: str | None = None
    status = 200
    try:
        asked = await asking.ask_again(state, me, match_id, number, version)
    except Refused as e:
        error, status = str(e), http_status(e)
        if status == 404:
            raise
    t, ctx = await pages.match_page(state, me, match_id, query, asked=asked, ask_error=error, chosen=number)
    return render(request, t, ctx, status)


async def bot(request: Request) -> Response:
    t, ctx = await pages.bot_page(_state(request), viewer(request), request.path_params["name"])
    return render(request, t, ctx)


async def live(request: Request) -> Response:
    t, ctx = await pages.live_page(_state(request), viewer(request))
    return render(request, t, ctx)


async def live_json(request: Request) -> Response:
    data = await pages.live_data(_state(request), viewer(request))
    return JSONResponse(data, headers=HEADERS)


def _hub_stream(
    request: Request, board: Callable[[ArenaState, Account, int], Awaitable[dict[str, Any]]], *, plays: bool
) -> Response:
    """Server-sent events from the arena's live hub (ladder/arena/live.py decides what each viewer is
    sent, and bounds the streams): ``board`` the viewer's board at an event, and with ``plays`` each
    play it may see; 503 when the hub has no room for one more from this address."""
    state, who = _state(request), viewer(request)
    address = client_address(request)
    if not state.hub.room(address):
        return PlainTextResponse(
            "too many pages follow this arena now: try again in a minute",
            status_code=503,
            headers={**HEADERS, "Cache-Control": "no-store", "Retry-After": "30"},
        )

    async def at(seq: int) -> dict[str, Any]:
        return await board(state, who, seq)

    after = request.headers.get("last-event-id") if plays else None
    events = live_stream(state.hub, at, organiser=who.organiser, address=address, after=after, plays=plays)
    return StreamingResponse(
        events,
        media_type="text/event-stream",
        headers={**HEADERS, "Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _live_board(state: ArenaState, who: Account, seq: int) -> dict[str, Any]:
    return await state.hub.board((who.id, who.role), seq, lambda: pages.live_data(state, who))


async def _match_count(state: ArenaState, who: Account, seq: int) -> dict[str, Any]:
    async def count() -> dict[str, Any]:
        shown = await views.status(state, who)
        return {"matches": shown["matches"], "paused": shown["paused"]}

    return await state.hub.board((who.id, f"{who.role} leaderboard"), seq, count)


async def live_events(request: Request) -> Response:
    """The live page's push channel: ``live_data`` and each play this viewer may see."""
    return _hub_stream(request, _live_board, plays=True)


async def board_events(request: Request) -> Response:
    """The leaderboard's push channel: the number of recorded matches this viewer may count, first
    and whenever a match begins or is recorded (the page then reads itself again)."""
    return _hub_stream(request, _match_count, plays=False)


# -- signing in -------------------------------------------------------------------------------------


async def _form(request: Request) -> Any:
    """The POSTed form once its CSRF token and Origin are checked (ApiError 403 otherwise)."""
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlparse(origin).netloc != request.url.netloc:
        raise ApiError(403, "this form was sent from another site")
    form = await request.form(max_part_size=_state(request).cfg.limits.max_archive_bytes + 1024)
    sent = form.get("csrf")
    cookie = request.cookies.get(CSRF)
    if not isinstance(sent, str) or not cookie or not hmac.compare_digest(sent, cookie):
        raise ApiError(403, "this form has expired or was not sent from this site: load the page and send it again")
    return form


async def signin(request: Request) -> Response:
    if request.method == "GET":
        return render(request, "signin.html", {"title": "Sign in", "error": None})
    form = await _form(request)
    token = str(form.get("token", "")).strip()
    state = _state(request)
    try:
        account = await state.guard.authenticate(state.store, token, client_address(request)) if token else None
    except SignInLimited as e:
        page = render(request, "signin.html", {"title": "Sign in", "error": f"{str(e)[0].upper()}{str(e)[1:]}."}, 429)
        page.headers["Retry-After"] = str(max(1, round(e.retry_after)))
        return page
    if account is None:
        return render(request, "signin.html", {"title": "Sign in", "error": "That token is not valid here."}, 401)
    user = state.store.user(account.id)
    assert user is not None
    csrf = secrets.token_urlsafe(24)  # a new pair at sign-in
    response = RedirectResponse("/admin" if account.organiser else "/me", status_code=303)
    _cookie(request, response, SESSION, _sign(state, {"u": account.id, "h": _fingerprint(user.token_hash), "c": csrf}))
    _cookie(request, response, CSRF, csrf, samesite="strict")
    return response


async def signout(request: Request) -> Response:
    await _form(request)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION, path="/")
    response.delete_cookie(CSRF, path="/")
    return response


def _signed_in(request: Request, *, organiser: bool = False) -> Account:
    me = viewer(request)
    if me.id == 0:
        raise ApiError(401, "sign in with your token first")
    if organiser and not me.organiser:
        raise ApiError(403, "this is the organiser's page")
    request.scope["hearts_viewer"] = me
    return me


# -- the participant's area ----------------------------------------------------------------------------


async def me_page(request: Request) -> Response:
    try:
        me = _signed_in(request)
    except ApiError:
        return RedirectResponse("/signin", status_code=303)
    state = _state(request)
    full = await views.own_bots(state, me)
    status = await views.status(state, me)
    return render(request, "me.html", {"bots": full, "status": status, "title": "Your bots", "message": None})


async def submit(request: Request) -> Response:
    me = _signed_in(request)
    form = await _form(request)
    state = _state(request)
    name = str(form.get("bot", "")).strip()
    upload = form.get("archive")
    address = str(form.get("address", "")).strip()
    if isinstance(upload, UploadFile) and upload.filename:
        await actions.submit(state, me, name, archive=await upload.read())
    elif address:
        await actions.submit(state, me, name, address=address)
    else:
        raise ApiError(400, "choose a .zip of your bot (or give the address of a bot you host)")
    return RedirectResponse(f"/me#bot-{name}", status_code=303)


async def log_page(request: Request) -> Response:
    me = _signed_in(request)
    data = await views.version_log(_state(request), me, request.path_params["name"], request.path_params["number"])
    return render(request, "log.html", {"log": data, "title": f"Log of {data['bot']} v{data['version']}"})


# -- the organiser's area ------------------------------------------------------------------------------


async def admin(request: Request) -> Response:
    me = _signed_in(request, organiser=True)
    state = _state(request)
    status = await views.status(state, me)
    users = (await views.users(state, me))["users"]
    bots = (await views.bots(state, me))["bots"]
    return render(request, "admin.html", {"status": status, "users": users, "bots": bots, "title": "Organiser"})


ADMIN_ACTIONS = {"pause": actions.pause, "resume": actions.resume, "reveal": actions.reveal, "final": actions.final}


async def admin_action(request: Request) -> Response:
    me = _signed_in(request, organiser=True)
    await _form(request)
    action = ADMIN_ACTIONS.get(request.path_params["action"])
    if action is None:
        raise ApiError(404, "no such action")
    await action(_state(request), me)
    return RedirectResponse("/admin", status_code=303)


# -- a table of your own: /play -----------------------------------------------------------------------
#
# The table's page is hearts play's (ladder/table/static), told its table's path and the CSRF token;
# its stream and its answers are the table's, behind the site's session instead of a key.


def _tables(request: Request) -> Tables:
    tables: Tables = request.app.state.site_tables
    return tables


def _player(request: Request) -> tuple[str, str]:
    """Who sits down: (the owner of their table, the name their seat is recorded by). A participant
    by their account (their alias while an anonymous arena's names are hidden); a visitor only where
    ``[play] guests`` allows, as ``guest``, by their browser's CSRF cookie."""
    state = _state(request)
    me = viewer(request)
    if me.id:
        hidden = state.cfg.anonymous and state.store.get_meta("revealed") != "1"
        return f"user:{me.id}", me.alias if hidden and me.alias else me.name
    if not state.cfg.play_guests:
        raise ApiError(401, "sign in to play: this arena's tables are for its participants")
    cookie = request.cookies.get(CSRF)
    if not cookie:
        raise ApiError(403, "load the play page and send its form again")
    return "guest:" + hashlib.sha256(cookie.encode()).hexdigest(), "guest"


async def play_form(request: Request) -> Response:
    state = _state(request)
    rules = table_rules(state)
    bots = [shown for shown, _ in views.table_opponents(state, viewer(request))]
    refusal, mine = None, None
    if viewer(request).id == 0 and not state.cfg.play_guests:
        refusal = "sign in to play: this arena's tables are for its participants"
    elif len(bots) < rules.players - 1:
        refusal = f"this arena has {len(bots)} bots ready to play: a table needs {rules.players - 1}"
    else:
        with contextlib.suppress(ApiError):  # a guest's first visit: no table yet
            t = _tables(request).of(_player(request)[0])
            mine = t.id if t is not None else None
    if request.method == "POST" and refusal is None and mine is None:
        form = await _form(request)
        owner, name = _player(request)
        opponents = [str(o) for o in form.getlist("opponent")]
        try:
            t = await _tables(request).open(state, owner, name, opponents, viewer(request))
        except TableRefused as e:
            raise ApiError(e.status, e.message) from None
        return RedirectResponse(f"/play/tables/{t.id}", status_code=303)
    status = 401 if request.method == "POST" and refusal is not None and viewer(request).id == 0 else 200
    if request.method == "POST" and mine is not None:
        status = 409
    ctx = {
        "title": "Play",
        "rules": str(rules),
        "bots": bots,
        "seats": rules.players - 1,
        "refusal": refusal,
        "mine": mine,
        "can_play": refusal is None,
    }
    return render(request, "play.html", ctx, status)


def _table_page_html() -> str:
    """hearts play's page, its files under /play/static and its body ready for a table's path."""
    page = (STATIC / "play.html").read_text()
    for old, new in (('href="/static/play.css"', 'href="/play/static/play.css"'),
                     ('src="/static/play.js"', 'src="/play/static/play.js"'),
                     ('<body data-phase="start">', '<body data-phase="start" data-base="{base}" data-csrf="{csrf}">'),
                     ("<title>Hearts: your table</title>", "<title>Hearts: your table · {arena}</title>")):  # fmt: skip
        if old not in page:
            raise RuntimeError(f"hearts play's page changed: no {old!r} in it")
        page = page.replace(old, new)
    return page


_TABLE_PAGE = _table_page_html()


def _your_table(request: Request) -> PlayTable:
    try:
        owner, _name = _player(request)
    except ApiError:
        owner = ""
    t = _tables(request).get(request.path_params["id"], owner) if owner else None
    if t is None:
        raise ApiError(404, "no such table of yours (a table ends with its match)")
    return t


async def table_page(request: Request) -> Response:
    t = _your_table(request)
    state = _state(request)
    body = _TABLE_PAGE.format(
        base=html.escape(f"/play/tables/{t.id}"), csrf=html.escape(_csrf_of(request)), arena=html.escape(state.cfg.name)
    )
    response = HTMLResponse(body, headers={**HEADERS, "Cache-Control": "no-store"})
    if "hearts_new_csrf" in request.scope:
        _cookie(request, response, CSRF, request.scope["hearts_new_csrf"], samesite="strict")
    return response


async def table_static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ("play.js", "play.css"):
        return PlainTextResponse("no such file", status_code=404)
    kind = "text/javascript" if name.endswith(".js") else "text/css"
    return FileResponse(STATIC / name, media_type=f"{kind}; charset=utf-8", headers=HEADERS)


def _refused(status: int, why: str) -> Response:
    return JSONResponse(
        {"ok": False, "reason": why}, status_code=status, headers={**HEADERS, "Cache-Control": "no-store"}
    )


async def table_events(request: Request) -> Response:
    """The seat's events, as hearts play's table streams them: only this person's seat's."""
    try:
        t = _your_table(request)
    except ApiError as e:
        return _refused(e.status, e.message)
    if t.table.pages[0] >= MAX_PAGES:
        return _refused(429, f"{MAX_PAGES} pages follow this table already: close one")
    return StreamingResponse(
        seat_stream(t.table, 0, last_event(request)),
        media_type="text/event-stream",
        headers={**HEADERS, "Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def table_post(request: Request) -> Response:
    """An answer, the start or the next deal: JSON from this site's own page, with the CSRF token."""
    what = request.path_params["what"]
    if what not in ("answer", "start", "deal"):
        return _refused(404, "a table takes an answer, its start and the next deal")
    origin = request.headers.get("origin")
    if origin is not None and urlparse(origin).netloc != request.url.netloc:
        return _refused(403, "answers come from the table's own page")
    sent, cookie = request.headers.get("x-csrf-token") or "", request.cookies.get(CSRF) or ""
    if not cookie or not hmac.compare_digest(sent.encode(), cookie.encode()):
        return _refused(403, "this page has expired: load it again")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _refused(415, "send JSON (Content-Type: application/json)")
    try:
        t = _your_table(request)
    except ApiError as e:
        return _refused(e.status, e.message)
    try:
        body = await json_body(request)
    except ValueError as e:
        return _refused(400, str(e))
    t.seat.back()
    if what == "start":
        t.table.ask_to_start(0)
        return JSONResponse({"ok": True}, headers=HEADERS)
    if what == "deal":
        return JSONResponse({"ok": t.seat.deal_again()}, headers=HEADERS)
    if not isinstance(body, dict):
        return _refused(400, 'send {"id": N, "answer": {...}}')
    try:
        t.seat.answer(body.get("id"), body.get("answer"))
    except AnswerRefused as e:
        return JSONResponse({"ok": False, "reason": e.reason, "rule": e.rule}, status_code=409, headers=HEADERS)
    return JSONResponse({"ok": True}, headers=HEADERS)


def routes() -> list[Route | Mount]:
    return [
        Route("/", _page(leaderboard)),
        Route("/matches", _page(matches)),
        Route("/matches/{id}", _page(match)),
        Route("/matches/{id}/ask", _page(ask_again), methods=["POST"]),
        Route("/bots/{name}", _page(bot)),
        Route("/live", _page(live)),
        Route("/live.json", live_json),
        Route("/live/events", live_events),
        Route("/events", board_events),
        Route("/signin", _page(signin), methods=["GET", "POST"]),
        Route("/signout", _page(signout), methods=["POST"]),
        Route("/me", _page(me_page)),
        Route("/me/submit", _page(submit), methods=["POST"]),
        Route("/me/bots/{name}/versions/{number:int}/log", _page(log_page)),
        Route("/admin", _page(admin)),
        Route("/admin/{action}", _page(admin_action), methods=["POST"]),
        Route("/play", _page(play_form), methods=["GET", "POST"]),
        Route("/play/static/{name}", table_static),
        Route("/play/tables/{id}", _page(table_page)),
        Route("/play/tables/{id}/events", table_events),
        Route("/play/tables/{id}/{what:str}", table_post, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]


def mount(app: Starlette, state: ArenaState) -> None:
    """Add the site's pages to the arena's app (the entry point ladder/arena/app.py loads)."""
    app.state.site_tables = Tables()
    for r in routes():
        app.router.routes.append(r)
