"""A lowest-card bot that does not stop on SIGTERM: stopping it takes the launcher's whole grace.

``python deaf.py PORT``: prints ``pid N`` and ``listening on HOST:PORT``, then ``SIGTERM ignored``
each time it gets a SIGTERM (so a test knows the tournament has begun to stop its bots), and
only SIGKILL ends it.
"""

from __future__ import annotations

import os
import signal
import sys

from clients.bots import make_bot
from clients.sdk import start_in_thread


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: print("SIGTERM ignored", flush=True))
    server = start_in_thread(make_bot("lowest"), port=int(sys.argv[1]))
    print(f"pid {os.getpid()}", flush=True)
    print(f"listening on {server.address}", flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
