"""Python bots played in-process: an SDK bot named ``package.module:ClassName``, seated without gRPC.

A bots.toml entry ``module = "clients.bots.random:RandomBot"`` (or ``--seat NAME=pkg.mod:Class``)
imports the module, calls the attribute with no arguments (a class, or any factory) and seats the
object it returns in every match of that bot, as one server would serve them all. The seat hands
the bot the very ``View`` its gRPC server would have built from the request (``clients.view.view_of``,
tested equal), converts its answers with the SDK's own code, and the referee judges them with the
same clocks and fault policy as a remote bot's:

- an exception is an ``error_status`` fault naming it;
- slowness is a ``timeout``: a coroutine method is cancelled at its deadline, a plain one is
  measured when it returns and its late answer is refused (the referee cannot interrupt it);
- a wrong card is the same fault as over the wire (``card_not_held``, ``illegal_card``...).

A plain ``play_card`` is called directly on the referee's hot path (``play_now``): no coroutine,
no request built or parsed. In-process bots share the referee's process: a bot that never returns
stalls it, and a bot can read anything the process can. They are for one's own bots; other
people's code runs as a command, in the sandbox.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar, cast

from clients.sdk import (
    BotMethods,
    BotProtocol,
    answer_failure,
    call_answer,
    cards_answer,
    handshake_of,
    moon_answer,
    notification_from_wire,
    play_answer,
)
from clients.view import View, view_of, view_of_play
from hearts.v1 import bot_pb2 as pb
from hearts.v1.codec import ViewEncoder
from ladder.sandbox import Isolation
from referee.record import utc_now
from referee.rules import Card, Observation
from referee.seats import Ask, BotErrorStatus, BotTimeout, SeatHooks

__all__ = ["BotModule", "BotModuleError", "SdkSeat", "is_module_spec", "load_seat", "print_to"]

T = TypeVar("T")
_perf_counter = time.perf_counter
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_SPEC = re.compile(rf"({_DOTTED}):({_DOTTED})")


class BotModuleError(ValueError):
    """A ``package.module:ClassName`` that names no bot: the spec, and what is wrong with it."""


def is_module_spec(text: str) -> bool:
    """Whether ``text`` has the form ``package.module:ClassName`` (not ``HOST:PORT``, not a command)."""
    return _SPEC.fullmatch(text.strip()) is not None


@dataclass(frozen=True)
class BotModule:
    """Where an in-process bot's code is: ``module`` to import and ``attribute`` in it to call."""

    module: str
    attribute: str

    @classmethod
    def parse(cls, text: str) -> BotModule:
        m = _SPEC.fullmatch(text.strip())
        if m is None:
            raise BotModuleError(
                f"bot module {text!r} is not package.module:ClassName (e.g. clients.bots.random:RandomBot)"
            )
        if m.group(1).endswith(".py"):  # a file name where Python's import name belongs
            raise BotModuleError(
                f"bot module {text!r}: name the module as Python imports it, without .py: "
                f"{m.group(1)[:-3].replace('/', '.')}:{m.group(2)}"
            )
        return cls(m.group(1), m.group(2))

    def __str__(self) -> str:
        return f"{self.module}:{self.attribute}"

    def load(self, search: Sequence[Path | str] = ()) -> BotProtocol:
        """A new bot object: the attribute called with no arguments (a class or a factory), or the
        attribute itself when it already is a bot. ``search`` directories go on ``sys.path`` first
        (the current directory by default, as ``python -m`` would have it)."""
        for folder in reversed([str(Path(p).resolve()) for p in (search or [Path.cwd()])]):
            if folder not in sys.path:
                sys.path.insert(0, folder)
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as e:
            if e.name is not None and (self.module == e.name or self.module.startswith(e.name + ".")):
                raise BotModuleError(
                    f"bot {self}: no module named {e.name!r} (looked in the current directory and the "
                    f"installed packages; run from the folder that holds it, or install it)"
                ) from None
            raise BotModuleError(f"bot {self}: importing {self.module} failed: {e}") from None
        except Exception as e:
            hint = ""
            if isinstance(e, RuntimeError) and "asyncio.run() cannot be called" in str(e):
                hint = " (does it call serve() when imported? put that under if __name__ == '__main__':)"
            raise BotModuleError(f"bot {self}: importing {self.module} raised {type(e).__name__}: {e}{hint}") from None
        target: Any = module
        for part in self.attribute.split("."):
            if not hasattr(target, part):
                found = sorted(
                    n
                    for n, v in vars(module).items()
                    if isinstance(v, type) and _is_bot(v) and v.__module__ == module.__name__
                )
                hint = f"; bot classes there: {', '.join(found)}" if found else ""
                raise BotModuleError(f"bot {self}: module {self.module} has no {self.attribute!r}{hint}")
            target = getattr(target, part)
        if _is_bot(target) and not isinstance(target, type):
            return target  # a bot object: checked by _is_bot
        if not callable(target):
            raise BotModuleError(f"bot {self}: {self.attribute} is neither a bot class nor a factory")
        try:
            bot = target()
        except Exception as e:
            raise BotModuleError(f"bot {self}: {self.attribute}() raised {type(e).__name__}: {e}") from None
        if not _is_bot(bot):
            raise BotModuleError(
                f"bot {self}: {self.attribute}() made a {type(bot).__name__}, which is no bot "
                "(a bot has pass_cards(view) and play_card(view))"
            )
        return bot  # checked by _is_bot


def _is_bot(obj: object) -> bool:
    return callable(getattr(obj, "pass_cards", None)) and callable(getattr(obj, "play_card", None))


def _raised(what: str, error: BaseException) -> BotErrorStatus:
    """A bot method's failure as the fault's error: what it returned that was no answer, or what it
    raised and where, in the words its gRPC server would have sent."""
    text = answer_failure(what, error)
    return BotErrorStatus(f"the bot's {text}"[:300], text[:300])


# A bot's own failures: an exception, and sys.exit() too, which in-process would end the harness.
_FAILURES = (Exception, SystemExit)


def _logged(method: Callable[[Any], T], log: TextIO) -> Callable[[Any], T]:
    """A plain bot method whose prints (to stdout and stderr) go to the bot's log, not the harness's
    screen: the streams are swapped round each call, which costs a fraction of a microsecond."""

    def call(arg: Any) -> T:
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = log
        try:
            return method(arg)
        finally:
            sys.stdout, sys.stderr = out, err

    return call


def print_to(log: TextIO, methods: BotMethods) -> None:
    """Send what a bot's plain methods print to ``log`` (its coroutine methods print where they will)."""
    for name in ("play_card", "pass_cards", "discard_cards", "call_pass", "charge_cards", "choose_moon", "notify"):
        method = getattr(methods, name)
        if method is not None and not inspect.iscoroutinefunction(method):
            setattr(methods, name, _logged(method, log))


def load_seat(name: str, spec: str, log_dir: Path | str | None = None) -> SdkSeat:
    """The seat of bot ``name``, an object of ``spec`` (``package.module:ClassName``), printing to
    ``log_dir/NAME.log`` (appended, a header line per start) when a folder is given.
    ``BotModuleError`` names the bot and what is wrong."""
    try:
        bot = BotModule.parse(spec).load()
        log = None
        if log_dir is not None:
            Path(log_dir).mkdir(parents=True, exist_ok=True)
            log = open(
                Path(log_dir) / f"{name}.log", "a", buffering=1, encoding="utf-8", errors="replace"
            )  # the seat's, for the run
            log.write(f"=== {utc_now()} {spec} played in-process (pid {os.getpid()}) ===\n")
        return SdkSeat(bot, name, log=log)
    except BotModuleError as e:
        raise BotModuleError(f"bot {name!r}: {e}") from None
    except TypeError as e:  # a class that is no bot, found by the SDK's own check
        raise BotModuleError(f"bot {name!r} ({spec}): {e}") from None


class SdkSeat(SeatHooks):
    """A seat for an SDK bot object in this process (the ``referee.seats.Seat`` interface).

    One seat may sit in several matches at once, as one server serves them; the bot object is the
    same in all of them (a bot keeps per-match state under ``view.match_id``). With a ``log``, what
    the bot's plain methods print goes there. Of ``SeatHooks`` it offers ``answers_now`` (its plain
    methods), ``play_now`` and ``notify_now`` (a plain notify).
    """

    address: str | None = None
    isolation: Isolation | None = Isolation("in-process")

    def __init__(self, bot: BotProtocol, name: str | None = None, *, log: TextIO | None = None) -> None:
        self.methods = methods = BotMethods(bot)  # TypeError for an object that is no bot
        self.bot = bot
        self.log = log
        self._hello = handshake_of(bot)
        self.name: str | None = name if name is not None else self._hello.name
        # The decisions whose methods are plain functions are answered synchronously (the referee
        # calls them directly); coroutine methods go the awaited way, with their deadline.
        plain = {
            "play_card",
            "pass_cards",
            "discard_cards",
            "call_pass",
            "charge_cards",
            "choose_moon",
            "notify",
        }
        plain = {n for n in plain if (m := getattr(methods, n)) is not None and not inspect.iscoroutinefunction(m)}
        if log is not None:
            print_to(log, methods)
        self._play_card = methods.play_card
        nows: dict[str, Callable[[Ask], Any]] = {
            "play_card": self._play_now,
            "pass_cards": self._now("pass_cards", methods.pass_cards, _card_values),
            "discard_cards": self._now("discard_cards", methods.discard_cards, _card_values),
            "call_pass": self._call_now,
            "charge_cards": self._now("charge_cards", methods.charge_cards, _charge_values),
            "choose_moon": self._choose_now,
        }
        if methods.choose_moon is None:
            plain.add("choose_moon")  # answered without the bot, as its server would
        self.answers_now = {n: now for n, now in nows.items() if n in plain}
        # Notifications of a plain notify are delivered at once, in order: in-process, nothing to wait for.
        self.notify_now = self._notify_now if "notify" in plain else None

    def __repr__(self) -> str:
        return f"SdkSeat({type(self.bot).__name__}, name={self.name!r})"

    @staticmethod
    def _view(ask: Ask) -> View:
        views = ask.views
        return view_of(ask.observation, views.match_id, views.player_names, views.budget_ms, ask.bank_ms)

    def _play_now(self, ask: Ask) -> int:
        return self.play_now(ask.observation, ask.views, ask.bank_ms)

    def play_now(self, obs: Observation, views: ViewEncoder, bank_ms: int) -> int:
        """A plain ``play_card`` asked directly, without an ``Ask`` (the referee's play loop): the
        answer as its wire card value, or the ``BotErrorStatus`` of what the bot did instead."""
        try:
            card = self._play_card(view_of_play(obs, views.match_id, views.player_names, views.budget_ms, bank_ms))
            return card.index + 1 if type(card) is Card else play_answer(card)
        except _FAILURES as e:
            raise _raised("play_card", e) from None

    def _now(self, what: str, method: Callable[[View], Any], answer: Callable[[Any], T]) -> Callable[[Ask], T]:
        def now(ask: Ask) -> T:
            try:
                return answer(method(self._view(ask)))
            except _FAILURES as e:
                raise _raised(what, e) from None

        return now

    def _call_now(self, ask: Ask) -> object:
        view = self._view(ask)
        try:
            mix, offsets = call_answer(view, self.methods.call_pass(view))
        except _FAILURES as e:
            raise _raised("call_pass", e) from None
        return "mix" if mix else tuple(offsets)

    def _choose_now(self, ask: Ask) -> int:
        choose = self.methods.choose_moon
        if choose is None:
            return pb.MOON_CHOICE_ADD_TO_OTHERS  # what the SDK's server answers for such a bot
        try:
            return moon_answer(choose(self._view(ask)))
        except _FAILURES as e:
            raise _raised("choose_moon", e) from None

    def _notify_now(self, request: pb.NotifyRequest) -> None:
        try:
            self.methods.notify(notification_from_wire(request))  # type: ignore[misc]  # set when this is
        except SystemExit:
            pass  # a courtesy, as any other failure of notify (the referee drops those)

    async def _call(
        self, what: str, method: Callable[[Any], Any], arg: Any, timeout: float, answer: Callable[[Any], T]
    ) -> T:
        t0 = _perf_counter()
        try:
            result = method(arg)
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, timeout)
            return answer(result)
        except TimeoutError as e:
            if _perf_counter() - t0 >= timeout * 0.999:
                raise BotTimeout("no answer before the deadline", "nothing") from None
            raise _raised(what, e) from None  # the bot's own TimeoutError, raised in time
        except _FAILURES as e:
            raise _raised(what, e) from None

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse:
        return self._hello

    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]:
        return await self._call("pass_cards", self.methods.pass_cards, self._view(ask), timeout, _card_values)

    async def play_card(self, ask: Ask, timeout: float) -> int:
        return await self._call("play_card", self.methods.play_card, self._view(ask), timeout, play_answer)

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]:
        return await self._call("discard_cards", self.methods.discard_cards, self._view(ask), timeout, _card_values)

    async def charge_cards(self, ask: Ask, timeout: float) -> list[int]:
        return await self._call("charge_cards", self.methods.charge_cards, self._view(ask), timeout, _charge_values)

    async def call_pass(self, ask: Ask, timeout: float) -> object:
        view = self._view(ask)

        def answer(call: object) -> object:
            mix, offsets = call_answer(view, call)
            return "mix" if mix else tuple(offsets)

        return await self._call("call_pass", self.methods.call_pass, view, timeout, answer)

    async def choose_moon(self, ask: Ask, timeout: float) -> int:
        choose = self.methods.choose_moon
        if choose is None:
            return pb.MOON_CHOICE_ADD_TO_OTHERS  # what the SDK's server answers for such a bot
        return await self._call("choose_moon", choose, self._view(ask), timeout, moon_answer)

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None:
        notify = self.methods.notify
        if notify is not None:
            await self._call("notify", notify, notification_from_wire(request), timeout, _nothing)

    async def close(self) -> None:
        if self.log is not None:
            self.log.close()


# Wire card values are ints: the Seat interface's type for them.
_card_values = cast(Callable[[Any], list[int]], cards_answer)


def _charge_values(cards: Any) -> list[int]:
    """A charge answer as wire card values: None charges nothing, as the SDK's server answers it."""
    return _card_values(cards or ())


def _nothing(value: object) -> None:
    return None
