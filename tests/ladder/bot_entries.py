"""Registry entries of the sample bots, for tests that create tournaments."""

from __future__ import annotations

from ladder.bots.registry import BotEntry

# Four bots started by command; for tournaments whose matches a test records by hand.
BOTS = [BotEntry(n, command=f"python -m clients.bots.lowest --port {{port}} --name {n}") for n in "abcd"]


def sample(name: str, module: str, seed: int | None = None) -> BotEntry:
    extra = f" --seed {seed}" if seed is not None else ""
    return BotEntry(name, command=f"python -m clients.bots.{module} --port {{port}}{extra}")


def remote_bots(address: str) -> list[BotEntry]:
    """Four remote bots, a to d, all served at ``address``."""
    return [BotEntry(n, address=address) for n in "abcd"]
