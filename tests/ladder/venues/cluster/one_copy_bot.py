"""The lowest bot, of which only one copy may run at a time on a machine: a second copy (another
worker's) fails to start, saying so in its log, as a bot that cannot start on one worker does."""

from __future__ import annotations

import argparse
import fcntl
import sys

from clients.bots import make_bot
from clients.sdk import serve

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--lock", required=True)
    args, _ = ap.parse_known_args()
    held = open(args.lock, "w")  # kept open: the lock lasts as long as this process
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"another copy of this bot holds {args.lock}: this one does not start", file=sys.stderr, flush=True)
        sys.exit(3)
    serve(make_bot("lowest"), port=args.port)
