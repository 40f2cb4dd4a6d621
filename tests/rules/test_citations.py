"""Every rule test names the sentence it checks: each quoted sentence must stand in its source.

A rule test's docstring starts with the source's number and quotes the sentence, e.g.
``001: 'Only an actual heart breaks hearts' ...``. This test finds every such quote in the rule
tests and checks it against the rule sources, so a paraphrase or a wrong source number fails.
Quotes joined by ``...`` are checked part by part.

Where the sources are, and what their absence does, is ``tests/rule_sources.py``'s.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from rule_sources import CHECKED, EXPECTED, SOURCES, WHY_NOT

HERE = Path(__file__).resolve().parent
# Rule tests outside tests/rules: a rule played through the record's whole life (store, export, replay).
ELSEWHERE = [HERE.parent / "ladder" / f"test_{name}.py" for name in ("tricks_as_played", "cancellation_records")]
# A source number, then one or more quoted passages; a later "(004: '...')" names another source.
QUOTE = re.compile(r"\b(00[0-4]):?\s*[‘']((?:[^']|'(?=[a-zA-Z]))+?)['’](?=[\s,.;:)—–-]|$)")


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").replace("“", '"').replace("”", '"').split()).lower()


def _cited() -> list[tuple[str, str, str]]:
    out = []
    for path in [*sorted(HERE.glob("test_*.py")), *ELSEWHERE]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = ast.get_docstring(node) or ""
                for source, quote in QUOTE.findall(doc):
                    out.append((f"{path.name}::{node.name}", source, quote))
    return out


CITED = _cited()


def test_rule_tests_cite_their_sentences() -> None:
    tests = {t for t, _, _ in CITED}
    assert len(tests) >= 100, f"only {len(tests)} rule tests quote a source sentence"


def test_the_rule_sources_are_here_where_expected() -> None:
    """One test, not one per quote, stands for the sources' absence."""
    if WHY_NOT is not None and not EXPECTED:
        pytest.skip(WHY_NOT)
    assert WHY_NOT is None, WHY_NOT


QUOTES = CITED if CHECKED else []  # absent and not expected: one empty set, one skip


@pytest.mark.parametrize(("test", "source", "quote"), QUOTES, ids=[f"{t}:{s}" for t, s, _ in QUOTES])
def test_quoted_sentence_stands_in_its_source(test: str, source: str, quote: str) -> None:
    files = list(SOURCES.glob(f"{source}_*.txt"))
    assert files, f"{test}: no rule source {source}_*.txt in {SOURCES}"
    text = _norm(files[0].read_text())
    for part in re.split(r"\s*(?:\.\.\.|…)\s*", quote):
        part = _norm(part).strip(" .")
        if len(part) >= 8:
            assert part in text, f"{test} quotes {source}: {part!r}, which is not in {files[0].name}"
