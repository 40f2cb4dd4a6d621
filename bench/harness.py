"""Referee throughput against a bare gRPC echo of the same message sizes, in the same run.

Four trivial bots (first legal card) and four echo servers run as separate processes, so the
referee's own CPU is what this process spends. We measure:

- decisions per second of whole matches played one at a time, and of 16 matches at once;
- calls per second of a bare echo (a request the size of a typical PlayCardRequest, a reply the
  size of a PlayCardResponse) at the same concurrency (1, then 16 in flight), round robin over
  four servers like the four seats;

and print the ratio (target >= 0.8: the referee should cost little beyond gRPC itself).
Absolute figures drift ±25% between runs on shared machines; the ratio is what to compare. Each
round runs the referee and the echo back to back (alternating which goes first), and the ratio
reported is the median of the rounds' ratios: pairing cancels the machine's drift, and the median
ignores a round that other work disturbed. The best-of-each ratio (the fastest referee round over
the fastest echo round, what earlier versions reported) is printed beside it.

    python bench/harness.py [--single N] [--concurrent N] [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc

SERVER_OPTIONS = [("grpc.so_reuseport", 0)]
ECHO_METHOD = "/bench.Echo/Echo"
REPLY_BYTES = len(pb.PlayCardResponse(card=pb.CARD_QUEEN_OF_SPADES).SerializeToString())

# -- the servers (run in subprocesses) -----------------------------------------------------------


class TrivialBot(bot_pb2_grpc.BotServiceServicer):
    async def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(protocol_version=1, name="first-legal", language="python")

    async def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        v = request.view
        return pb.PassCardsResponse(cards=v.hand[: v.rules.pass_count])

    async def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        return pb.PlayCardResponse(card=request.view.legal_cards[0])

    async def ChooseMoon(self, request: pb.ChooseMoonRequest, context: Any) -> pb.ChooseMoonResponse:
        return pb.ChooseMoonResponse(choice=pb.MOON_CHOICE_ADD_TO_OTHERS)


class ThinkingBot(TrivialBot):
    """The trivial bot, thinking ``THINK_S`` before each decision (an async server: any number at once)."""

    async def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        await asyncio.sleep(THINK_S)
        return await super().PassCards(request, context)

    async def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        await asyncio.sleep(THINK_S)
        return await super().PlayCard(request, context)


THINK_S = 0.2


async def _serve(kind: str) -> None:
    server = grpc.aio.server(options=SERVER_OPTIONS)
    if kind in ("bot", "thinking"):
        bot_pb2_grpc.add_BotServiceServicer_to_server(TrivialBot() if kind == "bot" else ThinkingBot(), server)
    else:
        reply = b"\x08\x25"[:REPLY_BYTES].ljust(REPLY_BYTES, b"\x00")

        async def echo(request: bytes, context: Any) -> bytes:
            return reply

        handler = grpc.unary_unary_rpc_method_handler(echo, request_deserializer=None, response_serializer=None)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()


def start_servers(kind: str, n: int) -> tuple[list[subprocess.Popen[str]], list[str]]:
    # Separate processes started with subprocess (never a fork of a process that used gRPC).
    procs = [
        subprocess.Popen([sys.executable, __file__, "--serve", kind], stdout=subprocess.PIPE, text=True)
        for _ in range(n)
    ]
    addresses = []
    for p in procs:
        assert p.stdout is not None
        addresses.append(f"127.0.0.1:{int(p.stdout.readline())}")
    return procs, addresses


# -- the measurements ----------------------------------------------------------------------------


@dataclass
class Figure:
    """One measurement: a number of calls or decisions in a time, with the CPU this process spent."""

    count: int
    seconds: float
    cpu_seconds: float

    @property
    def per_second(self) -> float:
        return self.count / self.seconds

    @property
    def cpu_us_each(self) -> float:
        return self.cpu_seconds / self.count * 1e6


async def _timed(work: Callable[[], Awaitable[int]]) -> Figure:
    c0, t0 = time.process_time(), time.perf_counter()
    count = await work()
    return Figure(count, time.perf_counter() - t0, time.process_time() - c0)


async def _pair(
    referee: Callable[[], Awaitable[Figure]], echo: Callable[[int], Awaitable[Figure]], echo_first_calls: int | None
) -> tuple[Figure, Figure]:
    """One round: (the referee's figure, the echo's) run back to back; the referee first unless
    ``echo_first_calls`` says how many calls the echo makes first."""
    if echo_first_calls is None:
        r = await referee()
        return r, await echo(r.count)
    e = await echo(echo_first_calls)
    return await referee(), e


async def _round_robin(
    targets: list[tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], dict[str, Any]]], calls: int, in_flight: int
) -> Figure:
    """``calls`` calls, ``in_flight`` at a time, each worker going round the targets (one per server):
    (function, args, keyword args), called directly, so no wrapper adds to what is measured."""
    left = calls

    async def worker(w: int) -> int:
        nonlocal left
        done, i = 0, w
        while left > 0:
            left -= 1
            fn, args, kwargs = targets[i % len(targets)]
            await fn(*args, **kwargs)
            i += 1
            done += 1
        return done

    async def run() -> int:
        return sum(await asyncio.gather(*(worker(w) for w in range(in_flight))))

    return await _timed(run)


def typical_request_bytes() -> int:
    """The size of a PlayCardRequest in the middle of a hand (trick 6 of hand 0, standard rules)."""
    return len(typical_request()[0])


def typical_request() -> tuple[bytes, Any]:
    """A PlayCardRequest in the middle of a hand (trick 6 of hand 0, standard rules), serialised as the
    referee sends it, with the observation it was built from."""
    from hearts.v1 import codec
    from referee.rules import Match, Rules

    m = Match(Rules(), seed=1)
    for s in range(4):
        m.pass_cards(s, m.observation(s).hand.cards[:3])
    while len(m.hand.tricks) < 6 or len(m.hand.trick_cards) < 2:
        m.play(m.legal_plays()[0])
    obs = m.observation(m.turn)
    view = codec.view_to_wire(
        obs, match_id="0" * 32, player_names=["first-legal"] * 4, budget_ms=1000, time_bank_ms=10000
    )
    return pb.PlayCardRequest(view=view).SerializeToString(), obs


class Echo:
    """Bare calls of the echo method, round robin over the servers, ``in_flight`` at a time."""

    def __init__(self, addresses: list[str], request_bytes: int) -> None:
        from referee.seats import CHANNEL_OPTIONS

        self.channels = [grpc.aio.insecure_channel(a, options=list(CHANNEL_OPTIONS)) for a in addresses]
        self.stubs = [c.unary_unary(ECHO_METHOD) for c in self.channels]
        self.payload = os.urandom(request_bytes)

    async def warm_up(self) -> None:
        for stub in self.stubs:  # connected first, as the referee's seats are (their handshake)
            await stub(self.payload, timeout=5)

    async def measure(self, calls: int, in_flight: int) -> Figure:
        payload = self.payload
        return await _round_robin([(stub, (payload,), {"timeout": 5}) for stub in self.stubs], calls, in_flight)

    async def close(self) -> None:
        for c in self.channels:
            await c.close()


class Referee:
    """Whole matches among the four bots, ``at_once`` at a time; counts the decisions asked."""

    def __init__(self, addresses: list[str]) -> None:
        from referee.match import MatchSettings
        from referee.rules import Rules
        from referee.seats import GrpcSeat

        self.seats = [GrpcSeat(a, f"bot{i}") for i, a in enumerate(addresses)]
        self.rules = Rules()
        self.settings = MatchSettings(budget_ms=2000, bank_ms=20000)  # generous: a slow machine must not fault
        self.next_seed = 0

    async def play(self) -> int:
        from referee.match import play_match

        self.next_seed += 1
        rec = await play_match(self.seats, self.rules, seed=self.next_seed, settings=self.settings)
        assert not rec.faults, rec.faults[:3]
        return (
            sum(p.latency_ms is not None for p in rec.plays)
            + sum(p.latency_ms is not None for h in rec.hands for p in h.passes)
            + sum(h.moon_choice_latency_ms is not None for h in rec.hands)
        )

    async def measure(self, matches: int, at_once: int) -> Figure:
        left = matches

        async def lane() -> int:
            nonlocal left
            n = 0
            while left > 0:
                left -= 1
                n += await self.play()
            return n

        async def run() -> int:
            return sum(await asyncio.gather(*(lane() for _ in range(at_once))))

        return await _timed(run)

    async def close(self) -> None:
        for s in self.seats:
            await s.close()


class SeatLoop:
    """The referee's ceiling (``--seat-loop``): one constant PlayCardRequest sent through the referee's
    own ``GrpcSeat`` to the same bots, ``in_flight`` at a time, round robin, with no match behind it.
    Its gap to the echo is what gRPC and the seat layer cost; the referee's gap to it is its own work."""

    def __init__(self, addresses: list[str]) -> None:
        from referee.seats import GrpcSeat

        self.seats = [GrpcSeat(a, f"loop{i}") for i, a in enumerate(addresses)]
        from referee.seats import Ask

        request, obs = typical_request()

        class Constant(Ask):
            """The same request every time: the seat's cost without the referee's encoding."""

            def wire(self) -> bytes:
                return request

        self.ask = Constant(obs, None, 0)  # type: ignore[arg-type]  # wire() never encodes

    async def measure(self, calls: int, in_flight: int) -> Figure:
        ask = self.ask
        return await _round_robin([(seat.play_card, (ask, 5.0), {}) for seat in self.seats], calls, in_flight)

    async def close(self) -> None:
        for s in self.seats:
            await s.close()


class Thinking:
    """``tables`` matches at once among four bots that each think ``THINK_S`` a decision.

    Latency-bound: the most the referee can reach is ``tables / THINK_S`` decisions/s (or its
    CPU-bound rate, whichever is lower). Decisions are counted as they are answered, over a window
    after the tables have started; the matches are then cancelled (a 200 ms match lasts minutes).
    """

    def __init__(self, addresses: list[str]) -> None:
        from referee.seats import BotTimeout, GrpcSeat

        timeout_kind = BotTimeout
        counts = self.counts = {"answered": 0, "timeouts": 0}

        class Counting(GrpcSeat):
            async def pass_cards(self, *args: Any) -> list[int]:
                return await self._counted(super().pass_cards(*args))

            async def play_card(self, *args: Any) -> int:
                return await self._counted(super().play_card(*args))

            async def _counted(self, call: Awaitable[Any]) -> Any:
                try:
                    answer = await call
                except timeout_kind:
                    counts["timeouts"] += 1
                    raise
                counts["answered"] += 1
                return answer

        self.seats = [Counting(a, f"thinker{i}") for i, a in enumerate(addresses)]

    async def measure(self, tables: int, warm_s: float, window_s: float) -> dict[str, Any]:
        from referee.match import MatchSettings, play_match
        from referee.rules import Rules

        settings = MatchSettings(budget_ms=1000, bank_ms=10000)
        matches = [
            asyncio.ensure_future(play_match(self.seats, Rules(), seed=i + 1, settings=settings)) for i in range(tables)
        ]
        try:
            await asyncio.sleep(warm_s)
            c0, t0, n0 = time.process_time(), time.perf_counter(), self.counts["answered"]
            await asyncio.sleep(window_s)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            answered = self.counts["answered"] - n0
        finally:
            for m in matches:
                m.cancel()
            await asyncio.gather(*matches, return_exceptions=True)
        return {
            "tables": tables,
            "think_ms": THINK_S * 1000,
            "decisions_per_s": round(answered / seconds),
            "latency_bound_per_s": round(tables / THINK_S),
            "referee_cpu_us_per_decision": round(cpu / max(answered, 1) * 1e6, 1),
            "timeouts": self.counts["timeouts"],
        }

    async def close(self) -> None:
        for s in self.seats:
            await s.close()


async def measure_thinking(tables: int, warm_s: float, window_s: float) -> dict[str, Any]:
    procs, addresses = start_servers("thinking", 4)
    thinking = Thinking(addresses)
    try:
        return await thinking.measure(tables, warm_s, window_s)
    finally:
        await thinking.close()
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=10)


async def measure(single: int, concurrent: int, rounds: int, seat_loop: bool = False) -> dict[str, Any]:
    bots, bot_addresses = start_servers("bot", 4)
    echoes, echo_addresses = start_servers("echo", 4)
    size = typical_request_bytes()
    ref, bare = Referee(bot_addresses), Echo(echo_addresses, size)
    loop = SeatLoop(bot_addresses) if seat_loop else None
    runs: dict[str, list[tuple[Figure, Figure]]] = {"one_match_at_a_time": [], "16_matches_at_once": []}
    if loop is not None:
        runs["seat_loop_16_in_flight"] = []
    try:
        await ref.play()  # warm up: channels, handshakes
        await bare.warm_up()
        if loop is not None:
            await loop.measure(16, 4)
        # Paired rounds: each referee run is compared with an echo run of as many calls right beside
        # it, so both meet the same load of the shared machine; the order alternates from round to
        # round, so neither side always runs first (the echo, when first, makes as many calls as the
        # referee's previous round decided).
        for r in range(rounds):
            for key, matches, in_flight in (("one_match_at_a_time", single, 1), ("16_matches_at_once", concurrent, 16)):
                echo_first = runs[key][-1][0].count if r % 2 else None
                runs[key].append(
                    await _pair(
                        lambda m=matches, f=in_flight: ref.measure(m, f),
                        lambda n, f=in_flight: bare.measure(n, f),
                        echo_first,
                    )
                )
            many = runs["16_matches_at_once"][-1]
            if loop is not None:
                runs["seat_loop_16_in_flight"].append((await loop.measure(many[1].count, 16), many[1]))
    finally:
        await ref.close()
        await bare.close()
        if loop is not None:
            await loop.close()
        for p in bots + echoes:
            p.terminate()
        for p in bots + echoes:
            p.wait(timeout=10)

    def row(pairs: list[tuple[Figure, Figure]], matches: int) -> dict[str, Any]:
        ratios = [a.per_second / b.per_second for a, b in pairs]
        best_r = max((p[0] for p in pairs), key=lambda f: f.per_second)
        best_e = max((p[1] for p in pairs), key=lambda f: f.per_second)
        return {
            "matches_per_round": matches,
            "rounds": len(pairs),
            "decisions": pairs[0][0].count,
            "decisions_per_s": round(statistics.median(a.per_second for a, _ in pairs)),
            "referee_cpu_us_per_decision": round(statistics.median(a.cpu_us_each for a, _ in pairs), 1),
            "echo_calls_per_s": round(statistics.median(b.per_second for _, b in pairs)),
            "echo_cpu_us_per_call": round(statistics.median(b.cpu_us_each for _, b in pairs), 1),
            "ratio": round(statistics.median(ratios), 3),
            "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)],
            "best_of_each_ratio": round(best_r.per_second / best_e.per_second, 3),
            "each_round": [
                {
                    "decisions_per_s": round(a.per_second),
                    "echo_calls_per_s": round(b.per_second),
                    "ratio": round(a.per_second / b.per_second, 3),
                }
                for a, b in pairs
            ],
        }

    return {
        "request_bytes": size,
        "reply_bytes": REPLY_BYTES,
        "cpus": os.cpu_count(),
        "grpc": grpc.__version__,
        **{key: row(pairs, single if key == "one_match_at_a_time" else concurrent) for key, pairs in runs.items()},
    }


def print_table(r: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(
        title=f"Referee vs bare gRPC echo (request {r['request_bytes']} B, reply {r['reply_bytes']} B, "
        f"{r['cpus']} CPUs, grpc {r['grpc']})",
        title_justify="left",
    )
    for col in (
        "",
        "decisions/s",
        "echo calls/s",
        "ratio",
        "rounds' ratios",
        "best of each",
        "CPU µs/decision",
        "CPU µs/echo",
    ):
        t.add_column(col, justify="right" if col else "left")
    for name, key in (
        ("one match at a time", "one_match_at_a_time"),
        ("16 matches at once", "16_matches_at_once"),
        ("seat loop, 16 in flight (ceiling)", "seat_loop_16_in_flight"),
    ):
        if key not in r:
            continue
        x = r[key]
        ok = "green" if x["ratio"] >= 0.8 else "red"
        t.add_row(
            name,
            f"{x['decisions_per_s']:,}",
            f"{x['echo_calls_per_s']:,}",
            f"[{ok}]{x['ratio']:.2f}[/]",
            " ".join(f"{y['ratio']:.2f}" for y in x["each_round"]),
            f"{x['best_of_each_ratio']:.2f}",
            f"{x['referee_cpu_us_per_decision']:.0f}",
            f"{x['echo_cpu_us_per_call']:.0f}",
        )
    console = Console(width=max(Console().width, 150))  # piped, each row still fits one line
    console.print(t)
    if "thinking" in r:
        x, cpu_bound = r["thinking"], r["16_matches_at_once"]["decisions_per_s"]
        bound = min(x["latency_bound_per_s"], cpu_bound)
        ok = "green" if x["decisions_per_s"] >= 0.8 * bound and not x["timeouts"] else "red"
        console.print(
            f"{x['tables']} tables of {x['think_ms']:.0f} ms bots: [{ok}]{x['decisions_per_s']:,} decisions/s = "
            f"{x['decisions_per_s'] / bound:.2f} x min({x['latency_bound_per_s']:,} latency-bound, "
            f"{cpu_bound:,} CPU-bound)[/], {x['timeouts']} timeouts, "
            f"{x['referee_cpu_us_per_decision']:.0f} CPU µs/decision (target: >= 0.8x, 0 timeouts)"
        )
    print(
        "ratio: the median of the rounds' ratios (each round: the referee and the echo back to back); "
        "figures: medians over the rounds; target: ratio >= 0.8 (the referee adds at most 20% to a bare gRPC "
        "round trip of the same sizes); CPU: this process only (bots and echo servers run apart)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--single", type=int, default=3, help="matches played one at a time, per round")
    ap.add_argument("--concurrent", type=int, default=16, help="matches played 16 at a time, per round")
    ap.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="paired rounds (referee and echo back to back); the median ratio is reported",
    )
    ap.add_argument(
        "--seat-loop",
        action="store_true",
        help="also measure the referee's ceiling: a constant request through its GrpcSeat, 16 in flight",
    )
    ap.add_argument(
        "--tables", type=int, default=256, help="matches at once of 200 ms bots, for the latency-bound row (0: skip it)"
    )
    ap.add_argument("--window", type=float, default=6.0, help="seconds the latency-bound row is counted over")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--serve", choices=["bot", "echo", "thinking"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        asyncio.run(_serve(args.serve))
        return
    result = asyncio.run(measure(args.single, args.concurrent, args.rounds, args.seat_loop))
    if args.tables:
        result["thinking"] = asyncio.run(measure_thinking(args.tables, min(2.0, args.window), args.window))
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)


if __name__ == "__main__":
    main()
