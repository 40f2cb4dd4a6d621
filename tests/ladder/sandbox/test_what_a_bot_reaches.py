"""What a sandboxed bot reaches of its own files, whatever the modes of the folders above them on
the host: the project copied into a folder of mode 0700 (what ``mktemp -d`` makes; many homes are
0700 or 0750) and run from there, as a fresh clone is, and each kind of bot started in its sandbox
by the real ``hearts validate --sandbox``: a Python script, ``python -m`` (the SDK's module, and a
package of the bot's own), a venv's console script, scripts whose ``#!`` line names their
interpreter, the Node bot, and a compiled binary. A program its sandbox cannot give the bot is
refused before it starts, saying what and what to do; a Node bot sees no folder above the one it
was started from."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.conformance.report import Report

pytestmark = [pytest.mark.needs_bwrap, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
HEARTS = str(Path(sys.executable).with_name("hearts"))
PACKAGES = ("clients", "ladder", "proto", "referee")
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None or not (ROOT / "clients" / "node" / "node_modules").is_dir(),
    reason="node or the Node bot's modules missing (npm ci --prefix clients/node)",
)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's code (the Node bot's modules too) copied into a folder of mode 0700."""
    private = tmp_path_factory.mktemp("private")
    private.chmod(0o700)
    project = private / "hearts-arena"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, project / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return project


def _private(clone: Path) -> Path:
    """The 0700 folder above the copy, which no bot's uid may cross on the host."""
    private = clone.parent
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    return private


def validate(clone: Path, command: str, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``hearts validate --sandbox --command COMMAND`` run from ``cwd`` (the copy) on the copy's
    code, as its own clone would run it; the run and the bot's log."""
    cwd = cwd or clone
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(clone), str(clone / "proto")])}
    run = subprocess.run(
        [HEARTS, "validate", "--sandbox", "--command", command, "--rules", "standard", "--json"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in run.stderr, run.stderr
    return run, cwd / "logs" / "validate.log"


def assert_passes(run: subprocess.CompletedProcess[str], log: Path) -> None:
    assert run.returncode == 0, run.stderr
    report = Report.from_dict(json.loads(run.stdout))
    assert report.ok, [c for c in report.checks if c.outcome.value == "fail"]
    assert "(sandboxed (bubblewrap))" in log.read_text()


@pytest.mark.parametrize(
    "command",
    [
        pytest.param("python clients/examples/minimal.py", id="python-script"),
        pytest.param("python -m clients.bots.heuristic --port {port}", id="python-m-the-sdks"),
        pytest.param(f"{shlex.quote(HEARTS)} bot serve heuristic --port {{port}}", id="venv-console-script"),
        pytest.param("node clients/node/bot.js --port {port}", id="node", marks=needs_node),
    ],
)
def test_the_projects_bots_run_from_a_private_folder_pass_in_their_sandbox(clone: Path, command: str) -> None:
    _private(clone)
    assert_passes(*validate(clone, command))


def test_a_package_of_the_bots_own_run_with_python_m_is_given_alone(clone: Path) -> None:
    folder = _private(clone) / "my-bot"
    package = folder / "mybot"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(HERE / "bots" / "attacker.py", package / "__main__.py")
    (folder / "arena.db").write_text("the hands of every deal")  # beside the package: not the bot's
    targets = {"db": str(folder / "arena.db"), "harness": str(clone / "ladder" / "store.py")}
    (package / "targets.json").write_text(json.dumps(targets))
    run, log = validate(clone, "python -m mybot peek", cwd=folder)
    assert_passes(run, log)
    seen = [ln for ln in log.read_text().splitlines() if ln.startswith(("ATTACK db ", "ATTACK harness "))]
    assert len(seen) == 2 and all(" denied " in ln for ln in seen), seen


def _script(path: Path, preamble: str) -> Path:
    """The attacker bot as an executable script headed by ``preamble`` (its interpreter), in a folder
    of its own with its targets."""
    path.parent.mkdir(parents=True)
    body = (HERE / "bots" / "attacker.py").read_text().replace("from __future__ import annotations\n", "")
    path.write_text(preamble + body)
    path.chmod(0o755)
    (path.parent / "targets.json").write_text("{}")
    return path


@pytest.mark.parametrize(
    ("folder", "preamble"),
    [
        pytest.param("run", f"#!{sys.executable}\n", id="hash-bang"),
        # What pip writes where a #! line cannot hold the interpreter's path (spaces, or too long).
        pytest.param("my bots", f"#!/bin/sh\n'''exec' \"{sys.executable}\" \"$0\" \"$@\"\n' '''\n", id="pip-sh"),
    ],
)
def test_a_script_naming_its_interpreter_passes_in_its_sandbox(clone: Path, folder: str, preamble: str) -> None:
    bot = _script(_private(clone) / folder / "bot", preamble)
    assert_passes(*validate(clone, f"{shlex.quote(str(bot))} none"))


COMPILED = r"""
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A compiled bot: it runs the Node bot kept in its own directory, beside it. */
int main(int argc, char **argv) {
    char self[PATH_MAX], script[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) { perror("readlink /proc/self/exe"); return 1; }
    self[n] = 0;
    *strrchr(self, '/') = 0;
    snprintf(script, sizeof script, "%s/clients/node/bot.js", self);
    char *args[argc + 2];
    args[0] = "node";
    args[1] = script;
    for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
    args[argc + 1] = NULL;
    execv(NODE, args);
    perror("execv " NODE);
    return 127;
}
"""


@needs_node
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc missing")
@pytest.mark.skipif(NODE is None or not NODE.startswith("/usr/"), reason="node is not under /usr")
def test_a_compiled_bot_in_a_private_folder_passes_in_its_sandbox(clone: Path, tmp_path: Path) -> None:
    assert NODE is not None
    bot_dir = _private(clone) / "compiled"
    for part in ("clients/node", "proto/hearts/v1"):
        shutil.copytree(clone / part, bot_dir / part, symlinks=True, ignore=shutil.ignore_patterns("*.py*"))
    (tmp_path / "bot.c").write_text(COMPILED)
    node = os.path.realpath(NODE)
    subprocess.run(["gcc", "-O2", f'-DNODE="{node}"', "-o", str(bot_dir / "bot"), str(tmp_path / "bot.c")], check=True)
    assert_passes(*validate(clone, f"{bot_dir}/bot --port {{port}}"))


def test_an_interpreter_the_sandbox_cannot_give_is_named_before_the_bot_starts(clone: Path) -> None:
    private = _private(clone)
    tools = private / "tools"
    tools.mkdir()
    shutil.copy("/bin/sh", tools / "interp")  # an interpreter outside /usr and outside the bot's directory
    bot = private / "needs-tools" / "bot"
    bot.parent.mkdir()
    bot.write_text(f"#!{tools / 'interp'}\necho hello\n")
    bot.chmod(0o755)
    run, log = validate(clone, str(bot), cwd=bot.parent)
    assert run.returncode == 1
    assert (
        f"its program's interpreter {tools / 'interp'} (the #! line of {bot}) is outside what its sandbox holds"
        in run.stderr
    )
    assert "put it in the bot's own directory" in run.stderr and "No such file" not in run.stderr
    assert not log.exists()  # said before anything started


def test_an_interpreter_that_does_not_exist_is_named_before_the_bot_starts(clone: Path) -> None:
    bot = _private(clone) / "gone-venv" / "bot"
    bot.parent.mkdir()
    bot.write_text("#!/nowhere/.venv/bin/python\nprint('hello')\n")
    bot.chmod(0o755)
    run, log = validate(clone, str(bot), cwd=bot.parent)
    assert run.returncode == 1
    assert f"its program's interpreter /nowhere/.venv/bin/python (the #! line of {bot}) does not exist" in run.stderr
    assert not log.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the bot's own uid (setpriv) is root's to give")
def test_a_bot_directory_closed_to_others_is_named_with_the_chmod_to_run(clone: Path) -> None:
    closed = _private(clone) / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    shutil.copy(HERE / "bots" / "attacker.py", closed / "bot.py")
    run, log = validate(clone, f"python {closed}/bot.py none", cwd=closed.parent)
    assert run.returncode == 1
    assert f"a file its command names, {closed}/bot.py, cannot be read in its sandbox" in run.stderr
    assert f"(mode 0700): chmod a+rX {closed}" in run.stderr
    assert not log.exists()


@needs_node
def test_a_node_bot_sees_no_folder_above_the_one_it_was_started_from(tmp_path: Path) -> None:
    """``node`` named bare: the sandbox once found it beside the working directory and bound that
    folder's parent, every sibling project and database in it."""
    top = tmp_path / "projects"
    (top / "other").mkdir(parents=True)
    (top / "other" / "arena.db").write_text("the hands of every deal")
    top.chmod(0o755)  # open: what it holds would be readable through such a bind
    bot = top / "mine" / "peek" / "peek.js"
    bot.parent.mkdir(parents=True)
    targets = [str(top), str(top / "other" / "arena.db")]
    bot.write_text(
        "const fs = require('fs');\n"
        f"for (const p of {json.dumps(targets)}) {{\n"
        "  try {\n"
        "    const seen = fs.statSync(p).isDirectory() ? fs.readdirSync(p) : fs.readFileSync(p, 'utf8');\n"
        "    console.log('PEEK', p, 'OPEN', JSON.stringify(seen));\n"
        "  } catch (e) { console.log('PEEK', p, 'denied', e.code); }\n"
        "}\n"
    )  # fmt: skip
    run = subprocess.run(
        [HEARTS, "validate", "--sandbox", "--command", "node peek/peek.js", "--startup-timeout", "5"],
        cwd=top / "mine",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1 and "before serving" in run.stderr, run.stderr  # it peeks, then exits
    seen = [ln for ln in (top / "mine" / "logs" / "validate.log").read_text().splitlines() if ln.startswith("PEEK")]
    # The folders above its own are the sandbox's, holding only the way down to it.
    assert seen == [f'PEEK {top} OPEN ["mine"]', f"PEEK {top / 'other' / 'arena.db'} denied ENOENT"]
