"""Where the rule sources are, for the tests that check quotes against them.

``$HEARTS_RULE_SOURCES``, else ``shared/rules`` beside the project's folder. Where they are expected
(the variable is set, or ``CI`` is) and missing, the checks fail; elsewhere their absence is one
skip a check and one loud line at the end of the run (``tests/conftest.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

_GIVEN = os.environ.get("HEARTS_RULE_SOURCES")
SOURCES = Path(_GIVEN) if _GIVEN else Path(__file__).resolve().parents[2] / "shared" / "rules"
EXPECTED = bool(_GIVEN or os.environ.get("CI"))
WHY_NOT: str | None = (
    None
    if SOURCES.is_dir()
    else f"no rule sources at {SOURCES}: set HEARTS_RULE_SOURCES to their folder to check the rule tests' quotes"
)
CHECKED = WHY_NOT is None or EXPECTED  # False: absent where nobody expects them, the checks are skipped
