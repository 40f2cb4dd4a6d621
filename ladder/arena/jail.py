"""``python -m ladder.arena.jail [--cpu S] DIR COMMAND``: run a submitted bot's command in its version directory.

The launcher starts every submitted bot through this (``ladder.arena.worker.bot_entry``): it changes into
the version's directory, sets the bot's CPU-time limit (RLIMIT_CPU, ``[sandbox] cpu_s``), no core
files and a 64 MiB largest file, makes a leading ``python`` this interpreter (as the launcher
does), and execs the command, so the bot's relative paths are its own files. These limits are not
isolation: the sandbox (bubblewrap) is what keeps a bot from the rest of the machine.
"""

from __future__ import annotations

import os
import resource
import shlex
import sys

FILE_SIZE = 64 * 1024 * 1024


def main(argv: list[str]) -> None:
    cpu = None
    if argv[:1] == ["--cpu"] and len(argv) > 1:
        cpu, argv = int(argv[1]), argv[2:]
    if len(argv) != 2:
        sys.exit("usage: python -m ladder.arena.jail [--cpu SECONDS] DIR COMMAND")
    folder, command = argv
    args = shlex.split(command)
    if not args:
        sys.exit("the bot's command is empty (bot.toml: command)")
    if args[0] in ("python", "python3"):
        args[0] = sys.executable
    if cpu is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL a second later
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
    os.chdir(folder)
    try:
        os.execvp(args[0], args)
    except OSError as e:
        sys.stderr.write(f"cannot run {args[0]}: {e.strerror}\n")
        sys.exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
