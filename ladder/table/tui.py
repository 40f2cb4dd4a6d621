"""``hearts play --tui``: the person's table in a terminal, with the page's keys (rich, no server).

The same ``HumanSeat`` as the page's, read the same way: each decision's request and the bots'
notifications, drawn anew after each event; the keys (←/→, Home/End, Space, Enter, ``?``) read
raw from the terminal. Nothing is judged here: the dimmed cards are those the request does not list
as legal, and a refused answer shows the referee's reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios
import tty
from collections.abc import Iterator
from typing import Any, TextIO

from rich.console import Console, Group
from rich.table import Table as RichTable
from rich.text import Text

from hearts.v1 import bot_pb2 as pb
from ladder.table.session import Sitting, play_and_record
from ladder.table.table import Table
from referee.human import AnswerRefused, HumanSeat
from referee.record import MatchRecord
from referee.rules import DECK
from referee.untrusted import inert

DIRECTIONS = {
    "PASS_DIRECTION_LEFT": "left",
    "PASS_DIRECTION_RIGHT": "right",
    "PASS_DIRECTION_ACROSS": "across",
    "PASS_DIRECTION_HOLD": "hold",
    "PASS_DIRECTION_SCATTER": "scatter",
    "PASS_DIRECTION_MIX": "mix",
    "PASS_DIRECTION_LEFT_TWO": "two to the left",
    "PASS_DIRECTION_RIGHT_TWO": "two to the right",
}
KEYS = {
    b"\x1b[D": "left",
    b"\x1b[C": "right",
    b"\x1bOD": "left",
    b"\x1bOC": "right",
    b"\x1b[H": "home",
    b"\x1b[F": "end",
    b" ": "space",
    b"\r": "enter",
    b"\n": "enter",
    b"?": "why",
}
PHASES = {
    "PassCards": "pass",
    "PlayCard": "play",
    "DiscardCards": "discard",
    "ChargeCards": "charge",
    "CallPass": "call",
    "ChooseMoon": "moon",
}


def card_text(name: str) -> str:
    """``CARD_QUEEN_OF_SPADES`` as ``Q♠`` (a name that is no card as ``?``)."""
    try:
        value = pb.Card.Value(name)
    except ValueError:
        return "?"
    return DECK[value - 1].symbol if 1 <= value <= 52 else "?"


def cards_text(names: list[str]) -> str:
    """Cards by their wire names as ``2♣ Q♠``."""
    return " ".join(card_text(n) for n in names)


def parse_keys(data: bytes) -> list[str]:
    """The keys in what the terminal sent (unknown bytes dropped)."""
    out = []
    i = 0
    while i < len(data):
        for seq, key in KEYS.items():
            if data.startswith(seq, i):
                out.append(key)
                i += len(seq)
                break
        else:
            i += 1
    return out


class Terminal:
    """The table drawn on ``console``, keys taken from ``keys`` (a terminal's file descriptor)."""

    def __init__(self, seat: HumanSeat, table: Table, console: Console, keys: int) -> None:
        self.seat, self.table, self.console, self.keys = seat, table, console, keys
        self.phase = "start"
        self.names: list[str] = []
        self.me = 0
        self.rules: dict[str, Any] = {}
        self.view: dict[str, Any] = {}
        self.ask: dict[str, Any] | None = None
        self.selected: list[int] = []
        self.focus = 0
        self.choice = 0
        self.trick: tuple[int, list[str]] = (0, [])
        self.scores: list[int] = []
        self.log: list[str] = []
        self.status = "Space or Enter to start"
        self.rules_text = ""
        self.done = asyncio.Event()

    # -- the keys -------------------------------------------------------------------------------

    def on_keys(self) -> None:
        """What the terminal sent: each key acted on, then the table drawn anew."""
        try:
            data = os.read(self.keys, 64)
        except OSError:
            data = b""
        if not data:  # the terminal is gone: the person left the table
            asyncio.get_running_loop().remove_reader(self.keys)
            self.seat.leave()
            return
        for key in parse_keys(data):
            self.key(key)
        self.draw()

    def key(self, key: str) -> None:
        """One key, as the page takes it: start, deal again, choose, select, play, confirm, why."""
        if self.phase in ("start", "hold"):
            if key in ("space", "enter"):
                if self.phase == "start":
                    self.table.ask_to_start(0)
                    self.status = "Dealing..."
                else:
                    self.seat.deal_again()
                self.phase = "waiting"
            return
        ask = self.ask
        if ask is None:
            return
        hand = self.view.get("hand", [])
        choices = self.choices()
        if key in ("left", "right", "home", "end"):
            n = len(choices) if choices else len(hand)
            at = self.choice if choices else self.focus
            at = {"left": at - 1, "right": at + 1, "home": 0, "end": n - 1}[key]
            at = max(0, min(n - 1, at))
            if choices:
                self.choice = at
            else:
                self.focus = at
            return
        if choices:
            if key in ("space", "enter"):
                self.send(choices[self.choice][1])
            return
        name = hand[self.focus] if hand else ""
        if key == "why":
            why = ask.get("refusals", {}).get(name)
            self.status = f"{card_text(name)}: {why}" if why else f"{card_text(name)} may be played"
        elif ask["rpc"] == "PlayCard" and key in ("space", "enter"):
            self.send({"card": name})
        elif key == "space":
            if self.focus in self.selected:
                self.selected.remove(self.focus)
            else:
                self.selected.append(self.focus)
        elif key == "enter":
            self.send({"cards": [hand[i] for i in self.selected]})

    def choices(self) -> list[tuple[str, dict[str, Any]]]:
        """The buttons of a decision that is no card: the dealer's call, the moon's scoring."""
        ask = self.ask
        if ask is None:
            return []
        if ask["rpc"] == "ChooseMoon":
            points = ask["request"].get("moon_points", 26)
            return [
                (f"add {points} to every other player", {"choice": "MOON_CHOICE_ADD_TO_OTHERS"}),
                (f"take {points} off your total", {"choice": "MOON_CHOICE_SUBTRACT_FROM_SHOOTER"}),
            ]
        if ask["rpc"] == "CallPass":
            k, n = self.rules.get("pass_count", 3), self.rules.get("players", 4)
            out = [("pass left", {"offsets": [1] * k}), ("pass right", {"offsets": [n - 1] * k})]
            if n == 4:
                out.append(("pass across", {"offsets": [2] * k}))
            return [*out, ("mix", {"mix": True})]
        return []

    def send(self, answer: dict[str, Any]) -> None:
        """Answer the open decision; a refusal's reason goes to the status line."""
        ask = self.ask
        assert ask is not None
        try:
            self.seat.answer(ask["id"], answer)
        except AnswerRefused as e:
            self.status = e.reason
            return
        if "card" in answer:
            self.view["hand"] = [c for c in self.view.get("hand", []) if c != answer["card"]]
            self.trick[1].append(answer["card"])
        self.close_ask()
        self.status = "Passed." if ask["rpc"] == "PassCards" else "..."

    def close_ask(self) -> None:
        """The decision is over (answered, or substituted)."""
        self.ask = None
        self.selected = []
        self.phase = "waiting"
        self.focus = min(self.focus, max(0, len(self.view.get("hand", [])) - 1))

    # -- the events -----------------------------------------------------------------------------

    def who(self, seat: int) -> str:
        """A seat as the table names it: "you", or its player's name, inert."""
        return "you" if seat == self.me else inert(self.names[seat] if seat < len(self.names) else f"seat {seat}", 24)

    def event(self, e: dict[str, Any]) -> None:
        """One of the seat's events taken into what is drawn."""
        kind = e["type"]
        if kind == "ready":
            self.rules_text = str(e.get("rules", ""))
        elif kind == "ask":
            self.open_ask(e)
        elif kind == "done" and self.ask is not None and self.ask["id"] == e["id"]:
            self.close_ask()
            if e["how"] != "answered":
                self.status = "Your time ran out: the referee's substitute played for you."
        elif kind == "notify":
            self.notified(e["notify"])
        elif kind == "hold":
            self.phase = "hold"
            self.status = "Space or Enter: deal again"
        elif kind == "dealt":
            self.phase = "waiting"
        elif kind == "recorded":
            self.log.append(f"recorded: hearts replay {e['match_id']} --db {e['db']}")
            self.done.set()

    def open_ask(self, e: dict[str, Any]) -> None:
        """A decision asked: its view shown, the focus on a card the request lists as legal."""
        view = e["request"]["view"]
        self.names = list(view.get("player_names", self.names))
        self.me = view.get("seat", 0)
        self.rules = view.get("rules", self.rules)
        self.scores = list(view.get("scores", self.scores))
        self.view = view
        t = view.get("current_trick", {})
        self.trick = (t.get("leader", 0), list(t.get("cards", [])))
        if view.get("passed_cards") and e["rpc"] == "PlayCard" and not view.get("tricks") and not t.get("cards"):
            self.log.append(
                f"you passed {cards_text(view['passed_cards'])}, received {cards_text(view.get('received_cards', []))}"
            )
        self.ask = e
        self.selected = []
        self.choice = 0
        self.phase = PHASES.get(e["rpc"], "ask")
        hand = view.get("hand", [])
        legal = set(view.get("legal_cards", []))
        refusals = e.get("refusals", {})
        self.focus = 0
        if e["rpc"] == "PlayCard":
            self.focus = next((i for i, c in enumerate(hand) if c in legal), 0)
            self.status = "Your turn: ←/→ choose, Space plays"
        elif e["rpc"] == "PassCards":
            direction = DIRECTIONS.get(view.get("pass_direction", ""), "")
            self.status = f"Pass {self.rules.get('pass_count', 3)} cards {direction}: Space selects, Enter passes"
        elif e["rpc"] == "DiscardCards":
            self.status = f"Discard {e['request'].get('count', 0)} cards: Space selects, Enter discards"
        elif e["rpc"] == "ChargeCards":
            self.focus = next((i for i, c in enumerate(hand) if c not in refusals), 0)
            self.status = "Charge cards (or none): Space selects, Enter charges"
        else:
            self.status = "Choose: ←/→, then Enter"

    def notified(self, n: dict[str, Any]) -> None:
        """A notification: a trick taken, a hand scored, the match over."""
        players = self.rules.get("players", 4)
        if "trick_completed" in n:
            t = n["trick_completed"].get("trick", {})
            leader = t.get("leader", 0)
            plays = ", ".join(
                f"{self.who((leader + i) % players)} {card_text(c)}" for i, c in enumerate(t.get("cards", []))
            )
            winner = t.get("winner")
            end = "no winner" if winner is None else f"{self.who(winner)} {'take' if winner == self.me else 'takes'} it"
            self.log.append(f"trick: {plays}; {end}")
            self.trick = (leader if winner is None else winner, [])
        elif "hand_scored" in n:
            h = n["hand_scored"]
            self.scores = list(h.get("totals", []))
            line = ", ".join(f"{self.who(s)} {p}" for s, p in enumerate(h.get("hand_score", [])))
            moon = f"; {self.who(h['moon_shooter'])} shot the moon!" if "moon_shooter" in h else ""
            self.log.append(f"hand {h.get('hand_number', 0) + 1}: {line}{moon}")
        elif "match_over" in n:
            o = n["match_over"]
            self.phase = "over"
            places = o.get("places", [])
            self.status = "The match is over: " + ", ".join(
                f"{self.who(s)} {t} (place {places[s] if s < len(places) else '?'})"
                for s, t in enumerate(o.get("totals", []))
            )

    # -- drawing --------------------------------------------------------------------------------

    def draw(self) -> None:
        """The whole table, drawn anew: the seats and the trick, your hand, the log, the status."""
        c = self.console
        c.clear()
        parts: list[Any] = [Text(f"Hearts  {self.rules_text}", style="bold")]
        if self.names:
            seats = RichTable(box=None, show_header=False, padding=(0, 2))
            players = self.rules.get("players", len(self.names))
            leader, cards = self.trick
            played: dict[int, list[str]] = {}  # a boosted trick (booster_nines) goes round twice
            for i, played_card in enumerate(cards):
                played.setdefault((leader + i) % players, []).append(played_card)
            for s in range(players):
                seats.add_row(
                    Text(self.who(s)),
                    Text(f"{self.scores[s] if s < len(self.scores) else 0} points"),
                    Text(" ".join(card_text(x) for x in played.get(s, []))),
                )
            parts.append(seats)
        parts.append(self.hand_line())
        choices = self.choices()
        if choices:
            line = Text()
            for i, (label, _) in enumerate(choices):
                line.append(f" {label} ", style="reverse" if i == self.choice else "")
                line.append("  ")
            parts.append(line)
        parts += [Text(entry) for entry in self.log[-6:]]
        marker = f"decision {self.ask['id']}: {self.phase}" if self.ask else self.phase
        parts.append(Text(f"[{marker}] {self.status}", style="bold"))
        c.print(Group(*parts))

    def hand_line(self) -> Text:
        """Your hand: the focused card in brackets, the selected underlined, the forbidden dimmed."""
        line = Text("your hand: ")
        ask = self.ask
        hand = self.view.get("hand", [])
        legal = set(self.view.get("legal_cards", []))
        refusals = ask.get("refusals", {}) if ask else {}
        for i, name in enumerate(hand):
            dimmed = ask is None or (ask["rpc"] == "PlayCard" and name not in legal) or name in refusals
            style = "dim" if dimmed else ""
            if i in self.selected:
                style += " underline"
            text = card_text(name)
            line.append(f"[{text}]" if i == self.focus and ask else f" {text} ", style=style.strip())
            line.append(" ")
        return line

    # -- the loop -------------------------------------------------------------------------------

    async def run(self) -> None:
        """Draw the table and take the keys until the match is recorded."""
        loop = asyncio.get_running_loop()
        self.seat.join()
        loop.add_reader(self.keys, self.on_keys)
        try:
            self.draw()
            seen = 0
            while not self.done.is_set():
                for e in await self.seat.next_events(seen):
                    seen = e["seq"]
                    self.event(e)
                self.draw()
        finally:
            with contextlib.suppress(Exception):
                loop.remove_reader(self.keys)


@contextlib.contextmanager
def raw_keys(stream: TextIO) -> Iterator[int]:
    """The terminal's keys one by one, unechoed (Ctrl-C still stops); restored after."""
    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield fd
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def has_terminal() -> bool:
    """Whether this process reads and writes a terminal (``--tui`` needs one)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


async def at_terminal(sitting: Sitting, console: Console) -> MatchRecord:
    """Play the sitting in this terminal: the table drawn, the keys read, the match recorded."""
    with raw_keys(sys.stdin) as keys:
        terminal = Terminal(sitting.table.seats[0], sitting.table, console, keys)
        drawing = asyncio.create_task(terminal.run())
        try:
            record = await play_and_record(sitting)
            await asyncio.wait_for(drawing, 10)
            return record
        finally:
            drawing.cancel()
            with contextlib.suppress(BaseException):
                await drawing
