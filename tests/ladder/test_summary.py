"""The closing summary of a tournament names the bots that faulted, how often, of which kinds, and
where each one's log is. Real bot processes (and one remote bot) on loopback gRPC, real SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.sdk import Bot, ThreadedBotServer, View, start_in_thread
from ladder.bots.registry import BotEntry
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, run_tournament
from referee.rules import Card

pytestmark = pytest.mark.slow  # whole processes and servers

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
HEARTS = Path(sys.executable).with_name("hearts")
FAST = "standard,target=30"


class Raiser(Bot):
    """Raises on every play (an error_status fault), with markup and a terminal escape in its text."""

    name = "[red]raiser[/]"

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: (c.rank, c.suit))[: view.rules.pass_count]

    def play_card(self, view: View) -> Card:
        raise ValueError("[bold]boom[/] \x1b[2J")


@pytest.fixture
def raiser() -> Iterator[ThreadedBotServer]:
    srv = start_in_thread(Raiser())
    yield srv
    srv.stop()


def entries(raiser_address: str) -> list[BotEntry]:
    return [
        BotEntry("sloppy", command=f"python {HERE / 'bots' / 'sloppy.py'} {{port}}"),
        BotEntry("raiser", address=raiser_address),
        BotEntry("lowest", command="python -m clients.bots.lowest --port {port}"),
        BotEntry("random", command="python -m clients.bots.random --port {port} --seed 2"),
    ]


def recorded_faults(store: Store) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for bot, kind, n in store.db.execute(
        "SELECT b.name, f.kind, COUNT(*) FROM faults f JOIN seats s ON s.match_id = f.match_id "
        "AND s.seat = f.seat JOIN bots b ON b.id = s.bot_id GROUP BY b.name, f.kind"
    ):
        out.setdefault(bot, {})[kind] = n
    return out


def recorded_forfeits(store: Store) -> dict[str, int]:
    return dict(
        store.db.execute(
            "SELECT b.name, SUM(s.forfeit) FROM seats s JOIN bots b ON b.id = s.bot_id "
            "GROUP BY b.name HAVING SUM(s.forfeit) > 0"
        ).fetchall()
    )


def test_the_run_summary_counts_faults_by_bot_and_kind_and_knows_each_log(
    tmp_path: Path, raiser: ThreadedBotServer
) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, entries(raiser.address), TournamentSpec(rules=FAST, deals=1, seed=4))
        summary = run_tournament(store, tid, concurrency=4)
        assert summary.played == 4
        faults = recorded_faults(store)
        assert set(faults) == {"sloppy", "raiser"} and faults["raiser"] == {
            "error_status": summary.bot_faults["raiser"]["error_status"]
        }
        assert summary.bot_faults == faults
        assert sum(sum(k.values()) for k in summary.bot_faults.values()) == summary.faults
        assert summary.bot_forfeits == recorded_forfeits(store) and summary.bot_forfeits["raiser"] == 4
    logs = tmp_path / "logs"
    assert summary.logs == {
        "sloppy": logs / "sloppy.log",
        "lowest": logs / "lowest.log",
        "random": logs / "random.log",
        "raiser": None,
    }


def test_the_closing_summary_names_each_faulting_bot(tmp_path: Path, raiser: ThreadedBotServer) -> None:
    f = tmp_path / "bots.toml"
    f.write_text("".join(f'[bots.{e.name}]\n{e.kind} = "{e.command or e.address}"\n' for e in entries(raiser.address)))
    db = tmp_path / "arena.db"
    result = subprocess.run(
        [
            str(HEARTS),
            "tournament",
            "run",
            "--bots",
            str(f),
            "--deals",
            "1",
            "--seed",
            "4",
            "--rules",
            FAST,
            "--db",
            str(db),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    with Store(db) as store:
        faults, forfeits = recorded_faults(store), recorded_forfeits(store)
    total = sum(sum(k.values()) for k in faults.values())
    lines = result.stdout.splitlines()
    assert (
        "played 4 matches in" in result.stdout
        and f"({total} faults, {sum(forfeits.values())} forfeits)" in result.stdout
    )
    at = lines.index("faults by bot:")
    by_bot = lines[at + 1 : at + 3]

    def line(bot: str, where: str) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(faults[bot].items(), key=lambda kv: (-kv[1], kv[0])))
        n = forfeits.get(bot, 0)
        lost = f", {n} forfeit{'s' if n != 1 else ''}" if n else ""
        return f"  {bot}: {sum(faults[bot].values())} faults ({kinds}){lost}; {where}"

    expected = {
        "sloppy": line("sloppy", f"log {tmp_path / 'logs' / 'sloppy.log'}"),
        "raiser": line("raiser", "a remote bot: its log is wherever it runs"),
    }
    # Most faults first; the bots without faults are not listed.
    order = sorted(expected, key=lambda b: (-sum(faults[b].values()), b))
    assert by_bot == [expected[b] for b in order], result.stdout
    assert forfeits["raiser"] == 4 and "4 forfeits; a remote bot" in expected["raiser"]
    assert not any(line.startswith(("  lowest:", "  random:")) for line in lines)
    assert "\x1b" not in result.stdout and "boom" not in result.stdout  # bot text is not in the summary
