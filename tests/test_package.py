"""The package as a user gets it: the wheel ``pip wheel .`` builds, installed into a new venv outside
the checkout, runs ``hearts match``, ``hearts validate``, ``hearts arena serve`` and ``hearts play``
from what it holds alone (templates, static files, the protocol and its sample requests), and says
that its engine runs as pure Python and how to compile it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ladder.bots.launcher import free_port

pytestmark = pytest.mark.slow  # a wheel built and installed, whole processes

ROOT = Path(__file__).resolve().parents[1]
SEATS = [f"--seat=p{i}=clients.bots.{b}" for i, b in enumerate(("heuristic:HeuristicBot", "lowest:LowestBot") * 2)]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bin folder of a new venv holding the wheel; beside it, the distributions the wheel requires."""
    d = tmp_path_factory.mktemp("package")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(d / "dist"), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = (d / "dist").glob("hearts_arena-*.whl")
    # The venv knows nothing of the checkout (a PYTHONPATH into it would make pip think it installed).
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(d / "venv")], check=True, timeout=120, env=_env()
    )
    venv_python = d / "venv" / "bin" / "python"
    site = subprocess.run(
        [venv_python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
        env=_env(),
    ).stdout.strip()
    # What the wheel's metadata requires, installed already in this environment, is linked rather
    # than installed again (a copy of numpy and scipy is most of an install's time); nothing else of
    # this environment is visible, so an import the metadata does not declare still fails.
    (Path(site) / "requirements.pth").write_text(f"{_required_distributions(wheel, d / 'required')}\n")
    pip = [sys.executable, "-m", "pip", "--python", str(venv_python)]
    for args in (["install", "-q", "--no-deps", str(wheel)], ["check"]):
        done = subprocess.run([*pip, *args], capture_output=True, text=True, timeout=600, env=_env())
        assert done.returncode == 0, done.stdout + done.stderr
    yield d / "venv" / "bin"


def _required_distributions(wheel: Path, folder: Path) -> Path:
    """``folder`` filled with links to the files of every distribution the wheel's metadata requires
    (their requirements too, extras left out), as installed in this environment."""
    import zipfile
    from email.parser import Parser
    from importlib.metadata import distribution

    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as zf:
        [metadata] = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        requires = Parser().parsestr(zf.read(metadata).decode()).get_all("Requires-Dist") or []
    folder.mkdir()
    seen: set[str] = set()
    todo = [Requirement(r) for r in requires]
    while todo:
        req = todo.pop()
        name = req.name.lower().replace("_", "-")
        if name in seen or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        dist = distribution(name)
        todo.extend(Requirement(r) for r in dist.requires or ())
        for top in {f.parts[0] for f in dist.files or () if f.parts[0] not in ("..", "__pycache__")}:
            if not top.endswith(".pth") and not (folder / top).exists():
                (folder / top).symlink_to(dist.locate_file(top))
    return folder


def _env() -> dict[str, str]:
    """This environment without what points into the checkout (the wheel alone must do)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "HEARTS_PURE_PYTHON")}


def _hearts(bin_dir: Path, cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "hearts"), *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout
    )


def test_the_wheel_holds_what_the_commands_read_and_runs_from_outside_the_checkout(
    installed: Path, tmp_path: Path
) -> None:
    where = _hearts(installed, tmp_path, "proto")
    assert where.returncode == 0 and ROOT.as_posix() not in where.stdout, where.stdout + where.stderr
    examples = Path(_hearts(installed, tmp_path, "proto", "--examples").stdout.strip())
    assert (examples / "PlayCard.json").is_file() and ROOT not in examples.parents
    engine = _hearts(installed, tmp_path, "engine")
    assert "engine: pure Python (no compiled build)" in engine.stdout and "hearts engine build" in engine.stdout
    match = _hearts(installed, tmp_path, "match", *SEATS, "--rules", "standard,target=30", "--seed", "1")
    assert match.returncode == 0, match.stdout + match.stderr
    assert "recorded in arena.db" in match.stdout and "hearts replay" in match.stdout
    assert "runs as pure Python (no compiled build here); hearts engine build compiles it" in match.stderr
    checked = _hearts(installed, tmp_path, "validate", "clients.bots.lowest:LowestBot", "--rules", "standard")
    assert checked.returncode == 0 and "passed" in checked.stdout, checked.stdout + checked.stderr


def _start(bin_dir: Path, cwd: Path, log: Path, *args: str) -> subprocess.Popen[str]:
    """``hearts ARGS`` from the installed venv, in a session of its own, its output in ``log``."""
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(bin_dir / "hearts"), *args],
            cwd=cwd,
            env=_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )


def _serving(proc: subprocess.Popen[str], url: str, log: Path) -> httpx.Response:
    """The first answer at ``url`` (the server started by ``proc``), within a bound."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        try:
            return httpx.get(url, timeout=2)
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"nothing answered at {url}: {log.read_text()}")


def test_an_installed_arena_serves_its_site_and_hearts_play_its_table(installed: Path, tmp_path: Path) -> None:
    made = _hearts(installed, tmp_path, "arena", "init", "demo")
    assert made.returncode == 0, made.stdout + made.stderr
    port = free_port()
    log = tmp_path / "serve.log"
    serve = _start(installed, tmp_path, log, "arena", "serve", "demo", "--port", str(port))
    try:
        assert _serving(serve, f"http://127.0.0.1:{port}/api/status", log).status_code == 401
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()  # the site's templates
        assert httpx.get(f"http://127.0.0.1:{port}/static/style.css", timeout=10).status_code == 200
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(30)
    play_log = tmp_path / "play.log"
    play = _start(installed, tmp_path, play_log, "play", "--no-browser", "--seed", "1", "--db", "play.db")
    try:
        deadline = time.monotonic() + 60
        while not (found := re.findall(r"http://127\.0\.0\.1:\d+/\?key=[\w-]+", play_log.read_text())):
            assert play.poll() is None and time.monotonic() < deadline, play_log.read_text()
            time.sleep(0.1)
        table = _serving(play, found[0], play_log)
        assert table.status_code == 200 and "<html" in table.text.lower()  # the table's page, from the wheel
    finally:
        os.killpg(play.pid, signal.SIGTERM)
        play.wait(30)
