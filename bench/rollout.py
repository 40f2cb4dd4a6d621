"""Rollout speed: hand completions from the first trick per second, against pyspiel's C++.

hearts-arena: ``rollout(hand.copy(), policy, seed)`` (referee/rules/state.py, compiled by mypyc with
the engine) from positions at the first lead of the play (the pass done), for the random and the
rule-of-thumb policies. pyspiel: ``pyspiel.evaluate_bots`` with uniform random bots, the whole hand
played by OpenSpiel's own C++ (no Python per move), from positions at its first lead too (and, for
reference, from its initial state: deal and pass included). Target: random rollouts >= 1.0x pyspiel's
C++ loop from the first trick. Each hearts-arena row runs in a child process pinned to its engine;
``--rounds N`` alternates the measurements and reports medians.

    python bench/rollout.py [--seconds 2] [--rounds 1] [--engine both|compiled|pure|loaded] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.engine import ENGINES, _engine_env, _loaded_engine  # noqa: E402

POSITIONS = 256
TARGET = 1.0


def arena_positions(count: int = POSITIONS) -> list[object]:
    """Standard hands at their first lead (each seat passed its first three cards)."""
    from referee.rules import Match, Rules, cards_of

    out = []
    for seed in range(count):
        m = Match(Rules(), seed)
        for s in range(4):
            m.pass_cards(s, cards_of(m.hand.hands[s])[:3])
        out.append(m.hand)
    return out


def arena_rollouts(policy: int, seconds: float) -> tuple[float, int]:
    from referee.rules.state import rollout

    hands = arena_positions()
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for h in hands:
            rollout(h.copy(), policy, n)  # type: ignore[attr-defined]
            n += 1
    return n / (time.perf_counter() - start), n


def pyspiel_rollouts(seconds: float, from_first_trick: bool) -> tuple[float, int] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]  # optional: the bench extra
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rng = random.Random(1)
    starts = []
    for _ in range(POSITIONS):
        state = game.new_initial_state()
        # Deal and pass from Python, up to the first lead (the play phase).
        while from_first_trick and not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            elif len(state.history()) >= 1 + 52 + 12:  # pass direction, the deal, four passes of 3
                break
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        starts.append(state)
    bots = [pyspiel.make_uniform_random_bot(i, 100 + i) for i in range(4)]
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for s in starts:
            pyspiel.evaluate_bots(s.clone(), bots, n)
            n += 1
    return n / (time.perf_counter() - start), n


def worlds_per_second(seconds: float) -> dict[str, float]:
    """clients.sampling worlds drawn per second (a Sampler per decision, 1,000 worlds each), at the
    first lead after the pass, after trick 4 and after trick 9 of random standard hands."""
    from clients.sampling import Sampler
    from referee.rules import Match, Phase, Rules

    out = {}
    for tricks in (0, 4, 9):
        views = []
        rng = random.Random(tricks)
        for seed in range(20):
            m = Match(Rules(), seed)
            while not (m.phase is Phase.PLAY and len(m.hand.tricks) == tricks and len(m.hand.trick_cards) == 1):
                if m.phase is Phase.PASS:
                    for s in m.to_move:
                        m.pass_cards(s, rng.sample(m.legal_plays(s).cards or list(m.observation(s).hand), 3))
                else:
                    m.play(rng.choice(m.legal_plays().cards))
            views.append(m.observation(m.to_move[0]))
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / 3:
            for v in views:
                n += len(Sampler(v).sample(1000, rng))
        out[f"after {tricks} tricks"] = n / (time.perf_counter() - start)
    return out


def measure(engine: str, policy: int, seconds: float) -> tuple[float, int]:
    cmd = [sys.executable, __file__, "--child", engine, "--policy", str(policy), "--seconds", str(seconds)]
    out = subprocess.run(cmd, check=False, cwd=ROOT, env=_engine_env(engine), capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"the {engine} measurement failed:\n{out.stderr}")
    data = json.loads(out.stdout)
    return data["rate"], data["hands"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement (default 2)")
    ap.add_argument("--rounds", type=int, default=1, help="alternate the measurements N times; report medians")
    ap.add_argument("--engine", choices=("both", "loaded", *ENGINES), default="both")
    ap.add_argument("--json", action="store_true", help="print one JSON object with the figures")
    ap.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--policy", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        import referee.rules

        if referee.rules.ENGINE != args.child:
            raise SystemExit(f"asked for the {args.child} engine, got {referee.rules.ENGINE}")
        rate, n = arena_rollouts(args.policy, args.seconds)
        print(json.dumps({"rate": rate, "hands": n}))
        return
    loaded, why = _loaded_engine("compiled")
    engines = (
        (["compiled", "pure"] if loaded == "compiled" else ["pure"])
        if args.engine == "both"
        else [loaded]
        if args.engine == "loaded"
        else [args.engine]
    )
    if "compiled" in engines and loaded != "compiled":
        raise SystemExit(f"no usable compiled engine ({why}): run `make engine`")
    rows: dict[str, list[float]] = {}
    spiel: list[float] = []
    spiel_full: list[float] = []
    ratios: dict[str, list[float]] = {e: [] for e in engines}
    for _ in range(max(1, args.rounds)):
        for e in engines:
            for policy, label in ((0, "random"), (1, "rule-of-thumb")):
                rows.setdefault(f"{label} [{e}]", []).append(measure(e, policy, args.seconds)[0])
        s = pyspiel_rollouts(args.seconds, True)
        if s:
            spiel.append(s[0])
            for e in engines:
                ratios[e].append(rows[f"random [{e}]"][-1] / s[0])
            full = pyspiel_rollouts(args.seconds, False)
            assert full
            spiel_full.append(full[0])
    worlds = worlds_per_second(args.seconds)
    result = {
        "benchmark": "rollout",
        "worlds_per_second": {k: round(v) for k, v in worlds.items()},
        "engine": loaded,
        "rollouts_per_second": {k: round(statistics.median(v)) for k, v in rows.items()},
        "pyspiel_cpp_from_first_trick_per_second": round(statistics.median(spiel)) if spiel else None,
        "pyspiel_cpp_whole_hand_per_second": round(statistics.median(spiel_full)) if spiel_full else None,
        "ratio_vs_pyspiel_cpp": {e: round(statistics.median(r), 2) for e, r in ratios.items() if r},
        "target_ratio": TARGET,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'hand completions from the first trick':<52}{'per s':>12}{'vs pyspiel C++':>16}")
    for k, v in result["rollouts_per_second"].items():
        e = k.split("[")[1].rstrip("]")
        vs = f"{result['ratio_vs_pyspiel_cpp'][e]:.2f}x" if k.startswith("random") and spiel else ""
        print(f"{'hearts-arena rollout ' + k:<52}{v:>12,}{vs:>16}")
    for k, v in result["worlds_per_second"].items():
        print(f"{'clients.sampling worlds, ' + k:<52}{v:>12,}{f'{1000 / v * 1000:.0f} ms/1000':>16}")
    if spiel:
        spiel_rate = result["pyspiel_cpp_from_first_trick_per_second"]
        print(f"{'pyspiel evaluate_bots, uniform random (C++)':<52}{spiel_rate:>12,}")
        print(
            f"{'  (from its initial state: deal and pass too)':<52}{result['pyspiel_cpp_whole_hand_per_second']:>12,}"
        )
        for e, r in result["ratio_vs_pyspiel_cpp"].items():
            print(
                f"ratio vs pyspiel C++, {e} engine: {r:.2f}x ({'meets' if r >= TARGET else 'misses'} the 1.0x target)"
            )
    else:
        print("pyspiel not installed (pip install -e '.[bench]'): no ratio measured")


if __name__ == "__main__":
    main()
