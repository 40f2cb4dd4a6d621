"""``hearts proto``: where the bot protocol's bot.proto is (or its text), and its sample requests."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("proto")
@click.option("--text", is_flag=True, help="Print the contents of bot.proto instead of its path.")
@click.option(
    "--examples",
    is_flag=True,
    help="Print the folder of sample requests, one JSON file per RPC (PlayCard.json, ...), for grpcurl -d @.",
)
def proto_command(text: bool, examples: bool) -> None:
    """Print the path of hearts.v1's bot.proto, the bot protocol, as installed with this package.

    The file ships inside the package (hearts/v1/bot.proto): generate a bot's code from it with
    protoc or buf (docs/protocol.md), or print it with --text. --examples prints the folder of one
    sample request of each RPC, shipped beside it:

    \b
      grpcurl -plaintext -d @ localhost:50051 hearts.v1.BotService/PlayCard < "$(hearts proto --examples)/PlayCard.json"
    """
    from importlib.resources import files

    if text and examples:
        raise click.UsageError("give at most one of --text and --examples")
    resource = files("hearts.v1") / ("examples" if examples else "bot.proto")
    if not (resource.is_dir() if examples else resource.is_file()):
        what = "the sample requests are" if examples else "bot.proto is"
        raise click.ClickException(f"{what} missing from the installed hearts.v1 package: reinstall hearts-arena")
    if text:
        click.echo(resource.read_text(encoding="utf-8"), nl=False)
    elif isinstance(resource, Path):
        click.echo(str(resource))
    else:  # a package inside a zip file has no path of its own
        raise click.ClickException(
            "this installation keeps the protocol's files in an archive: use hearts proto --text"
        )
