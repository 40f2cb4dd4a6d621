"""``python -m arena.jail DIR COMMAND``: run a submitted bot's command in its version directory.

The launcher starts every submitted bot through this (``arena.worker.bot_entry``): it changes into
the version's directory, makes a leading ``python`` this interpreter (as the launcher does), and
execs the command, so the bot's relative paths are its own files. The sandbox (issue #13) replaces it.
"""

from __future__ import annotations

import os
import shlex
import sys


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        sys.exit("usage: python -m arena.jail DIR COMMAND")
    folder, command = argv
    args = shlex.split(command)
    if args and args[0] in ("python", "python3"):
        args[0] = sys.executable
    os.chdir(folder)
    try:
        os.execvp(args[0], args)
    except OSError as e:
        sys.stderr.write(f"cannot run {args[0]}: {e.strerror}\n")
        sys.exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
