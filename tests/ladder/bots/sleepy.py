"""A bot that thinks 20 ms over every decision (a sleep), then passes its highest cards and plays its
lowest legal one: ``sleepy:Sleepy`` in-process (this folder on the path), or ``python sleepy.py --port
PORT`` served over gRPC. Under a 5 ms budget with no bank and no grace it times out every time; under
the usual clock (a second a decision) never.
"""

from __future__ import annotations

import time

from clients.sdk import Bot, View, serve
from referee.rules import Card

THINK_S = 0.02


class Sleepy(Bot):
    name = "sleepy"

    def pass_cards(self, view: View) -> list[Card]:
        time.sleep(THINK_S)
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        time.sleep(THINK_S)
        return min(view.legal, key=lambda c: c.rank)


if __name__ == "__main__":
    serve(Sleepy())
