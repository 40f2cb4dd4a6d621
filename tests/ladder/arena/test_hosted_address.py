"""A participant's hosted bot may not be reached on the arena's own machine, in any spelling of one of
its addresses, and is reached only at the address literal that was checked: never at a second
resolution of its name (a name that resolves elsewhere by then, DNS rebinding, reaches nothing here).

The units first (ladder/arena/hosted_address.py, with this machine's real addresses), then through the
arena's API and its worker: the attacks as submitted, and a resolve-then-rebind name."""

from __future__ import annotations

import ipaddress
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from arena_helpers import ROOT
from starlette.testclient import TestClient

from ladder.arena.accounts import add_user, new_alias
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot, Limits
from ladder.arena.hosted_address import AddressRefused, embedded_ipv4, local_reason, own_networks, pin, resolve_host
from ladder.arena.store import ArenaStore, VersionStatus
from ladder.arena.worker import start_final, sync_house
from ladder.bots.launcher import free_port
from ladder.tournament.run import get_tournament

pytestmark = pytest.mark.slow  # whole processes and servers

# Every spelling of an address that names this machine, or no machine: loopback, unspecified,
# link-local, multicast, reserved, in IPv4's numeric forms and embedded in IPv6 each way.
NOT_ANOTHER_MACHINE = [
    "127.0.0.1",
    "127.1.2.3",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "localhost",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "0.0.0.0",
    "0",
    "0.1.2.3",
    "[::]",
    "169.254.169.254",
    "[fe80::1]",
    "224.0.0.1",
    "[ff02::1]",
    "255.255.255.255",
    "240.0.0.1",
    "[::ffff:127.0.0.1]",  # IPv4-mapped
    "[::ffff:7f00:1]",
    "[0:0:0:0:0:ffff:127.0.0.1]",
    "[::ffff:169.254.169.254]",
    "[::ffff:0.0.0.0]",
    "[::127.0.0.1]",  # IPv4-compatible
    "[::ffff:0:127.0.0.1]",  # IPv4-translated
    "[64:ff9b::127.0.0.1]",  # NAT64
    "[64:ff9b::7f00:1]",
    "[64:ff9b:1::1]",  # local-use NAT64
    "[2002:7f00:1::1]",  # 6to4
    "[2002:a9fe:a9fe::]",
    "[2001:0:5ef5:79fb:0:0:80ff:fffe]",  # Teredo, its client 127.0.0.1 (bits inverted)
]


def _interface_addresses() -> list[str]:
    """This machine's own non-loopback addresses, found as its routing picks a source (not as
    ladder/arena/hosted_address.py reads them)."""
    found = []
    for family, far in ((socket.AF_INET, "198.51.100.1"), (socket.AF_INET6, "2001:db8::1")):
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            try:
                s.connect((far, 9))
            except OSError:  # no route of this family
                continue
            found.append(str(s.getsockname()[0]))
    return found


def _bracketed(ip: str) -> str:
    return f"[{ip}]" if ":" in ip else ip


def _spellings_of(ip: str) -> list[str]:
    """An interface address and the IPv6 forms that carry it."""
    out = [_bracketed(ip)]
    v = ipaddress.ip_address(ip)
    if isinstance(v, ipaddress.IPv4Address):
        n = int(v)
        out += [
            f"[::ffff:{ip}]",
            f"[::{ip}]",
            f"[64:ff9b::{ip}]",
            f"[{ipaddress.IPv6Address((0x2002 << 112) | (n << 80))}]",
            f"[{ipaddress.IPv6Address((0x20010000 << 96) | (n ^ 0xFFFFFFFF))}]",  # Teredo
        ]
    return out


@pytest.mark.parametrize("host", NOT_ANOTHER_MACHINE)
def test_every_spelling_of_this_machine_is_refused(host: str) -> None:
    with pytest.raises(AddressRefused, match="own machine") as e:
        pin(f"{host}:50999")
    assert "allow_local_addresses" in str(e.value), "the message says what the organiser can do"


def test_every_interface_address_is_this_machine_in_every_spelling() -> None:
    addresses = _interface_addresses()
    if not addresses:
        pytest.skip("this machine has no route to anywhere: no interface address to try")
    own = own_networks()
    for ip in addresses:
        assert any(ipaddress.ip_address(ip) in n for n in own if n.version == ipaddress.ip_address(ip).version), own
        for spelling in _spellings_of(ip):
            with pytest.raises(AddressRefused, match="own machine"):
                pin(f"{spelling}:8765")
    # Its own names too, whatever they resolve to here.
    with pytest.raises(AddressRefused, match="own machine"):
        pin(f"{socket.gethostname()}:8765")


def test_what_an_ipv6_address_carries_is_read_every_way() -> None:
    v4 = ipaddress.IPv4Address("203.0.113.5")
    carried = {
        "::ffff:203.0.113.5": "IPv4-mapped",
        "::203.0.113.5": "IPv4-compatible",
        "::ffff:0:203.0.113.5": "IPv4-translated",
        "64:ff9b::203.0.113.5": "NAT64",
        "2002:cb00:7105::1": "6to4",
        "2001:0:4136:e378:8000:63bf:34ff:8efa": "Teredo",
    }
    for text, how in carried.items():
        assert (how, v4) in embedded_ipv4(ipaddress.IPv6Address(text)), text
        reason = local_reason(ipaddress.IPv6Address(text), [ipaddress.ip_network("203.0.113.5/32")])
        assert reason == f"{how} 203.0.113.5 is an address of this machine", text
    assert embedded_ipv4(ipaddress.IPv6Address("2001:db8::1")) == []
    assert local_reason(ipaddress.ip_address("203.0.113.5"), []) is None


def test_an_address_is_pinned_to_the_one_resolution_that_was_checked() -> None:
    asked: list[str] = []

    def resolve(host: str) -> Sequence[str]:
        asked.append(host)
        return {"bots.example": ["203.0.113.9", "2001:db8::9"], "mixed.example": ["203.0.113.9", "127.0.0.1"]}[host]

    assert pin("bots.example:4000", resolve=resolve) == "203.0.113.9:4000"
    assert asked == ["bots.example"], "resolved once"
    with pytest.raises(AddressRefused, match=r"127\.0\.0\.1 is loopback"):
        pin("mixed.example:4000", resolve=resolve)  # every address it resolves to is checked
    assert pin("[2001:db8::9]:4000") == "[2001:db8::9]:4000"
    assert pin("[::ffff:203.0.113.9]:4000") == "203.0.113.9:4000", "an IPv4 written as IPv6 is reached as IPv4"
    with pytest.raises(AddressRefused, match="does not resolve"):
        pin("nosuch.invalid:4000")
    with pytest.raises(AddressRefused, match="HOST:PORT"):
        pin("203.0.113.9:0")


# -- through the arena -------------------------------------------------------------------------------


def _arena(tmp_path: Path, cfg: ArenaConfig, **kwargs: object) -> tuple[TestClient, str, str]:
    store = ArenaStore(tmp_path / "arena.db")
    _o, org = add_user(store, "organiser", organiser=True)
    _p, alice = add_user(store, "alice")
    store.close()
    return TestClient(build_app(tmp_path, cfg, **kwargs)), org, alice  # type: ignore[arg-type]


def test_the_mapped_and_the_interface_address_and_every_spelling_are_refused_at_submission(tmp_path: Path) -> None:
    """As the rival submitted it: a bot on the arena's own host, by its IPv4-mapped address or by the
    host's interface address; and every other spelling. Refused (400), nothing registered."""
    client, _org, alice = _arena(tmp_path, ArenaConfig(), background=False)
    hosts = ["[::ffff:127.0.0.1]", *NOT_ANOTHER_MACHINE]
    hosts += [s for ip in _interface_addresses() for s in _spellings_of(ip)]
    with client:
        h = {"Authorization": f"Bearer {alice}"}
        for host in hosts:
            r = client.post("/api/bots/mal-addr/versions", headers=h, json={"address": f"{host}:50999"})
            assert r.status_code == 400 and "own machine" in r.json()["error"], (host, r.text)
        assert client.get("/api/bots/mal-addr", headers=h).status_code == 404
        # The organiser's lab may allow it.
    with TestClient(build_app(tmp_path, ArenaConfig(limits=Limits(allow_local_addresses=True)), background=False)) as c:
        r = c.post("/api/bots/lab-bot/versions", headers=h, json={"address": "[::ffff:127.0.0.1]:50999"})
        assert r.status_code == 201, r.text


@pytest.fixture()
def watched(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A real bot on this machine's loopback that writes down every call that reaches it."""
    out = tmp_path / "seen.jsonl"
    out.touch()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "ladder" / "arena" / "watching_bot.py"), str(out), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and "listening on" in proc.stdout.readline()
        yield port, out
    finally:
        proc.kill()
        proc.wait()


def test_a_name_that_rebinds_to_this_machine_after_its_check_reaches_only_the_checked_address(
    tmp_path: Path, watched: tuple[int, Path]
) -> None:
    """The name resolves to a public address when the arena checks it, and to 127.0.0.1 when anyone
    resolves it again (here: the system's resolver, which says localhost is 127.0.0.1). The arena
    reaches the checked address only: the bot listening on this machine is never called."""
    port, seen = watched
    public = "203.0.113.7"  # TEST-NET-3: nothing answers there
    asked: list[str] = []

    def rebinding(host: str) -> Sequence[str]:
        asked.append(host)
        return [public] if host == "localhost" else resolve_host(host)

    # Nothing answers at the checked address: how long the arena waits for it is a setting (kept short).
    client, _org, alice = _arena(tmp_path, ArenaConfig(limits=QUICK), resolve=rebinding)
    with client:
        h = {"Authorization": f"Bearer {alice}"}
        r = client.post("/api/bots/rebinder/versions", headers=h, json={"address": f"localhost:{port}"})
        assert r.status_code == 201, r.text
        while (v := client.get("/api/bots/rebinder/versions/1", headers=h).json())["status"] not in ("valid", "failed"):
            time.sleep(0.2)
    assert v["status"] == "failed", v
    assert f"{public}:{port}" in json.dumps(v["validation_report"]), "it tried the checked address"
    assert seen.read_text() == "", "the bot on this machine was never reached"
    assert asked == ["localhost", "localhost"], "resolved once at submission, once for the validation"


def _hosted(store: ArenaStore, owner: str, address: str) -> None:
    """A participant's hosted bot, valid (as if its validation had passed when its name resolved elsewhere)."""
    user = store.user_by_name(owner)
    assert user is not None
    bot_id = store.add_bot(f"{owner}-bot", user.id, new_alias(store, owner))
    store.add_version(bot_id, user.id, status=VersionStatus.VALID, kind="address", address=address)


QUICK = Limits(start_timeout_s=2.0)  # a bot not started (or not answering) in 2 s is not started

HOUSE = (
    HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),
    HouseBot("random", command="python -m clients.bots.random --port {port} --seed 1"),
    HouseBot("heuristic", command="python -m clients.bots.heuristic --port {port}"),
)


def test_the_ladder_reaches_a_hosted_bot_only_at_the_address_it_checked_for_the_batch(
    tmp_path: Path, watched: tuple[int, Path]
) -> None:
    """As the validation: a name that the arena's check resolves to a public address and anyone else to
    127.0.0.1 is reached at the public address (where nothing answers: it sits out), never here."""
    port, seen = watched
    cfg = ArenaConfig(rules="standard,target=20", house=HOUSE, limits=QUICK)
    store = ArenaStore(tmp_path / "arena.db")
    _o, org = add_user(store, "organiser", organiser=True)
    add_user(store, "alice")
    sync_house(store, cfg)
    _hosted(store, "alice", f"localhost:{port}")
    store.close()

    def rebinding(host: str) -> Sequence[str]:
        return ["203.0.113.7"] if host == "localhost" else resolve_host(host)

    with TestClient(build_app(tmp_path, cfg, resolve=rebinding)) as client:
        o = {"Authorization": f"Bearer {org}"}
        # Until the ladder has tried it: it says why alice's bot sits out, or the bot here is called.
        while not (events := [e for e in client.get("/api/status", headers=o).json()["events"] if "alice-bot" in e]):
            if seen.read_text():
                break
            time.sleep(0.2)
    assert seen.read_text() == "", "the bot on this machine was never reached"
    assert f"203.0.113.7:{port}" in events[0], events


def test_the_final_reaches_a_hosted_bot_at_the_address_checked_when_it_is_made(tmp_path: Path) -> None:
    """The final's entries are the checked literals; a hosted bot whose name names this machine when
    the final is made sits it out (the house bots fill its seat)."""
    cfg = ArenaConfig(house=HOUSE)
    store = ArenaStore(tmp_path / "arena.db")
    try:
        add_user(store, "organiser", organiser=True)
        add_user(store, "alice")
        add_user(store, "bob")
        sync_house(store, cfg)
        _hosted(store, "alice", "bots.example:4000")
        _hosted(store, "bob", "rebound.example:4000")
        answers = {"bots.example": ["203.0.113.9"], "rebound.example": ["127.0.0.1"]}
        tid = start_final(store, cfg, resolve=lambda host: answers[host])
        entries = {e.name: e for e in get_tournament(store.ladder, tid).bots}
        assert entries["alice-bot.v1"].address == "203.0.113.9:4000"
        assert "bob-bot.v1" not in entries and len(entries) == 4, sorted(entries)
    finally:
        store.close()
