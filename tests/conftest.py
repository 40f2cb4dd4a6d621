"""The order the suite runs in: modules with slow tests first, so that on several workers
(``make test``) the long ones start at once and the short ones fill in after them, instead of one
long module left running alone at the end."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow: dict[str, int] = {}
    for item in items:
        slow[item.nodeid.split("::")[0]] = slow.get(item.nodeid.split("::")[0], 0) + ("slow" in item.keywords)
    items.sort(key=lambda item: -slow[item.nodeid.split("::")[0]])  # stable: each module keeps its own order
