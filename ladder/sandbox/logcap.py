"""A bot's output, capped: the first half of the cap goes to its log as it comes, the last half is
kept in memory and written when the output ends, with how many bytes were dropped between.

A bot that floods its output fills no disk: whatever it writes, its log grows by at most
``cap`` bytes per start (and a line saying what was dropped). ``on_over`` is called once, from the
pump's thread, when the output first passes the cap. Over all its starts (a bot that crashes is
started again for the next match), ``rotate`` keeps the log and one older generation,
``NAME.log.1``: at most ``2 * (GENERATION_CAPS + 1) * cap`` bytes in all, the newest kept.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["GENERATION_CAPS", "LogPump", "rotate"]

_CHUNK = 65536
GENERATION_CAPS = 4  # a log holding this many starts' caps is moved aside before the next start


def rotate(path: Path, cap: int) -> bool:
    """Before a start: move a log of ``GENERATION_CAPS * cap`` bytes or more to ``NAME.log.1`` (the
    older generation it replaces goes), so that the new start writes a fresh one. Whether it did."""
    try:
        if path.stat().st_size < GENERATION_CAPS * cap:
            return False
    except FileNotFoundError:
        return False
    os.replace(path, path.with_name(path.name + ".1"))
    return True


class LogPump:
    """Reads ``fd`` (the read end of the bot's stdout/stderr pipe) into ``log`` on a daemon thread."""

    def __init__(self, fd: int, log: BinaryIO, cap: int, on_over: Callable[[int], None] | None = None) -> None:
        self.fd = fd
        self.log = log
        self.head = max(0, cap // 2)
        self.tail_cap = max(0, cap - self.head)
        self.on_over = on_over
        self.written = 0  # bytes of the head written
        self.total = 0  # bytes the bot wrote
        self._tail: deque[bytes] = deque()
        self._tail_bytes = 0
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bot-log", daemon=True)
        self._thread.start()

    @property
    def dropped(self) -> int:
        return max(0, self.total - self.written - self._tail_bytes)

    def _run(self) -> None:
        over = False
        try:
            while True:
                try:
                    data = os.read(self.fd, _CHUNK)
                except OSError:
                    break
                if not data:
                    break
                self.total += len(data)
                room = self.head - self.written
                if room > 0:
                    part = data[:room]
                    self.log.write(part)
                    self.log.flush()
                    self.written += len(part)
                    data = data[room:]
                if data:
                    self._tail.append(data)
                    self._tail_bytes += len(data)
                    while self._tail_bytes - len(self._tail[0]) >= self.tail_cap and len(self._tail) > 1:
                        self._tail_bytes -= len(self._tail.popleft())
                    if not over and self.total > self.head + self.tail_cap:
                        over = True
                        if self.on_over is not None:
                            self.on_over(self.total)
            self._finish()
        finally:
            os.close(self.fd)
            self.done.set()

    def _finish(self) -> None:
        tail = b"".join(self._tail)[-self.tail_cap :] if self.tail_cap else b""
        dropped = self.total - self.written - len(tail)
        if dropped > 0:
            self.log.write(
                f"\n[... {dropped} bytes of output dropped: the log keeps the first {self.head} "
                f"and the last {self.tail_cap} bytes of each start ...]\n".encode()
            )
        self.log.write(tail)
        self.log.flush()
        self.log.close()

    def join(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)
