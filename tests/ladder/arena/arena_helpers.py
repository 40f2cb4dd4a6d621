"""Arenas for the tests (tests/ladder/arena/conftest.py has the fixture): made by the real `hearts arena
init`, served by the real `hearts arena serve` (uvicorn, as a subprocess on a free port), spoken to
over real HTTP (httpx)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from ladder.bots.launcher import free_port

ROOT = Path(__file__).resolve().parents[3]
HEARTS = [sys.executable, "-m", "ladder.cli"]

# Short matches and a fast clock: these tests are about the arena, not the game.
FAST_TOML = """
name = "test arena"
[ladder]
rules = "standard,target=30"
concurrency = 2
bot_concurrency = 2
[time]
budget_ms = 300
bank_ms = 3000
grace_ms = 50
max_faults = 3
[submissions]
max_archive_bytes = 200000
max_files = 50
max_unpacked_bytes = 1000000
build_timeout_s = 20
allow_local_addresses = true  # the participants' hosted bots run on this machine too
[classroom]
{classroom}
{house}
"""

HOUSE4 = """
[house.random]
command = "python -m clients.bots.random --port {port} --seed 1"
[house.random-2]
command = "python -m clients.bots.random --port {port} --seed 2"
[house.lowest]
command = "python -m clients.bots.lowest --port {port}"
[house.heuristic]
command = "python -m clients.bots.heuristic --port {port}"
"""

HOUSE2 = """
[house.random]
command = "python -m clients.bots.random --port {port} --seed 1"
[house.lowest]
command = "python -m clients.bots.lowest --port {port}"
"""

HOUSE3 = (
    HOUSE2
    + """
[house.heuristic]
command = "python -m clients.bots.heuristic --port {port}"
"""
)

GOOD_BOT = """\
from clients.sdk import serve


class Lowest:
    def pass_cards(self, view):
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count:]

    def play_card(self, view):
        return min(view.legal, key=lambda c: c.rank)


if __name__ == "__main__":
    serve(Lowest())
"""

BROKEN_BOT = """\
import os
import re

from clients.sdk import serve


class Broken:
    def pass_cards(self, view):
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count:]

    def play_card(self, view):
        os._exit(3)  # crashes on PlayCard


if __name__ == "__main__":
    serve(Broken())
"""


def write_bot(folder: Path, source: str, *, build: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    manifest = 'command = "python bot.py --port {port}"\nlanguage = "python"\n'
    if build is not None:
        manifest += f"build = {build!r}\n"
    (folder / "bot.toml").write_text(manifest)
    return folder


def hearts(
    *args: str, cwd: Path | None = None, check: bool = True, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([*HEARTS, *args], cwd=cwd or ROOT, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"hearts {' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r


@dataclass
class Arena:
    dir: Path
    organiser: str
    url: str = ""
    proc: subprocess.Popen[bytes] | None = None

    def client(self, token: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def add_user(self, name: str) -> str:
        out = hearts("arena", "user", "add", name, "--dir", str(self.dir)).stdout
        return out.strip().splitlines()[-1].split("\t")[1]

    def serve(self) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        log = open(self.dir / "serve.log", "ab")  # kept open for the life of the server
        self.proc = subprocess.Popen(
            [*HEARTS, "arena", "serve", str(self.dir), "--port", str(port)],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (self.dir / "serve.log").read_text()
            try:
                if httpx.get(f"{self.url}/api/status", timeout=1).status_code == 401:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("the arena did not answer within 30 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def kill(self) -> None:
        """SIGKILL the server alone (its bots die with it: PR_SET_PDEATHSIG)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc = None

    def wait_for(self, token: str, predicate, timeout: float = 90, path: str = "/api/status"):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        with self.client(token) as c:
            while True:
                data = c.get(path).json()
                if predicate(data):
                    return data
                if time.monotonic() > deadline:
                    raise AssertionError(f"timed out waiting on {path}: {data}")
                time.sleep(0.3)


def token_of(out: str) -> str:
    return next(ln for ln in out.splitlines() if re.fullmatch(r"\d+\.[A-Za-z0-9_-]{20,}", ln.strip())).strip()


def make_arena(root: Path, *, house: str = HOUSE4, classroom: str = "") -> Arena:
    d = root / "arena"
    out = hearts("arena", "init", str(d)).stdout
    token = token_of(out)
    (d / "arena.toml").write_text(FAST_TOML.format(classroom=classroom, house=house))
    return Arena(dir=d, organiser=token)
