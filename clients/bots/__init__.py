"""The sample bots, by name: ``python -m clients.bots.NAME --port N`` or ``hearts bot serve NAME``.

- ``random``: a uniformly random legal move from its own seeded RNG (``--seed``).
- ``lowest``: always the lowest legal card; passes its highest cards. A deterministic baseline.
- ``heuristic``: the tips of rule source 003 (docs/rules.md) (pass high spades and hearts, void a short suit,
  duck with the highest losing card, dump Q♠ and high hearts when void).
- ``montecarlo``: perfect-information Monte Carlo over sampled worlds with the engine's compiled
  rollouts, within a set share of its clock (clients/bots/montecarlo.py).
- ``ismcts``: information-set Monte Carlo tree search over sampled worlds, passes searched too, on the
  same clock as ``montecarlo`` (clients/bots/ismcts.py).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from clients.sdk import BotProtocol, serve

# name -> (module, class): imported only when asked, so serving one bot loads only that one.
BOTS: dict[str, tuple[str, str]] = {
    "random": ("clients.bots.random", "RandomBot"),
    "lowest": ("clients.bots.lowest", "LowestBot"),
    "heuristic": ("clients.bots.heuristic", "HeuristicBot"),
    "montecarlo": ("clients.bots.montecarlo", "ThreadedMonteCarloBot"),
    "ismcts": ("clients.bots.ismcts", "ThreadedSearchBot"),
}


def make_bot(name: str, seed: int | None = None, **options: float) -> BotProtocol:
    """A sample bot by name. ``seed`` seeds the random bot; the deterministic bots ignore it.
    ``options`` go to the bot's constructor (montecarlo: ``budget_fraction``, ``bank_fraction``)."""
    try:
        module, cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown sample bot {name!r}: expected one of {', '.join(BOTS)}") from None
    factory = getattr(importlib.import_module(module), cls)
    return factory(seed=seed, **options)


def main(name: str, argv: Sequence[str] | None = None) -> None:
    """The command line of ``python -m clients.bots.NAME``: serve that bot until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(prog=f"python -m clients.bots.{name}", description=f"Serve the {name} bot.")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free port; default 0)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bot's own RNG (random bot)")
    if name in ("montecarlo", "ismcts"):
        parser.add_argument("--budget-fraction", type=float, default=0.5, help="share of each decision's budget")
        parser.add_argument("--bank-fraction", type=float, default=0.02, help="share of the time bank per decision")
    args = parser.parse_args(argv)
    options = {}
    if name in ("montecarlo", "ismcts"):
        options = {"budget_fraction": args.budget_fraction, "bank_fraction": args.bank_fraction}
    serve(make_bot(name, seed=args.seed, **options), port=args.port, host=args.host)
