"""The progress of a long run on the screen: the CLI's side of ``play_tournament``'s ``on_record``.

The library reports each recorded match through a callback and draws nothing; this is what the
``hearts`` commands (and the demo) draw with it: a rich bar on a terminal, plain lines elsewhere.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from referee.record import MatchRecord


class Progress:
    """Matches done, matches per second, ETA and faults: a rich bar on a terminal, else plain lines."""

    def __init__(
        self,
        total: int,
        done: int = 0,
        *,
        title: str = "tournament",
        stream: TextIO | None = None,
        rich: bool | None = None,
        every_s: float = 2.0,
    ) -> None:
        self.total, self.done, self.faults, self.played = total, done, 0, 0
        self.title = title
        self.stream = stream if stream is not None else sys.stdout
        self.rich = self.stream.isatty() if rich is None else rich
        self.every_s = every_s
        self.t0 = time.monotonic()
        self._last = 0.0
        self._shown = -1
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.rich:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:.2f} matches/s"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("faults {task.fields[faults]}"),
                console=Console(file=self.stream),
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self.title, total=self.total, completed=self.done, rate=0.0, faults=0)
        else:
            self._line()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
        elif self._shown != self.done:
            self._line()

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.t0
        return self.played / elapsed if elapsed > 0 else 0.0

    def on_record(self, record: MatchRecord) -> None:
        """The callback of ``play_tournament``: one match recorded."""
        self.advance(len(record.faults))

    def grow(self, matches: int) -> None:
        """More matches to play (a Swiss's or a knockout's next round, drawn from the results)."""
        self.total += matches
        if self._bar is not None:
            self._bar.update(self._task, total=self.total)

    def say(self, text: str) -> None:
        """A line above the bar (or among the plain lines)."""
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.stream, flush=True)

    def advance(self, faults: int = 0) -> None:
        self.done += 1
        self.played += 1
        self.faults += faults
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, rate=self.rate, faults=self.faults)
        elif time.monotonic() - self._last >= self.every_s or self.done == self.total:
            self._line()

    def _line(self) -> None:
        self._last = time.monotonic()
        self._shown = self.done
        rate = self.rate
        eta = f"{(self.total - self.done) / rate:.0f} s" if rate > 0 else "?"
        print(
            f"{self.title}: {self.done}/{self.total} matches, {rate:.2f} matches/s, ETA {eta}, faults {self.faults}",
            file=self.stream,
            flush=True,
        )
