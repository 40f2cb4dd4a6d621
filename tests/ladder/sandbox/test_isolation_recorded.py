"""Every match records what guarded each seat's bot: ``hearts match`` with a bot in the sandbox, a bot
started plainly, an SDK class played in-process and a bot served elsewhere stores each seat's isolation,
and ``hearts replay``, ``hearts export`` and the arena's match page show it."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from clients.bots import make_bot
from clients.sdk import start_in_thread
from ladder.cli import main
from ladder.store import Store
from referee.isolation import FEATURE_DOCS, KINDS, Isolation

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "ladder" / "arena"))
from arena_helpers import make_arena  # noqa: E402

pytestmark = pytest.mark.slow  # whole processes and servers

FAST = "standard,target=30"
# What bubblewrap guards everywhere it runs; the launcher may add more (seccomp, own-uid as root...).
NAMESPACES = {"mount-ns", "pid-ns", "net-ns", "ipc-ns", "rlimits", "watch"}


def hearts(*args: str) -> str:
    """The real ``hearts`` command, run from the project (the bots' commands are relative to it)."""
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)
    assert "Traceback" not in result.output and result.exit_code == 0, result.output
    return result.output


@pytest.mark.needs_bwrap
def test_a_match_stores_and_shows_each_seats_isolation(tmp_path: Path) -> None:
    arena = make_arena(tmp_path, house="")  # its file holds the ladder's matches: the site shows them
    db = arena.dir / "arena.db"
    bots = tmp_path / "bots.toml"
    bots.write_text(
        '[bots.boxed]\ncommand = "python -m clients.bots.random --port {port} --seed 1"\nsandbox = true\n'
        '[bots.plain]\ncommand = "python -m clients.bots.heuristic --port {port}"\n'
    )
    far = start_in_thread(make_bot("lowest"))  # served here, not started by the match: remote
    try:
        out = hearts(
            "match", "--seat", "boxed", "--seat", "plain", "--seat", "inproc=clients.bots.random:RandomBot",
            "--seat", f"far={far.address}", "--bots", str(bots), "--rules", FAST, "--seed", "5", "--db", str(db),
        )  # fmt: skip
    finally:
        far.stop()
    found = re.search(r"hearts replay (\S+) --db", out)
    assert found is not None, out
    match_id = found.group(1)

    # Stored: each seat's, as its launcher (or its seat) said.
    with Store(db, readonly=True) as store:
        seats = store.load_match(match_id).seats
    boxed = seats[0].isolation
    assert boxed is not None and boxed.kind == "sandbox" and NAMESPACES <= set(boxed.features), boxed
    plain = Isolation("none", ("peer-checked",))  # its port's listener checked to be its own
    assert [s.isolation for s in seats[1:]] == [plain, Isolation("in-process"), Isolation("remote")]
    assert {"seccomp", "no-userns", "peer-checked"} <= set(boxed.features), boxed
    texts = [str(boxed), "none:peer-checked", "in-process", "remote"]

    # hearts replay: a line per seat, in words.
    replay = " ".join(hearts("replay", match_id, "--db", str(db)).split())  # rich wraps long lines
    for line in (
        f"seat 0 boxed: sandboxed ({', '.join(boxed.features)})",
        "seat 1 plain: no sandbox",
        "seat 2 inproc: in the referee's process (trusted code)",
        "seat 3 far: remote (served elsewhere, not started here)",
    ):
        assert line in replay, replay

    # hearts export (and replay --json): each seat's text, which Isolation.parse reads back.
    (line,) = hearts("export", "--db", str(db)).splitlines()
    exported = json.loads(line)
    assert exported["version"] == 5 and [s["isolation"] for s in exported["seats"]] == texts
    assert [Isolation.parse(s["isolation"]) for s in exported["seats"]] == [s.isolation for s in seats]

    # The arena's match page: each seat's isolation, its text and what each feature guarantees.
    arena.serve()
    try:
        page = httpx.get(f"{arena.url}/matches/{match_id}", timeout=30)
    finally:
        arena.stop()
    assert page.status_code == 200, page.text
    rows = {int(n): row for n, row in re.findall(r'<tr data-seat="(\d)">(.*?)</tr>', page.text, re.S)}
    assert sorted(rows) == [0, 1, 2, 3]
    assert f"sandboxed ({', '.join(boxed.features)})" in rows[0] and f"<code>{texts[0]}</code>" in rows[0]
    assert all(f"<code>{f}</code>: {FEATURE_DOCS[f]}" in rows[0] for f in boxed.features)
    assert "no sandbox" in rows[1] and "<code>none:peer-checked</code>" in rows[1]
    assert "in the referee&#39;s process (trusted code)" in rows[2] and "<code>in-process</code>" in rows[2]
    assert "remote (served elsewhere, not started here)" in rows[3] and "<code>remote</code>" in rows[3]


def test_the_docs_say_what_each_kind_and_feature_means() -> None:
    """docs/sandbox.md gives every kind a record may hold and every feature in FEATURE_DOCS' words;
    docs/referee.md (the record) every kind."""
    sandbox_doc = (ROOT / "docs" / "sandbox.md").read_text()
    record_doc = (ROOT / "docs" / "referee.md").read_text()
    for kind in KINDS:
        assert f"| `{kind}` |" in sandbox_doc and f"| `{kind}` |" in record_doc, kind
    for feature, words in FEATURE_DOCS.items():
        assert f"| `{feature}` | {words} |" in sandbox_doc, feature
