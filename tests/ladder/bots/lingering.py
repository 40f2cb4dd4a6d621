"""A lowest-card bot that stops serving on its Nth play but lingers as a process before exiting.

``python lingering.py PORT N MARK``: the referee sees its connection drop at once, while the
process is still alive for a few seconds: the tournament must not seat the dead address again.
MARK is a file: the bot goes silent only if MARK does not exist yet, so a restarted one plays on.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from clients.sdk import Bot, View, start_in_thread
from referee.rules import Card


class Lingering(Bot):
    name = "lingering"

    def __init__(self, n: int, mark: Path) -> None:
        self.n = n
        self.mark = mark
        self.plays = 0
        self.silent = threading.Event()

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        self.plays += 1
        if self.plays >= self.n and not self.mark.exists():
            self.mark.write_text("went silent once")
            self.silent.set()
            time.sleep(0.5)  # never answers: the server is stopped under this call
        return min(view.legal, key=lambda c: (c.rank, c.suit))


if __name__ == "__main__":
    bot = Lingering(int(sys.argv[2]), Path(sys.argv[3]))
    server = start_in_thread(bot, port=int(sys.argv[1]))
    print(f"listening on {server.address}", flush=True)
    bot.silent.wait()
    server.stop(timeout=0.1)  # the port closes; the process stays
    time.sleep(4)
    os._exit(17)
