"""``hearts validate`` through real processes: the CLI as a subprocess, each bot started by its
``--command`` (the launcher, a free port, health), judged over real gRPC.

Every sample bot passes (exit 0); a faulty bot for each kind the referee records fails (exit 1) with a
failed check naming exactly that kind; a synchronous bot that declares no concurrency limit fails the
concurrency check; bot-controlled text is shown inert; the JSON report reads back. The validations run
a few at a time, in parallel, once for the whole module.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_procs import BOTS_DIR, HEARTS, hearts
from cli_runner import run
from google.protobuf import json_format

from clients.sdk import Bot, ThreadedBotServer, View, start_in_thread
from hearts.v1 import bot_pb2 as pb
from ladder.bots.launcher import free_port
from ladder.conformance.checks import VARIANTS
from ladder.conformance.report import Outcome, Report
from ladder.conformance.validate import validate
from referee.record import FaultKind
from referee.rules import Card, Rules

sys.path.insert(0, str(BOTS_DIR))
from faulty import FAULTY, HOSTILE_ERROR, HOSTILE_NAME  # noqa: E402  # the path above first
from referee_bots import FirstLegal, start_server  # noqa: E402  # on the path faulty put there

ROOT = Path(__file__).resolve().parents[2]
NODE_READY = shutil.which("node") is not None and (ROOT / "clients" / "node" / "node_modules").is_dir()

SAMPLES = {
    "random": "python -m clients.bots.random --port {port} --seed 1",
    "lowest": "python -m clients.bots.lowest --port {port}",
    "heuristic": "python -m clients.bots.heuristic --port {port}",
    "minimal": f"python {ROOT / 'clients' / 'examples' / 'minimal.py'} --port {{port}}",
    **({"node": f"node {ROOT / 'clients' / 'node' / 'bot.js'} --port {{port}}"} if NODE_READY else {}),
}
FAULTY_COMMAND = f"python {BOTS_DIR / 'faulty.py'} {{kind}} {{{{port}}}}"
# The timeout bot's clock: a timeout costs budget + grace once the bank (none) is spent. The other
# faulty bots answer at once: a roomy budget, so that a loaded machine adds no timeout to their fault.
FAST_CLOCK = ("--budget-ms", "250", "--bank-ms", "0")
ROOMY_CLOCK = ("--budget-ms", "2000", "--bank-ms", "0")
SYNCHRONOUS = f"python {BOTS_DIR / 'synchronous.py'} {{port}} 15"  # one worker, 15 ms a decision, no limit declared


@dataclass(frozen=True)
class Validation:
    args: tuple[str, ...]
    code: int
    out: str
    err: str

    def report(self) -> Report:
        return Report.from_dict(json.loads(self.out))


def _run(cwd: Path, *args: str) -> Validation:
    env = {**os.environ, "COLUMNS": "200"}  # a wide table: no escaped sequence is cut by a wrap
    proc = subprocess.run(
        [HEARTS, "validate", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    return Validation(args, proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def validations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Validation]:
    """Every validation of this module, four at a time (each in its own directory: its logs/)."""
    jobs: dict[str, tuple[str, ...]] = {
        **{f"sample:{name}": ("--command", command, "--json") for name, command in SAMPLES.items()},
        **{
            f"faulty:{kind}": (
                "--command",
                FAULTY_COMMAND.format(kind=kind),
                "--json",
                *(FAST_CLOCK if kind == FaultKind.TIMEOUT.value else ROOMY_CLOCK),
            )
            for kind in FAULTY
            if kind != "hostile"
        },
        "hostile": ("--command", FAULTY_COMMAND.format(kind="hostile"), "--rules", "standard", *FAST_CLOCK),
        "synchronous": (
            "--command",
            SYNCHRONOUS,
            "--json",
            "--rules",
            "standard",
            "--budget-ms",
            "30",
            "--grace-ms",
            "10",
            "--bank-ms",
            "2000",
        ),
    }

    def one(item: tuple[str, tuple[str, ...]]) -> tuple[str, Validation]:
        key, args = item
        return key, _run(tmp_path_factory.mktemp(key.replace(":", "-")), *args)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(one, jobs.items()))


def _explain(v: Validation) -> str:
    return f"hearts validate {' '.join(v.args)} -> {v.code}\n{v.out[-3000:]}\n{v.err[-2000:]}"


@pytest.mark.parametrize("name", ["random", "lowest", "heuristic", "minimal", "node"])
@pytest.mark.slow
def test_every_sample_bot_passes(name: str, validations: dict[str, Validation]) -> None:
    """Each sample bot, the README's minimal bot and the Node.js bot pass every check of every ruleset
    (they claim all), having been asked every RPC: all six decisions, under 3, 4 and 5 players."""
    if name == "node" and not NODE_READY:
        pytest.skip("node or clients/node/node_modules missing: npm ci --prefix clients/node")
    v = validations[f"sample:{name}"]
    assert v.code == 0, _explain(v)
    report = v.report()
    assert report.ok and not report.failures()
    assert [c.name for c in report.checks if c.outcome is Outcome.WARN] == [], _explain(v)
    skipped = [c for c in report.checks if c.outcome is Outcome.SKIP]
    assert [(c.name, c.rules) for c in skipped] == [("positions not built", "standard,players=3")]
    asked = {c.request.split()[0] for c in report.checks if c.kind == "position" and c.request}
    assert asked == {"PassCards", "PlayCard", "CallPass", "DiscardCards", "ChargeCards", "ChooseMoon"}
    assert {"standard", "nasty", "standard,players=3", "standard,players=5,pass_cycle=five-player"} <= set(report.rules)
    kinds = {c.kind for c in report.checks}
    assert {"health", "reflection", "handshake", "position", "stateless", "concurrency", "cancel", "match"} <= kinds
    assert report.latency.decisions > 150 and report.checks[-1].name == "latency"


# resource_limit needs a sandbox to stop the bot at a limit (tests/ladder/sandbox/test_validate_sandboxed.py),
# impersonation a launcher that saw another process serve the bot (tests/ladder/test_impersonation.py).
LAUNCHER_KINDS = (FaultKind.RESOURCE_LIMIT, FaultKind.IMPERSONATION)


@pytest.mark.parametrize("kind", [k for k in FaultKind if k not in LAUNCHER_KINDS], ids=lambda k: k.value)
@pytest.mark.slow  # the validations: hearts validate processes
def test_each_fault_kind_is_caught(kind: FaultKind, validations: dict[str, Validation]) -> None:
    """A bot wrong in one way fails, and the checks that fail name exactly that fault kind (the referee's
    own classification), with the evidence: the request sent and what came back."""
    assert kind.value in FAULTY, f"no faulty bot for {kind.value}: add one to tests/ladder/bots/faulty.py"
    v = validations[f"faulty:{kind.value}"]
    assert v.code == 1, _explain(v)
    report = v.report()
    failures = report.failures()
    assert failures and {c.fault for c in failures} == {kind}, _explain(v)
    asked = next(c for c in failures if c.kind == "position" or c.kind == "stateless")
    assert asked.request and asked.received and asked.request_json is not None
    rpc = asked.request.split()[0]
    assert rpc in ("PassCards", "PlayCard", "DiscardCards", "CallPass", "ChargeCards"), asked.request
    view = asked.request_json["view"]  # the whole request, as grpcurl -d takes it
    assert view["rules"]["players"] and (rpc == "CallPass" or view["hand"]), asked.request_json
    request = json_format.ParseDict(asked.request_json, getattr(pb, f"{rpc}Request")())
    assert request.view.match_id.startswith("validate-")
    if kind in (FaultKind.TRANSPORT, FaultKind.TIMEOUT):  # a match forfeits such a bot: nothing more is asked
        assert report.checks[-2].name == "the checks left" and report.checks[-2].outcome is Outcome.SKIP


@pytest.mark.slow  # the validations: hearts validate processes
def test_a_synchronous_bot_declaring_no_limit_fails_the_concurrency_check(validations: dict[str, Validation]) -> None:
    """The commonest student bot (one worker thread) declaring no limit queues 8 requests at once behind each
    other: the concurrency check fails as timeouts, and says what to declare."""
    v = validations["synchronous"]
    assert v.code == 1, _explain(v)
    check = next(c for c in v.report().checks if c.kind == "concurrency")
    assert check.outcome is Outcome.FAIL and check.fault is FaultKind.TIMEOUT
    assert "declare max_concurrent_games" in check.detail


@pytest.mark.slow  # the validations: hearts validate processes
def test_bot_text_is_shown_inert(validations: dict[str, Validation]) -> None:
    """A bot's name and its error messages, full of rich markup, escapes and a bidi override, are printed as
    data: the markup as it stands, every control written out."""
    v = validations["hostile"]
    assert v.code == 1, _explain(v)
    out = v.out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "[bold]boss[/bold]\\x1b[2J\\x1b]0;pwned\\x07" in out  # the handshake name, in the header and its row
    assert "[red]crash[/red] \\x1b[31mred\\x1b[0m \\u202eevil" in out  # the error status, in the table and the evidence
    assert HOSTILE_NAME.startswith("[bold]") and HOSTILE_ERROR.startswith("[red]")


@pytest.mark.slow  # the validations: hearts validate processes
def test_the_json_report_reads_back(validations: dict[str, Validation]) -> None:
    """--json is one ASCII object of schema hearts-arena/validate version 2, and Report.from_dict reads it
    back to the same object, for a passing bot and a failing one; with what guarded the bot (started by
    --command without --sandbox: none). A version 1 report, before the isolation, reads as unknown."""
    for key in ("sample:random", "faulty:illegal_card"):
        v = validations[key]
        assert v.out.isascii()
        data = json.loads(v.out)
        assert (data["schema"], data["version"]) == ("hearts-arena/validate", 2)
        assert data["isolation"] == "none:peer-checked"
        report = Report.from_dict(data)
        assert report.to_dict() == data
        assert data["ok"] is report.ok and data["counts"] == report.counts()
        assert data["command"] == v.args[1] and data["bot"]["name"] == ("random" if key.startswith("s") else "illegal")
    older = {k: v for k, v in data.items() if k != "isolation"}
    assert Report.from_dict({**older, "version": 1}).isolation is None
    with pytest.raises(ValueError, match="not a hearts-arena/validate report of versions 1 to 2"):
        Report.from_dict({**data, "version": 3})


@pytest.mark.slow
def test_an_unreachable_address_fails_once_its_startup_timeout_is_over(tmp_path: Path) -> None:
    """Nothing listens: the bot is waited for as a starting bot is (--startup-timeout), then fails, asked nothing."""
    port = free_port()
    result = hearts(tmp_path, "validate", f"127.0.0.1:{port}", "--json", "--startup-timeout", "1")
    assert result.returncode == 1, result.stdout + result.stderr
    report = Report.from_dict(json.loads(result.stdout))
    assert [(c.name, c.outcome, c.fault) for c in report.checks] == [
        ("health", Outcome.FAIL, FaultKind.TRANSPORT),
        ("the checks left", Outcome.SKIP, None),
        ("latency", Outcome.SKIP, None),
    ]
    assert report.checks[0].detail == (
        "the bot could not be reached within 1 s (the startup timeout): "
        f"nothing listens at 127.0.0.1:{port} (or it drops every connection)"
    )
    table = hearts(tmp_path, "validate", f"127.0.0.1:{port}", "--startup-timeout", "1")
    assert table.returncode == 1 and "the bot could not be reached" in table.stdout and "FAILED" in table.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give the bot's ADDRESS (HOST:PORT), its class (PKG.MOD:CLASS"),
        (("localhost:1", "--command", "python x.py"), "give the bot's ADDRESS (HOST:PORT), its class (PKG.MOD:CLASS"),
        (("localhost",), "'localhost' is not HOST:PORT"),
        (("localhost:1", "--rules", "sport"), "unknown preset 'sport'"),
        (("localhost:1", "--budget-ms", "0"), "0<x<4294967296"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run("validate", *args)
    assert result.exit_code == 2 and message in result.output, result.output


@pytest.mark.slow
def test_a_bot_that_will_not_start_is_an_error(tmp_path: Path) -> None:
    result = hearts(tmp_path, "validate", "--command", "python -c 'raise SystemExit(4)'", "--startup-timeout", "5")
    assert result.returncode == 1 and "failed to start" in result.stderr and "exited with code 4" in result.stderr


# -- the library: which rules are checked, and how many requests at once --------------------------------


class Claiming(Bot):
    """A lowest-card bot with chosen claims."""

    def __init__(self, presets: tuple[str, ...] = (), options: tuple[str, ...] = (), limit: int = 0) -> None:
        self.presets, self.options, self.max_concurrent_games = presets, options, limit

    def pass_cards(self, view: View) -> list[Card]:
        return list(view.hand.cards[: view.rules.pass_count])

    def play_card(self, view: View) -> Card:
        return view.legal.cards[0]


class Served:
    """Bots served in this process for one test (real gRPC servers on port 0), stopped after it."""

    def __init__(self) -> None:
        self.servers: list[ThreadedBotServer] = []

    def __call__(self, bot: Bot) -> str:
        self.servers.append(start_in_thread(bot))
        return self.servers[-1].address


@pytest.fixture()
def serve() -> Iterator[Served]:
    served = Served()
    yield served
    for server in served.servers:
        server.stop()


def _validated(address: str, **kw: object) -> Report:
    return asyncio.run(validate(address, match=False, **kw))  # type: ignore[arg-type]


@pytest.mark.slow
def test_only_the_rulesets_the_handshake_claims_are_checked(serve: Served) -> None:
    """presets ["spot"] and options ["target"]: spot alone (every variant changes an option it does not
    claim); presets ["standard"] and every option: standard and every variant on it; options ["players"]: 3 and 5
    players; --rules as asked, with a warning for rules it does not claim; and as many requests at once as
    max_concurrent_games."""
    spot = _validated(serve(Claiming(presets=("spot",), options=("target",), limit=3)))
    assert spot.rules == ("spot",) and spot.ok
    assert [c.name for c in spot.checks if c.kind == "concurrency"] == ["3 requests at once"]
    standard = _validated(serve(Claiming(presets=("standard",))))
    on_standard = [str(Rules.parse(alternatives[0])) for alternatives in VARIANTS]
    on_standard = [t for t in on_standard if t.split(",")[0] == "standard"]  # not cancellation's 10 seats
    assert standard.rules == ("standard", *on_standard)
    players = _validated(serve(Claiming(presets=("standard",), options=("players",))))
    assert players.rules == ("standard", "standard,players=3", "standard,players=5")  # the cycle they imply
    asked = _validated(serve(Claiming(presets=("spot",))), rules=[Rules.parse("standard,players=5")])
    assert asked.rules == ("standard,players=5",)
    claims = [c for c in asked.checks if c.kind == "claims"]
    assert [(c.outcome, c.rules) for c in claims] == [(Outcome.WARN, "standard,players=5")] and asked.ok


@pytest.mark.slow
def test_verbose_shows_each_passing_position(serve: Served, tmp_path: Path) -> None:
    """Without --verbose a ruleset's passing positions are one row; with it, one row each."""
    address = serve(Claiming())
    plain = _run(tmp_path, address, "--rules", "standard")
    verbose = _run(tmp_path, address, "--rules", "standard", "--verbose")
    assert plain.code == verbose.code == 0, _explain(plain) + _explain(verbose)
    assert "11 answered legally" in plain.out and "a hand of only penalty cards" not in plain.out
    assert "11 answered legally" not in verbose.out
    for name in ("trick one, a hand of only penalty cards", "on lead, hearts unbroken, only hearts", "pass across"):
        assert name in verbose.out
    assert "OK: 0 failed" in plain.out


def test_a_bot_without_health_fails_that_check_alone() -> None:
    """The launcher seats no bot that does not report SERVING: no health service is a failure, though a
    match would record no fault for it (the bot never gets that far); every other check still runs."""
    server, address = start_server(FirstLegal())
    try:
        report = _validated(address, rules=[Rules()])
    finally:
        server.stop(0)
    [failure] = report.failures()
    assert (failure.name, failure.fault) == ("health", None) and "no grpc.health.v1 service" in failure.detail
    assert sum(1 for c in report.checks if c.outcome is Outcome.PASS) > 10
