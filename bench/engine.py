"""Engine speed: random play of whole hands (deal, pass, every checked play, scoring), hands/s.

When OpenSpiel is installed (``pip install -e '.[bench]'``), the same run measures pyspiel's
``hearts`` driven from a Python loop the same way (a random legal action at each step, chance
included) and prints the ratio. Target: at least 2x pyspiel.

On a busy machine, ``--rounds N`` alternates the standard and pyspiel measurements N times and
reports the medians (the ratio is the median of the per-round ratios), so that both sides see
the same load.

    python bench/engine.py [--seconds 3] [--rounds 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.rules import Match, Phase, Rules  # noqa: E402
from referee.rules.cards import cards_of  # noqa: E402


def hearts_arena(rules: Rules, seconds: float) -> tuple[float, int]:
    """Hands per second of random play through the public, checked engine API."""
    rng = random.Random(1)
    choice, sample = rng.choice, rng.sample
    hands = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        m = Match(rules, seed)
        seed += 1
        while not m.over:
            phase = m.phase
            if phase is Phase.PLAY:
                m.play(choice(m.legal_plays().cards))
            elif phase is Phase.PASS:
                h = m.hand
                for s in m.to_move:
                    m.pass_cards(s, sample(cards_of(h.hands[s]), rules.pass_count))
            else:
                m.choose_moon(m.turn, "add-to-others")
        hands += len(m.results)
    elapsed = time.perf_counter() - start
    return hands / elapsed, hands


def pyspiel_hearts(seconds: float) -> tuple[float, int] | None:
    """Hands per second of pyspiel's hearts (one pyspiel game is one hand), random play."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rng = random.Random(1)
    choice = rng.choice
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
        hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, hands


def _median_row(rows: list[tuple[float, int]]) -> tuple[float, int]:
    """The median rate of several measurements, with the total number of hands played."""
    return statistics.median(r for r, _ in rows), sum(n for _, n in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate the standard and pyspiel measurements this many times; report medians")
    ap.add_argument("--json", action="store_true", help="print one JSON object with the figures")
    args = ap.parse_args()
    standard, spiels, ratios = [], [], []
    for _ in range(max(1, args.rounds)):
        standard.append(hearts_arena(Rules.preset("standard"), args.seconds))
        spiel_round = pyspiel_hearts(args.seconds)
        if spiel_round:
            spiels.append(spiel_round)
            ratios.append(standard[-1][0] / spiel_round[0])
    rows = {
        "standard": _median_row(standard),
        "black-maria": hearts_arena(Rules.preset("black-maria"), args.seconds),
    }
    spiel = _median_row(spiels) if spiels else None
    result = {
        "benchmark": "engine",
        "hands_per_second": {k: round(v[0], 1) for k, v in rows.items()},
        "pyspiel_hands_per_second": round(spiel[0], 1) if spiel else None,
        "ratio_vs_pyspiel": round(statistics.median(ratios), 2) if spiel else None,
        "target_ratio": 2.0,
    }
    if len(ratios) > 1:
        result["round_ratios"] = [round(r, 2) for r in ratios]
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'engine':<32}{'hands/s':>12}{'hands':>10}")
    for k, (rate, n) in rows.items():
        print(f"{'hearts-arena ' + k:<32}{rate:>12,.0f}{n:>10,}")
    if spiel:
        print(f"{'pyspiel hearts (Python loop)':<32}{spiel[0]:>12,.0f}{spiel[1]:>10,}")
        ok = "meets" if result["ratio_vs_pyspiel"] >= 2.0 else "misses"
        rounds = f" (median of rounds: {', '.join(f'{r:.2f}' for r in ratios)})" if len(ratios) > 1 else ""
        print(f"ratio vs pyspiel: {result['ratio_vs_pyspiel']:.2f}x ({ok} the 2x target){rounds}")
    else:
        print("pyspiel not installed (pip install -e '.[bench]'): no ratio measured")


if __name__ == "__main__":
    main()
