"""The live hub's bounds and its withholding, without a server: streams counted and capped, a stream
that falls behind sent the board afresh (never waited for), a withheld match's plays queued for an
organiser alone, a reconnecting page sent what it missed."""

from __future__ import annotations

import asyncio
import json

from ladder.arena import live
from ladder.arena.live import LiveHub


def _play(n: int) -> dict[str, object]:
    return {"n": n, "hand": 0, "trick": n // 4, "seat": n % 4, "card": "2C", "substituted": False, "won_by": None}


def test_streams_are_capped_in_all_and_by_address() -> None:
    async def go() -> None:
        hub = LiveHub()
        subs = [hub.subscribe(organiser=False, address="10.0.0.1") for _ in range(live.MAX_PER_ADDRESS)]
        assert all(subs) and not hub.room("10.0.0.1") and hub.room("10.0.0.2")
        assert hub.subscribe(organiser=False, address="10.0.0.1") is None
        for i in range(live.MAX_SUBSCRIBERS - live.MAX_PER_ADDRESS):
            assert hub.subscribe(organiser=False, address=f"10.1.{i}.1") is not None
        assert not hub.room("10.9.9.9") and hub.subscribe(organiser=True, address="10.9.9.9") is None
        for s in subs:
            assert s is not None
            hub.unsubscribe(s)
        assert hub.room("10.0.0.1")

    asyncio.run(go())


def test_a_withheld_match_s_plays_are_queued_for_an_organiser_alone_until_shown() -> None:
    async def go() -> None:
        hub = LiveHub()
        visitor = hub.subscribe(organiser=False, address="a")
        organiser = hub.subscribe(organiser=True, address="b")
        assert visitor is not None and organiser is not None
        hub.began("t1-000001", 1, 99, ["w", "x", "y", "z"], public=False)
        for n in range(3):
            hub.played("t1-000001", _play(n))
        seen, _, _ = hub.take(visitor)
        assert [e.kind for e in seen] == ["board"]
        assert [e.kind for e in hub.take(organiser)[0]] == ["board", "play", "play", "play"]
        hub.show("t1-000001")
        hub.played("t1-000001", _play(3))
        seen, _, _ = hub.take(visitor)
        assert [e.kind for e in seen] == ["shown", "play"]
        assert seen[0].data is not None and [p["n"] for p in seen[0].data["plays"]] == [0, 1, 2]

    asyncio.run(go())


def test_a_stream_that_falls_behind_is_sent_the_board_afresh() -> None:
    async def go() -> None:
        hub = LiveHub()
        sub = hub.subscribe(organiser=True, address="a")
        assert sub is not None
        hub.take(sub)
        hub.began("t1-000001", 1, 99, ["w", "x", "y", "z"], public=True)
        for n in range(live.QUEUE + 10):
            hub.played("t1-000001", _play(n))
        events, lagged, _ = hub.take(sub)
        assert lagged and len(events) < live.QUEUE and sub.dropped == 1

    asyncio.run(go())


def test_a_page_that_reconnects_is_sent_what_it_missed_and_a_stale_id_the_board() -> None:
    async def go() -> None:
        hub = LiveHub()
        hub.began("t1-000001", 1, 99, ["w", "x", "y", "z"], public=True)
        hub.played("t1-000001", _play(0))
        last = hub.event_id(hub.seq)
        hub.played("t1-000001", _play(1))
        sub = hub.subscribe(organiser=False, address="a", after=last)
        assert sub is not None
        events, lagged, _ = hub.take(sub)
        assert not lagged and [e.data["play"]["n"] for e in events if e.data] == [1]
        for stale in ("nope.3", f"{hub.epoch}.999", "x" * 100, None):
            other = hub.subscribe(organiser=False, address="b", after=stale)
            assert other is not None and hub.take(other)[1] is True
            hub.unsubscribe(other)

    asyncio.run(go())


def test_the_stream_sends_the_board_then_each_play_as_one_json_line_with_its_id() -> None:
    async def go() -> str:
        hub = LiveHub()

        async def board(seq: int) -> dict[str, object]:
            return {"live": [m.id for m in hub.in_play()]}

        async def publish() -> None:
            await asyncio.sleep(0.05)
            hub.began("t1-000001", 1, 99, ["w", "x", "y", "z"], public=True)
            hub.played("t1-000001", _play(0))

        task = asyncio.create_task(publish())
        chunks = [c async for c in live.stream(hub, board, organiser=False, address="a", lifetime=0.8, keepalive=0.2)]
        await task
        assert not hub.subscribers  # unsubscribed when it ended
        return b"".join(chunks).decode()

    text = asyncio.run(go())
    messages = [m for m in text.split("\n\n") if m.startswith("id: ")]
    kinds = [json.loads(m.split("data: ", 1)[1])["type"] for m in messages]
    assert kinds[0] == "board" and "play" in kinds and kinds[-1] == "board"
    assert ": still here" in text


def test_a_stream_that_joins_or_falls_behind_mid_match_is_sent_no_play_before_the_board() -> None:
    """The board holds every play so far: a play sent before it would reach a page lacking the ones
    before it (a new stream's first events, and a lagging one's, wait for the board)."""

    async def go() -> list[dict[str, object]]:
        hub = LiveHub()
        hub.began("t1-000001", 1, 99, ["w", "x", "y", "z"], public=True)
        for n in range(5):
            hub.played("t1-000001", _play(n))

        async def board(seq: int) -> dict[str, object]:
            return {"plays": len(hub.matches["t1-000001"].plays)}

        async def publish() -> None:
            for n in range(5, 5 + live.QUEUE + 40):  # more than a queue holds at once: the stream falls behind
                hub.played("t1-000001", _play(n))

        stream = live.stream(hub, board, organiser=True, address="a", lifetime=1.5, keepalive=0.2)
        first = await stream.__anext__()  # retry:
        task = asyncio.create_task(publish())
        chunks = [first] + [c async for c in stream]
        await task
        text = b"".join(chunks).decode()
        return [json.loads(m.split("data: ", 1)[1]) for m in text.split("\n\n") if "data: " in m]

    messages = asyncio.run(go())
    assert messages[0]["type"] == "board"
    held = 0
    for m in messages:  # as a page holds them: every play it is sent is the next it lacks, or one it has
        if m["type"] == "board":
            held = max(held, int(m["plays"]))  # type: ignore[call-overload]
        elif m["type"] == "play":
            n = m["play"]["n"]  # type: ignore[index]
            assert n <= held, (n, held)
            held = max(held, n + 1)
