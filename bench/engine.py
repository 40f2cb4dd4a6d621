"""Engine speed: random play of whole hands (deal, pass, every checked play, scoring), hands/s.

When OpenSpiel is installed (``pip install -e '.[bench]'``), the same run measures pyspiel's
``hearts`` driven from a Python loop the same way (a random legal action at each step, chance
included) and prints the ratio. Target: at least 2x pyspiel.

The engine runs compiled by mypyc (``make engine``) or as pure Python (referee/rules/_loader.py
decides; ``HEARTS_PURE_PYTHON=1`` forces pure). Each hearts-arena measurement runs in a child
process pinned to one engine, which checks it got that engine; by default both are measured
when the compiled build is usable (``--engine both``), and each row names its engine.

On a busy machine, ``--rounds N`` alternates the measurements (each engine, then pyspiel) N times
and reports the medians (each ratio is the median of the per-round ratios), so that all sides
see the same load.

    python bench/engine.py [--seconds 3] [--rounds 1] [--engine both|compiled|pure|loaded] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENGINES = ("compiled", "pure")


def hearts_arena(preset: str, seconds: float) -> tuple[float, int]:
    """Hands per second of random play through the public, checked engine API (this process's engine)."""
    from referee.rules import Match, Phase, Rules
    from referee.rules.cards import cards_of

    rules = Rules.preset(preset)
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
        import pyspiel  # type: ignore[import-not-found]  # optional: the bench extra
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


def _engine_env(engine: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("HEARTS_PURE_PYTHON", None)
    if engine == "pure":
        env["HEARTS_PURE_PYTHON"] = "1"
    return env


def _loaded_engine(engine: str) -> tuple[str, str]:
    """The engine a child process gets when it asks for ``engine`` (and why), without measuring."""
    code = (
        "import warnings; warnings.simplefilter('ignore'); import referee.rules as r; print(r.ENGINE, r.ENGINE_REASON)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_engine_env(engine), capture_output=True, text=True, check=True
    ).stdout.strip()
    got, _, why = out.partition(" ")
    return got, why


def measure(engine: str, preset: str, seconds: float) -> tuple[float, int]:
    """One measurement in a child process running ``engine`` (it fails if it got the other one)."""
    cmd = [sys.executable, __file__, "--child", engine, "--preset", preset, "--seconds", str(seconds)]
    out = subprocess.run(cmd, check=False, cwd=ROOT, env=_engine_env(engine), capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"the {engine} measurement failed:\n{out.stderr}")
    data = json.loads(out.stdout)
    return data["rate"], data["hands"]


def _child(engine: str, preset: str, seconds: float) -> None:
    import referee.rules

    if referee.rules.ENGINE != engine:
        raise SystemExit(f"asked for the {engine} engine, got {referee.rules.ENGINE}: {referee.rules.ENGINE_REASON}")
    rate, hands = hearts_arena(preset, seconds)
    print(json.dumps({"engine": engine, "rate": rate, "hands": hands}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="alternate the engine and pyspiel measurements this many times; report medians",
    )
    ap.add_argument(
        "--engine",
        choices=("both", "loaded", *ENGINES),
        default="both",
        help="which engine to measure: both (the compiled one only when its build is usable), "
        "the one referee.rules loads here, compiled (fails without a usable build), or pure",
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object with the figures")
    ap.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--preset", default="standard", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.preset, args.seconds)
        return
    loaded, why = _loaded_engine("compiled")  # what referee.rules runs here by default
    if args.engine == "both":
        engines = ["compiled", "pure"] if loaded == "compiled" else ["pure"]
    elif args.engine == "loaded":
        engines = [loaded]
    else:
        engines = [args.engine]
    if "compiled" in engines and loaded != "compiled":
        raise SystemExit(f"no usable compiled engine ({why}): run `make engine`")
    standard: dict[str, list[tuple[float, int]]] = {e: [] for e in engines}
    ratios: dict[str, list[float]] = {e: [] for e in engines}
    spiels = []
    for _ in range(max(1, args.rounds)):
        for e in engines:
            standard[e].append(measure(e, "standard", args.seconds))
        spiel_round = pyspiel_hearts(args.seconds)
        if spiel_round:
            spiels.append(spiel_round)
            for e in engines:
                ratios[e].append(standard[e][-1][0] / spiel_round[0])
    rows: dict[tuple[str, str], tuple[float, int]] = {}
    for e in engines:
        rows[("standard", e)] = _median_row(standard[e])
    for e in engines:
        rows[("black-maria", e)] = measure(e, "black-maria", args.seconds)
    spiel = _median_row(spiels) if spiels else None
    ratio = {e: round(statistics.median(ratios[e]), 2) for e in engines} if spiel else {}
    result = {
        "benchmark": "engine",
        "engine": loaded,  # what referee.rules loads here: the headline figures are this engine's
        "engines_measured": engines,
        "hands_per_second": {p: round(v[0], 1) for (p, e), v in rows.items() if e == engines[0]},
        "pyspiel_hands_per_second": round(spiel[0], 1) if spiel else None,
        "ratio_vs_pyspiel": ratio.get(engines[0]),
        "by_engine": {
            e: {
                "hands_per_second": {p: round(v[0], 1) for (p, e2), v in rows.items() if e2 == e},
                "ratio_vs_pyspiel": ratio.get(e),
                **({"round_ratios": [round(r, 2) for r in ratios[e]]} if len(ratios[e]) > 1 else {}),
            }
            for e in engines
        },
        "target_ratio": 2.0,
    }
    if args.json:
        print(json.dumps(result))
        return
    if loaded != "compiled":
        print(f"note: the compiled engine is not in use here ({why}); `make engine` builds it")
    print(f"{'engine':<42}{'hands/s':>12}{'hands':>10}{'vs pyspiel':>12}")
    for (preset, e), (rate, n) in rows.items():
        vs = f"{ratio[e]:.2f}x" if preset == "standard" and e in ratio else ""
        print(f"{f'hearts-arena {preset} [{e}]':<42}{rate:>12,.0f}{n:>10,}{vs:>12}")
    if spiel:
        print(f"{'pyspiel hearts (Python loop)':<42}{spiel[0]:>12,.0f}{spiel[1]:>10,}")
        for e in engines:
            ok = "meets" if ratio[e] >= 2.0 else "misses"
            rounds = f" (median of rounds: {', '.join(f'{r:.2f}' for r in ratios[e])})" if len(ratios[e]) > 1 else ""
            print(f"ratio vs pyspiel, {e} engine: {ratio[e]:.2f}x ({ok} the 2x target){rounds}")
    else:
        print("pyspiel not installed (pip install -e '.[bench]'): no ratio measured")


if __name__ == "__main__":
    main()
