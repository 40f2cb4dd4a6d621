"""The sandbox from the command line: ``--sandbox`` on ``hearts match`` and ``hearts tournament
run`` with real bots (the SDK's sample bots and the Node bot), ``sandbox = true`` for one bot of a
bots file, the weaker ``--sandbox=limits-only`` (labelled as such), and the error naming the
package to install where bubblewrap is missing."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ladder.cli import main

pytestmark = pytest.mark.slow  # whole processes and servers

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
NODE_DIR = ROOT / "clients" / "node"
FAST = "standard,target=30"


def hearts(*args: str, cwd: Path = ROOT) -> Result:
    old = Path.cwd()
    os.chdir(cwd)  # the bots' commands name files relative to the project, as bots.toml does
    try:
        result = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)
    assert "Traceback" not in result.output, result.output
    return result


def _attacker(tmp_path: Path, name: str, targets: dict[str, str] | None = None) -> Path:
    d = tmp_path / "bots" / name
    d.mkdir(parents=True)
    shutil.copy(HERE / "bots" / "attacker.py", d / "bot.py")
    (d / "targets.json").write_text(json.dumps(targets or {}))
    for p in (tmp_path, tmp_path / "bots", d):
        os.chmod(p, 0o755)
    return d / "bot.py"


@pytest.mark.needs_bwrap
@pytest.mark.skipif(
    shutil.which("node") is None or not (NODE_DIR / "node_modules").is_dir(), reason="node or its modules missing"
)
def test_hearts_match_sandboxes_python_and_node_bots(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    result = hearts(
        "match",
        "--sandbox",
        "--seat", "node=node clients/node/bot.js --port {port}",
        "--seat", "random=python -m clients.bots.random --port {port} --seed 2",
        "--seat", "lowest=python -m clients.bots.lowest --port {port}",
        "--seat", "heuristic=python -m clients.bots.heuristic --port {port}",
        "--rules", FAST, "--seed", "3", "--db", str(db),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "bots: sandboxed (bubblewrap)" in result.output
    logs = tmp_path / "logs"
    assert "listening on unix:/run/hearts/bot.sock" in (logs / "node.log").read_text()
    assert "(sandboxed (bubblewrap))" in (logs / "random.log").read_text()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM faults").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM matches").fetchone()[0] == 1


@pytest.mark.needs_bwrap
def test_sandbox_true_in_a_bots_file_sandboxes_that_bot_alone(tmp_path: Path) -> None:
    peeker = _attacker(tmp_path, "peeker")
    bots = tmp_path / "bots.toml"
    db = tmp_path / "t.db"
    bots.write_text(
        f'[bots.peeker]\ncommand = "python {peeker} peek"\nsandbox = true\n'
        '[bots.random]\ncommand = "python -m clients.bots.random --port {port} --seed 1"\n'
        '[bots.lowest]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
        '[bots.heuristic]\ncommand = "python -m clients.bots.heuristic --port {port}"\n'
    )
    result = hearts("tournament", "run", "--bots", str(bots), "--rules", FAST, "--seed", "4", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert "sandboxed by their entries: peeker" in result.output
    log = (tmp_path / "logs" / "peeker.log").read_text()
    assert "(sandboxed (bubblewrap))" in log and "ATTACK processes saw pids [1, 2" in log
    assert "(sandboxed" not in (tmp_path / "logs" / "random.log").read_text()
    assert str(db) not in log


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) is missing")
def test_limits_only_is_labelled_and_still_stops_a_memory_hog(tmp_path: Path) -> None:
    hog = _attacker(tmp_path, "hog")
    bots = tmp_path / "bots.toml"
    db = tmp_path / "t.db"
    bots.write_text(
        f'[bots.hog]\ncommand = "python {hog} memory"\nlimits = {{ memory_mb = 200 }}\n'
        '[bots.random]\ncommand = "python -m clients.bots.random --port {port} --seed 1"\n'
        '[bots.lowest]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
        '[bots.heuristic]\ncommand = "python -m clients.bots.heuristic --port {port}"\n'
    )
    result = hearts(
        "tournament", "run", "--bots", str(bots), "--rules", FAST, "--seed", "4", "--db", str(db),
        "--sandbox=limits-only",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.count("LIMITS ONLY: resource limits, no isolation") >= 2  # at the start and the end
    assert "hog: " in result.output and "resource_limit" in result.output
    with sqlite3.connect(db) as conn:
        kinds = conn.execute(
            "SELECT DISTINCT b.name, f.kind FROM faults f JOIN seats s ON s.match_id = f.match_id AND s.seat = f.seat "
            "JOIN bots b ON b.id = s.bot_id"
        ).fetchall()
    assert kinds == [("hog", "resource_limit")]


def test_without_bubblewrap_sandbox_names_the_package_and_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    (empty / "python").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(empty))  # no bwrap on it
    db = tmp_path / "t.db"
    result = hearts(
        "tournament", "run", "--bots", str(ROOT / "bots.toml"), "--rules", FAST, "--db", str(db), "--sandbox"
    )
    assert result.exit_code == 1
    assert "apt-get install bubblewrap" in result.output
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM tournaments").fetchone()[0] == 0
    seats = [x for n in "abcd" for x in ("--seat", f"{n}=python -m clients.bots.random --port {{port}}")]
    result = hearts("match", "--sandbox", *seats, "--db", str(db))
    assert result.exit_code == 1 and "apt-get install bubblewrap" in result.output


def _alive_with(text: str) -> list[str]:
    """Pids of processes whose command line holds ``text`` (zombies are gone in all but name)."""
    out = []
    for pid in os.listdir("/proc"):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmd and state != "Z":
            out.append(pid)
    return out


@pytest.mark.needs_bwrap
def test_sandboxed_bots_and_the_watch_die_with_a_tournament_killed_outright(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    bots = tmp_path / "bots.toml"
    lines = []
    marker = f"3600.{os.getpid()}{int(time.time() * 1000) % 100000}"  # the setsid children's command line
    for name in ("a", "b", "c", "d"):
        lines.append(f'[bots.{name}]\ncommand = "python {_attacker(tmp_path, name, {"marker": marker})} setsid"\n')
    bots.write_text("".join(lines))
    db = tmp_path / "t.db"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ladder.cli",
            "tournament",
            "run",
            "--bots",
            str(bots),
            "--deals",
            "200",
            "--rules",
            FAST,
            "--sandbox",
            "--db",
            str(db),
        ],  # fmt: skip
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # every bot serving, and each one's setsid child started
            logs = [tmp_path / "logs" / f"{n}.log" for n in "abcd"]
            started = all(p.exists() and "ATTACK setsid-child started" in p.read_text() for p in logs)
            # ...and become its `sleep` (a child said started may not have exec'd yet, under load)
            if started and len(_alive_with(f"sleep {marker}")) >= 4:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the bots did not start")
        assert _alive_with(str(tmp_path / "bots")) and len(_alive_with(f"sleep {marker}")) >= 4
        watch = [p for p in _alive_with("from ladder.sandbox.watch import _serve") if _parent(p) == proc.pid]
        assert len(watch) == 1
        run_dir = Path(f"/proc/{watch[0]}/cmdline").read_bytes().decode().split("'")[-2]  # _serve(tick, 'DIR')
        assert Path(run_dir).is_dir()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (_alive_with(str(tmp_path / "bots")) or Path(f"/proc/{watch[0]}").exists()):
        time.sleep(0.1)
    assert _alive_with(str(tmp_path / "bots")) == [], "a bot outlived its tournament"
    assert _alive_with(f"sleep {marker}") == [], "a child that left its session outlived the tournament"
    for _ in range(50):  # the watch's process removes the sockets' directory as it ends
        if not Path(run_dir).exists():
            break
        time.sleep(0.1)
    assert not Path(run_dir).exists()
    assert not Path(f"/proc/{watch[0]}/stat").exists() or "Z" in Path(f"/proc/{watch[0]}/stat").read_text()


def _parent(pid: str) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
