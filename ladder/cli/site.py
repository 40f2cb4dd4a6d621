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
@click.option(
    "--full",
    is_flag=True,
    help="Render every replay again, even those the last build into OUT left as they are.",
)
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
def site_build(db: Path, replays: int, full: bool, out: Path) -> None:
    """Write the leaderboard, the matches, the bots' pages and the replays to OUT as a static site.

    An arena's database is written as a visitor sees it; a plain tournament database (no arena's
    tables: nothing is added to it) with its tournaments' pages too and every bot by its name.
    Built again into the same OUT, only what changed is written (a replay whose match shows as
    before is not even rendered), and the pages the last build wrote that are no longer in the
    site are removed: publish OUT with rsync or any tool that copies what changed.

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
        built = build_local_site(db, out, replays=replays, full=full)
    else:
        arena_dir = db.resolve().parent
        try:
            cfg = load_config(arena_dir)
        except ArenaConfigError as e:
            raise click.ClickException(str(e)) from None
        built = build_site(arena_dir, cfg, out, replays=replays, full=full)
    console.print(f"site of {built} in {out}/ (open {out}/index.html)", highlight=False, markup=False, soft_wrap=True)
