"""docs/cli.md documents every command of the ``hearts`` CLI (in the spirit of sqlite-utils' tests/test_docs.py).

The command tree is walked from ``ladder.cli.main`` (every group: the ladder's, the arena's, the site's, play);
for each command docs/cli.md must have a section
headed exactly ``## hearts <command path>`` that shows the usage line and names, in inline code
(backticks, outside fenced blocks), every long option string and every argument of the command,
and gives each shown default on the option's own line (its table row). Adding a command or an
option without documenting it fails here.

docs/cli.md and docs/tournaments.md also agree with each other and with the harness on what a
figure means and how a match id is written.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from ladder.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "cli.md"


def walk(cmd: click.Command, parent: click.Context | None = None, name: str = "hearts") -> Iterator[click.Context]:
    """A context for every command of the tree, the root first, subcommands in name order."""
    ctx = click.Context(cmd, info_name=name, parent=parent)
    yield ctx
    if isinstance(cmd, click.Group):
        for sub in sorted(cmd.commands):
            yield from walk(cmd.commands[sub], ctx, sub)


COMMANDS = {ctx.command_path: ctx for ctx in walk(main)}


def sections(text: str) -> dict[str, list[str]]:
    """``## `` headings outside fenced code blocks -> the lines of their section, up to the next ``## ``."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            current = out.setdefault(line[3:].strip(), [])
            continue
        if current is not None:
            current.append(line)
    return out


def prose_code_spans(lines: list[str]) -> list[list[str]]:
    """The inline code spans of each line outside fenced blocks (one list per line)."""
    out: list[list[str]] = []
    fenced = False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.findall(r"`([^`\n]+)`", line))
    return out


def token_in(token: str, span: str) -> bool:
    """``token`` as a whole word of ``span``: ``--bot`` is not found in ``--bots FILE``."""
    return re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", span) is not None


def documented_names(cmd: click.Command) -> list[str]:
    """What the docs must name: each long option string (``--db``, ``--no-x``) and each argument (``MATCH_ID``).

    Hidden options are left out: they are not meant for people.
    """
    names: list[str] = []
    for p in cmd.params:
        if getattr(p, "hidden", False):
            continue
        if isinstance(p, click.Argument):
            names.append(p.human_readable_name)  # the metavar, else the NAME in capitals
        else:
            names.extend(o for o in (*p.opts, *p.secondary_opts) if o.startswith("--"))
    return names


def usage_line(ctx: click.Context) -> str:
    return " ".join([ctx.command_path, *ctx.command.collect_usage_pieces(ctx)])


def shown_defaults(cmd: click.Command) -> list[tuple[str, str]]:
    """(long option, default as text) for the options whose --help shows a default."""
    unset = getattr(click.core, "UNSET", None)  # click >= 8.3: the default of an option given none
    return [
        (p.opts[-1], str(p.default))
        for p in cmd.params
        if isinstance(p, click.Option)
        and p.show_default
        and not p.is_flag
        and p.default is not unset
        and p.default not in (None, "")
    ]


def missing_names(ctx: click.Context, section: list[str]) -> list[str]:
    spans = [s for line in prose_code_spans(section) for s in line]
    return [n for n in documented_names(ctx.command) if not any(token_in(n, s) for s in spans)]


def missing_defaults(ctx: click.Context, section: list[str]) -> list[str]:
    lines = prose_code_spans(section)
    return [
        f"{opt} (default {default})"
        for opt, default in shown_defaults(ctx.command)
        if not any(any(token_in(opt, s) for s in spans) and any(token_in(default, s) for s in spans) for spans in lines)
    ]


@pytest.fixture(scope="module")
def docs() -> dict[str, list[str]]:
    return sections(DOCS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", COMMANDS)
def test_command_has_section(path: str, docs: dict[str, list[str]]) -> None:
    assert path in docs, f"docs/cli.md has no section headed '## {path}'"


@pytest.mark.parametrize("path", COMMANDS)
def test_section_shows_usage(path: str, docs: dict[str, list[str]]) -> None:
    usage = usage_line(COMMANDS[path])
    assert any(usage in line for line in docs.get(path, [])), f"'## {path}' lacks the usage line: {usage}"


@pytest.mark.parametrize("path", COMMANDS)
def test_section_names_every_option_and_argument(path: str, docs: dict[str, list[str]]) -> None:
    missing = missing_names(COMMANDS[path], docs.get(path, []))
    assert not missing, f"'## {path}' in docs/cli.md does not mention (in `backticks`): {', '.join(missing)}"


@pytest.mark.parametrize("path", COMMANDS)
def test_section_gives_defaults(path: str, docs: dict[str, list[str]]) -> None:
    missing = missing_defaults(COMMANDS[path], docs.get(path, []))
    assert not missing, f"'## {path}': no line with both the option and its default in `backticks`: {missing}"


@pytest.mark.parametrize("path", COMMANDS)
def test_command_has_help(path: str) -> None:
    cmd = COMMANDS[path].command
    assert (cmd.help or "").strip(), f"{path} has no help text"
    for p in cmd.params:
        if isinstance(p, click.Option):
            assert (p.help or "").strip(), f"{path} {p.opts[-1]} has no help text"


def test_no_section_for_a_missing_command(docs: dict[str, list[str]]) -> None:
    stale = [h for h in docs if (h == "hearts" or h.startswith("hearts ")) and h not in COMMANDS]
    assert not stale, f"docs/cli.md documents commands the CLI does not have: {stale}"


def test_checks_catch_an_undocumented_option_and_command(docs: dict[str, list[str]]) -> None:
    """The checks above fail for an option or a command added without docs."""
    cmd = COMMANDS["hearts ladder"].command
    extra = click.Option(["--dummy-undocumented"], default=7, show_default=True, help="x")
    patched = click.Command(cmd.name, params=[*cmd.params, extra], help=cmd.help)
    ctx = click.Context(patched, info_name="ladder", parent=COMMANDS["hearts"])
    assert "--dummy-undocumented" in missing_names(ctx, docs["hearts ladder"])
    assert "--dummy-undocumented (default 7)" in missing_defaults(ctx, docs["hearts ladder"])
    assert not token_in("--bot", "--bots FILE") and token_in("--bot", "--bot NAME")
    group = click.Group("extra", commands={"new": click.Command("new", help="x")})
    paths = [c.command_path for c in walk(group, name="hearts extra")]
    assert "hearts extra new" in paths and "hearts extra new" not in docs


def test_both_docs_define_pts_per_hand_alike() -> None:
    root = Path(__file__).resolve().parents[2]
    definition = "| pts/hand | final score / hands played: what the bot's total grew by per hand (lower is better) |"
    for doc in ("cli.md", "tournaments.md"):
        assert definition in (root / "docs" / doc).read_text(), doc


def test_the_docs_give_tournament_match_ids_zero_padded() -> None:
    text = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")
    assert "t{tournament}-{index}`" not in text and "t1-000005" in text


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_shell_completion_the_docs_give_completes_a_command(shell: str, tmp_path: Path) -> None:
    """The script each shell is told to write is one, and it asks hearts for the completions it shows."""
    text = DOCS.read_text()
    assert f"_HEARTS_COMPLETE={shell}_source hearts >" in text
    hearts = str(Path(sys.executable).with_name("hearts"))
    script = subprocess.run(
        [hearts], env={**os.environ, "_HEARTS_COMPLETE": f"{shell}_source"}, capture_output=True, text=True, timeout=60
    )
    assert script.returncode == 0 and "_HEARTS_COMPLETE" in script.stdout, script.stderr
    asked = subprocess.run(
        [hearts],
        env={**os.environ, "_HEARTS_COMPLETE": "bash_complete", "COMP_WORDS": "hearts tour", "COMP_CWORD": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "plain,tournament" in asked.stdout.splitlines()
