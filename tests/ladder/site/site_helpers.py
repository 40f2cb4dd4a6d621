"""Helpers of the site's tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from arena_helpers import Arena


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


def shot(page: Any, name: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=False)
    extra = os.environ.get("HEARTS_SITE_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(extra) / f"site-{name}.png"), full_page=False)
