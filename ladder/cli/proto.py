"""``hearts proto``: where the bot protocol's bot.proto is, or its text."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("proto")
@click.option("--text", is_flag=True, help="Print the contents of bot.proto instead of its path.")
def proto_command(text: bool) -> None:
    """Print the path of hearts.v1's bot.proto, the bot protocol, as installed with this package.

    The file ships inside the package (hearts/v1/bot.proto): generate a bot's code from it with
    protoc or buf (docs/protocol.md), or print it with --text.
    """
    from importlib.resources import files

    resource = files("hearts.v1") / "bot.proto"
    if not resource.is_file():
        raise click.ClickException("bot.proto is missing from the installed hearts.v1 package: reinstall hearts-arena")
    if text:
        click.echo(resource.read_text(encoding="utf-8"), nl=False)
    elif isinstance(resource, Path):
        click.echo(str(resource))
    else:  # a package inside a zip file has no path of its own
        raise click.ClickException("this installation keeps bot.proto in an archive: use hearts proto --text")
