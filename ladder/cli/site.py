"""``hearts site``: the arena's web site, built as static files."""

from __future__ import annotations

from pathlib import Path

import click

from ladder.cli.common import console


@click.group()
def site() -> None:
    """The arena's web site: `hearts arena serve` serves it; `hearts site build` writes it as files."""


@site.command("build")
@click.option(
    "--db",
    "db",
    required=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The arena's database, DIR/arena.db (DIR/arena.toml beside it is read too), or a plain tournament "
    "database (the file hearts match and hearts tournament run write).",
)
@click.option(
    "--replays", type=int, default=200, show_default=True, help="How many of the newest matches get a replay page."
)
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
def site_build(db: Path, replays: int, out: Path) -> None:
    """Write the leaderboard, the matches, the bots' pages and the replays to OUT as a static site.

    An arena's database is written as a visitor sees it; a plain tournament database (no arena's
    tables: nothing is added to it) with its tournaments' pages too and every bot by its name.

    \b
    Examples:
      hearts site build --db demo-arena/arena.db public/
      hearts site build --db tournaments.db public/
    """
    from ladder.arena.config import ArenaConfigError, load_config
    from ladder.arena.store import has_arena_tables
    from ladder.cli.common import _open
    from ladder.site.static_site import build_local_site, build_site

    with _open(str(db), readonly=True):  # a file that is no database (or too new) is one Error: line
        pass
    if not has_arena_tables(db):
        n = build_local_site(db, out, replays=replays)
        console.print(
            f"wrote {n} pages to {out}/ (open {out}/index.html)", highlight=False, markup=False, soft_wrap=True
        )
        return
    arena_dir = db.resolve().parent
    try:
        cfg = load_config(arena_dir)
    except ArenaConfigError as e:
        raise click.ClickException(str(e)) from None
    n = build_site(arena_dir, cfg, out, replays=replays)
    console.print(f"wrote {n} pages to {out}/ (open {out}/index.html)", highlight=False, markup=False, soft_wrap=True)
