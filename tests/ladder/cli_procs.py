"""Helpers for tests that run the real ``hearts`` command as a process: bots files, bounded waits
on the database, a small filesystem of its own (tmpfs, root only)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

HEARTS = str(Path(sys.executable).with_name("hearts"))
BOTS_DIR = Path(__file__).resolve().parent / "bots"
FAST = "standard,target=30"  # short matches: these tests are about the harness, not the game

SAMPLE = """
[bots.random]
command = "python -m clients.bots.random --port {port} --seed 1"
[bots.random-2]
command = "python -m clients.bots.random --port {port} --seed 2"
[bots.lowest]
command = "python -m clients.bots.lowest --port {port}"
[bots.heuristic]
command = "python -m clients.bots.heuristic --port {port}"
"""


class Run:
    """A ``hearts`` process with its stdout and stderr in files (a pipe nobody reads can block it)."""

    def __init__(self, cwd: Path, *args: str, name: str = "run", out_dir: Path | None = None) -> None:
        out_dir = out_dir if out_dir is not None else cwd
        self.out_path, self.err_path = out_dir / f"{name}.out", out_dir / f"{name}.err"
        self._out: IO[bytes] = open(self.out_path, "wb")
        self._err: IO[bytes] = open(self.err_path, "wb")
        self.proc = subprocess.Popen(
            [HEARTS, *args], cwd=cwd, stdout=self._out, stderr=self._err, stdin=subprocess.DEVNULL
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self) -> str:
        for f in (self._out, self._err):
            if not f.closed:
                f.flush()
        return self.out_path.read_text(errors="replace") + self.err_path.read_text(errors="replace")

    def wait(self, timeout: float) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"hearts {self.proc.args[1:]} did not end within {timeout} s:\n{self.output()}")
        self._out.close()
        self._err.close()
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@contextmanager
def running(cwd: Path, *args: str, name: str = "run", out_dir: Path | None = None) -> Iterator[Run]:
    """A ``Run`` that is killed at the end of the block if it is still there; its output goes to
    ``out_dir`` (default ``cwd``)."""
    run = Run(cwd, *args, name=name, out_dir=out_dir)
    try:
        yield run
    finally:
        run.kill()


def hearts(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``hearts ARGS`` to its end (bounded)."""
    return subprocess.run(
        [HEARTS, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def wait_until(condition: Callable[[], bool], timeout: float, what: str, run: Run | None = None) -> None:
    """Poll ``condition`` (a state of the database or a log) until it holds; fail after ``timeout`` s,
    or as soon as ``run`` has ended."""
    deadline = time.monotonic() + timeout
    while not condition():
        if run is not None and run.proc.poll() is not None:
            pytest.fail(f"hearts ended (code {run.proc.returncode}) before {what}:\n{run.output()}")
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}" + (f"\n{run.output()}" if run else ""))
        time.sleep(0.05)


def query(db: Path, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of a read-only query; [] while the schema is not there yet."""
    if not db.exists():
        return []
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            return []
        raise
    finally:
        conn.close()


def write(db: Path, sql: str, args: tuple[Any, ...] = ()) -> None:
    conn = sqlite3.connect(db, timeout=10)
    try:
        with conn:
            conn.execute(sql, args)
    finally:
        conn.close()


def recorded(db: Path, tid: int | None = None) -> int:
    if tid is None:
        rows = query(db, "SELECT COUNT(*) FROM matches")
    else:
        rows = query(db, "SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,))
    return int(rows[0][0]) if rows else 0


def tournament(db: Path, tid: int) -> dict[str, Any]:
    """The tournament row with its done/total counts."""
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    conn.row_factory = sqlite3.Row
    try:
        row = dict(conn.execute("SELECT * FROM tournaments WHERE id = ?", (tid,)).fetchone())
        row["done"], row["total"], row["distinct"] = conn.execute(
            "SELECT COUNT(match_id), COUNT(*), COUNT(DISTINCT match_id) FROM tournament_matches "
            "WHERE tournament_id = ?",
            (tid,),
        ).fetchone()
        return row
    finally:
        conn.close()


def process_gone(pid: int) -> bool:
    """No such process, or a zombie waiting to be reaped (it holds nothing any more)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@contextmanager
def small_filesystem(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` (a real filesystem that can fill up or be made
    read-only; root only, else the test is skipped)."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)
        if os.path.ismount(where):
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def remount(where: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], check=True, capture_output=True)


def fill(path: Path) -> None:
    """Write ``path`` until its filesystem has no space left."""
    with open(path, "wb", buffering=0) as f:
        for chunk in (1 << 20, 1 << 12, 1):
            block = b"\0" * chunk
            try:
                while True:
                    f.write(block)
            except OSError as e:
                if e.errno != 28:  # ENOSPC
                    raise


def every_command(db: str, bots: str) -> list[list[str]]:
    """One call of each command that opens the database: what must refuse a database it cannot use."""
    return [
        ["tournament", "run", "--bots", bots, "--db", db, "--rules", FAST],
        ["tournament", "resume", "1", "--db", db],
        ["tournament", "list", "--db", db],
        ["bot", "add", "--from", bots, "--db", db],
        ["bot", "add", "x", "--command", "python -m clients.bots.lowest --port {port}", "--db", db],
        ["bot", "list", "--db", db],
        ["bot", "remove", "lowest", "--db", db],
        ["ladder", "--db", db],
        ["matches", "--db", db],
        ["replay", "t1", "--db", db],
    ]
