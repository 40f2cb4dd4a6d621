"""hearts play --tui through a pseudo-terminal: the real command in a real terminal, one hand (more
when a tie for lowest deals on) played with the page's keys alone (Enter to start, ←/→ and Space to
choose and play, Enter to pass, Space to deal again), then checked against the store's record."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest
from play_helpers import HEARTS

from ladder.store import Store

pytestmark = pytest.mark.slow  # whole processes and servers

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
MARK = re.compile(r"\[(decision (\d+): (\w+)|hold|over)\]")
LEFT, RIGHT, SPACE, ENTER = b"\x1b[D", b"\x1b[C", b" ", b"\r"


class Pty:
    """A process on a pseudo-terminal of 40 x 120: what it has drawn, the keys sent to it."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True)
        os.close(slave)
        self.screen = ""

    def read(self, timeout: float = 0.2) -> None:
        while select.select([self.master], [], [], timeout)[0]:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the process closed its terminal
                return
            if not data:
                return
            self.screen += ANSI.sub(b"", data).decode("utf-8", "replace")
            timeout = 0.05

    def last_mark(self) -> tuple[str, int, str]:
        marks = MARK.findall(self.screen)
        if not marks:
            return "", 0, ""
        whole, number, phase = marks[-1]
        return whole, int(number or 0), phase or whole

    def send(self, *keys: bytes) -> None:
        for k in keys:
            os.write(self.master, k)

    def wait_for(self, test: object, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not test():  # type: ignore[operator]
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"the terminal never showed it; last drawn:\n{self.screen[-2000:]}")
            self.read()


def test_one_hand_in_a_terminal_with_the_pages_keys(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    t = Pty(
        [HEARTS, "play", "--tui", "--rules", "standard,target=1", "--seed", "6", "--name", "tess", "--db", str(db)],
        tmp_path,
    )
    try:
        t.wait_for(lambda: "Space or Enter to start" in t.screen)
        t.send(ENTER)
        passed: list[str] = []
        played = 0
        last = 0
        while True:
            t.wait_for(lambda seen=last: t.last_mark()[1] > seen or t.last_mark()[2] in ("hold", "over"))
            _, number, phase = t.last_mark()
            if phase == "over":
                break
            if phase == "hold":
                t.screen = ""
                t.send(SPACE)  # deal again
                continue
            last = number
            if phase == "pass":
                t.send(SPACE, RIGHT, RIGHT, SPACE, RIGHT, SPACE, ENTER)  # cards 1, 3 and 4 of the hand
                passed.append(number)
            elif phase == "play":
                t.send(SPACE)  # the focus starts on a legal card
                played += 1
            else:
                raise AssertionError(f"not asked under these rules: {phase}")
        t.wait_for(lambda: "recorded in" in t.screen)
        assert t.proc.wait(60) == 0, t.screen[-2000:]
    finally:
        if t.proc.poll() is None:
            t.proc.kill()
            t.proc.wait(10)
        os.close(t.master)
    with Store(db, readonly=True) as store:
        (mid,) = list(store.match_ids())
        record = store.load_match(mid)
    seat = record.seats[0]
    assert (seat.bot, seat.kind, seat.faults) == ("tess", "human", 0)
    mine = [p for p in record.plays if p.seat == 0]
    assert len(mine) == played and not any(p.substituted for p in mine)
    passes = [p for h in record.hands for p in h.passes if p.seat == 0]
    assert len(passes) == len(passed) and not any(p.substituted for p in passes)
    for h, p in zip(record.hands, passes):  # the keys chose the hand's cards 1, 3 and 4 as dealt (sorted)
        dealt = h.deal[0]
        assert set(p.cards) == {dealt[0], dealt[2], dealt[3]}
