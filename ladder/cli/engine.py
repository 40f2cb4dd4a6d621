"""``hearts engine``: which rules engine runs (compiled by mypyc, or pure Python) and why; build or remove it."""

from __future__ import annotations

import click

from ladder.cli.common import console


@click.group("engine", invoke_without_command=True)
@click.pass_context
def engine(ctx: click.Context) -> None:
    """Say which rules engine runs, compiled by mypyc or pure Python, and why.

    The engine is the same code either way; compiled it plays about three times as fast.
    hearts engine build compiles it where it is installed (a checkout's make engine does the same).
    """
    if ctx.invoked_subcommand is not None:
        return
    from referee.rules import ENGINE, ENGINE_REASON

    console.print(
        f"engine: {'compiled (mypyc)' if ENGINE == 'compiled' else 'pure Python'} ({ENGINE_REASON})", markup=False
    )
    if ENGINE != "compiled":
        console.print(
            "compile it: hearts engine build (needs pip install 'hearts-arena[compile]' and a C compiler)", markup=False
        )


@engine.command("build")
def engine_build() -> None:
    """Compile the engine with mypyc where it is installed (about 15 s); the next hearts command uses it.

    Needs mypy (pip install 'hearts-arena[compile]') and a C compiler. A failed build leaves no build:
    the engine runs as pure Python, and the message says why.
    """
    from referee.rules.build import build_or_say

    built, said = build_or_say()
    if not built:
        raise click.ClickException(said)
    console.print(said, markup=False)


@engine.command("clean")
def engine_clean() -> None:
    """Remove the compiled engine: the engine runs as pure Python."""
    from referee.rules.build import clean

    clean()
    console.print("compiled engine removed: the engine runs as pure Python")
