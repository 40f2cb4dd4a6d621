"""The fixture of the arena's tests: every arena made is stopped at the end (arena_helpers.py makes them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from arena_helpers import Arena


@pytest.fixture()
def arena_factory(tmp_path: Path) -> Iterator[list[Arena]]:
    made: list[Arena] = []
    yield made
    for a in made:
        a.stop()
