"""The ``hearts`` command: its root group, with every command group added here, by name."""

from __future__ import annotations

import click

from ladder.cli.arena import arena
from ladder.cli.ask import ask_command
from ladder.cli.bot import bot
from ladder.cli.compare import compare_command
from ladder.cli.engine import engine
from ladder.cli.leaderboard import ladder_command
from ladder.cli.match import match_command
from ladder.cli.play import play_command
from ladder.cli.proto import proto_command
from ladder.cli.records import export_command, matches_command, replay_command
from ladder.cli.rules import rules
from ladder.cli.site import site
from ladder.cli.submit import submit
from ladder.cli.tournament import tournament
from ladder.cli.validate import validate_command


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="hearts-arena")
def main() -> None:
    """hearts-arena: run Hearts bots against each other and rank them.

    \b
    Quick start:
      hearts rules                      the rulesets and every option
      hearts bot serve heuristic        serve a sample bot over gRPC
      hearts validate localhost:50051   check a bot before it plays (or --command CMD)
      hearts tournament run --bots bots.toml --db arena.db
      hearts ladder --db arena.db       the leaderboard
      hearts play                       play against the bots yourself, in your browser
      hearts arena init DIR             an arena service: bots submitted, validated, ranked continuously
    """


# The ladder's commands.
main.add_command(rules)
main.add_command(proto_command)
main.add_command(bot)
main.add_command(match_command)
main.add_command(validate_command)
main.add_command(replay_command)
main.add_command(ask_command)
main.add_command(matches_command)
main.add_command(export_command)
main.add_command(tournament)
main.add_command(ladder_command)
main.add_command(compare_command)
main.add_command(engine)
# A person at the table (ladder.table), the arena service (ladder.arena) and its web site (ladder.site).
main.add_command(play_command)
main.add_command(arena)
main.add_command(submit)
main.add_command(site)
