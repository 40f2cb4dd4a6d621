"""Helpers of the site's tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import io
import os
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena_helpers import GOOD_BOT, Arena


def quiet(a: Arena) -> None:
    """Pause the ladder and wait until no match is in play: the store holds still while a test compares."""
    with a.client(a.organiser) as c:
        c.post("/api/admin/pause").raise_for_status()
        last, since = -1, time.monotonic()
        while time.monotonic() - since < 1.5:
            s = c.get("/api/status").json()
            if s["matches"] != last or s["live"]:
                last, since = s["matches"], time.monotonic()
            time.sleep(0.2)


def resume(a: Arena) -> None:
    with a.client(a.organiser) as c:
        c.post("/api/admin/resume").raise_for_status()


@contextmanager
def playing(a: Arena) -> Iterator[None]:
    """The ladder plays for the block, then is quiet again (the site fixture keeps it quiet between
    the tests that need new matches: a ladder that plays on through a module spends a core)."""
    resume(a)
    try:
        yield
    finally:
        quiet(a)


def shot(page: Any, name: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=False)
    extra = os.environ.get("HEARTS_SITE_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(extra) / f"site-{name}.png"), full_page=False)


def zip_bot() -> bytes:
    """A good bot as a participant uploads it: a .zip of its bot.py and bot.toml."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in [("bot.py", GOOD_BOT), ("bot.toml", 'command = "python bot.py --port {port}"\n')]:
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o644 << 16  # readable by the sandbox's uid, as a zip tool writes it
            zf.writestr(info, text)
    return buf.getvalue()
