"""A bot that counts its concurrent requests and the matches they belong to.

``python counting.py PORT LIMIT OUT``: declares ``max_concurrent_games = LIMIT`` in its handshake,
plays the lowest legal card after a short sleep (so overlapping games overlap in time), and
rewrites OUT with the most requests and the most distinct matches it ever had in flight at once.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

from clients.sdk import Bot, View, serve
from referee.rules import Card


class Counting(Bot):
    name = "counting"

    def __init__(self, limit: int, out: Path) -> None:
        self.max_concurrent_games = limit
        self.out = out
        self.in_flight: Counter[str] = Counter()
        self.max_requests = 0
        self.max_matches = 0
        self.requests = 0

    async def _enter(self, view: View) -> None:
        self.in_flight[view.match_id] += 1
        self.requests += 1
        now = sum(self.in_flight.values())
        if now > self.max_requests or len(self.in_flight) > self.max_matches:
            self.max_requests = max(self.max_requests, now)
            self.max_matches = max(self.max_matches, len(self.in_flight))
        self.out.write_text(
            json.dumps({"max_requests": self.max_requests, "max_matches": self.max_matches, "requests": self.requests})
        )
        await asyncio.sleep(0.003)

    def _leave(self, view: View) -> None:
        self.in_flight[view.match_id] -= 1
        if not self.in_flight[view.match_id]:
            del self.in_flight[view.match_id]

    async def pass_cards(self, view: View) -> list[Card]:
        await self._enter(view)
        try:
            return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]
        finally:
            self._leave(view)

    async def play_card(self, view: View) -> Card:
        await self._enter(view)
        try:
            return min(view.legal, key=lambda c: (c.rank, c.suit))
        finally:
            self._leave(view)


if __name__ == "__main__":
    serve(Counting(int(sys.argv[2]), Path(sys.argv[3])), port=int(sys.argv[1]))
