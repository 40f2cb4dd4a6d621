"""The compiled engine's staleness guard (referee/rules/_loader.py): edited source is never ignored.

The engine may run compiled by mypyc (``make engine``) or from its .py files. A build is used only
while the SHA-256 of every engine source matches the manifest it was built with; otherwise the
sources run (loaded by path, so even a stray extension module beside them is ignored) and a
warning names the rebuild command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import referee.rules
from referee.rules import _loader

ENGINE_DIR = Path(referee.rules.__file__).resolve().parent
BUILD = ENGINE_DIR / _loader.BUILD_DIR


def test_the_engine_in_use_is_the_one_expected():
    """``make test`` sets HEARTS_EXPECT_ENGINE to what it built: a build that is not used fails here."""
    expected = os.environ.get("HEARTS_EXPECT_ENGINE")
    if not expected:
        pytest.skip("HEARTS_EXPECT_ENGINE not set (make test sets it)")
    assert referee.rules.ENGINE == expected, referee.rules.ENGINE_REASON


def test_the_engine_says_what_it_is():
    assert referee.rules.ENGINE in ("compiled", "pure")
    compiled = referee.rules.ENGINE == "compiled"
    assert referee.rules.cards.COMPILED is compiled
    for module in (referee.rules.cards, referee.rules.state):
        assert module.__file__.endswith(_loader.extension_suffix() if compiled else ".py")
    assert referee.rules.options.__file__.endswith(".py")  # never compiled
    if os.environ.get(_loader.PURE_ENV, "") not in ("", "0"):
        assert not compiled


# -- the guard's decision, on a copy of the sources with a fake build: runs whatever the engine ---


def _fake_build(folder: Path) -> None:
    for name in _loader.SOURCES:
        shutil.copy(ENGINE_DIR / name, folder / name)
    build = folder / _loader.BUILD_DIR
    build.mkdir()
    modules = {}
    for short in ("cards", "state"):
        file = f"{short}{_loader.extension_suffix()}"
        (build / file).write_bytes(b"not really compiled")
        modules[f"referee.rules.{short}"] = file
    manifest = {
        "extension_suffix": _loader.extension_suffix(),
        "sources": _loader.source_digests(folder),
        "modules": modules,
    }
    (build / _loader.MANIFEST).write_text(json.dumps(manifest))


def test_a_build_matching_the_sources_is_accepted(tmp_path):
    _fake_build(tmp_path)
    files, why = _loader.check_build(tmp_path)
    assert files is not None and set(files) == {"referee.rules.cards", "referee.rules.state"}, why


@pytest.mark.parametrize("name", _loader.SOURCES)
def test_an_edited_source_voids_the_build(tmp_path, name):
    _fake_build(tmp_path)
    with open(tmp_path / name, "a") as f:
        f.write("\n# an edit\n")
    files, why = _loader.check_build(tmp_path)
    assert files is None and f"{name} changed" in why


def test_a_missing_incomplete_or_foreign_build_is_refused(tmp_path):
    for name in _loader.SOURCES:
        shutil.copy(ENGINE_DIR / name, tmp_path / name)
    assert _loader.check_build(tmp_path) == (None, "no compiled build")
    _fake_build(tmp_path)
    manifest_path = tmp_path / _loader.BUILD_DIR / _loader.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    (tmp_path / _loader.BUILD_DIR / manifest["modules"]["referee.rules.state"]).unlink()
    files, why = _loader.check_build(tmp_path)
    assert files is None and "incomplete" in why
    manifest["extension_suffix"] = ".cpython-39-x86_64-linux-gnu.so"
    manifest_path.write_text(json.dumps(manifest))
    files, why = _loader.check_build(tmp_path)
    assert files is None and "another Python" in why
    manifest_path.write_text("{not json")
    files, why = _loader.check_build(tmp_path)
    assert files is None and "unreadable" in why


# -- end to end, on a copy of the package with the real build (needs `make engine`) -------------


def _copy_package(tmp_path: Path) -> Path:
    if not (BUILD / _loader.MANIFEST).is_file():
        pytest.skip("no compiled build (make engine)")
    if _loader.check_build(ENGINE_DIR)[0] is None:  # make test rebuilds first; a bare pytest may not have
        pytest.skip("the compiled build is older than the sources (make engine)")
    (tmp_path / "referee").mkdir()
    (tmp_path / "referee" / "__init__.py").write_text("")
    dest = tmp_path / "referee" / "rules"
    shutil.copytree(ENGINE_DIR, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _import_in(root: Path, **env: str) -> tuple[list[str], str]:
    """Import the copy in a fresh interpreter: (engine, state module's file, EDITED marker, behaviour), stderr."""
    code = (
        "import referee.rules as r, referee.rules.state as s; "
        "m = r.Match(r.Rules(), 7); "
        "print(r.ENGINE, s.__file__, getattr(s, 'EDITED', '-'), m.phase.value, sep='|')"
    )
    environ = {k: v for k, v in os.environ.items() if k not in (_loader.PURE_ENV, "PYTHONPATH")}
    environ.update(env)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=environ, capture_output=True, text=True, check=True
    )
    return out.stdout.strip().split("|"), out.stderr


def test_an_edited_source_runs_instead_of_the_compiled_build(tmp_path):
    dest = _copy_package(tmp_path)
    (engine, file, edited, phase), err = _import_in(tmp_path)
    assert engine == "compiled" and file.startswith(str(dest / _loader.BUILD_DIR)) and phase == "pass", err
    assert err == ""
    # Edit the copy's state.py: a marker, and a behaviour change (a new match starts in the play phase).
    source = (dest / "state.py").read_text()
    edit = source.replace(
        "if self.phase is Phase.PLAY:\n            self._after_pass()",
        "self.phase = Phase.PLAY\n        if self.phase is Phase.PLAY:\n            self._after_pass()",
    )
    assert edit != source
    (dest / "state.py").write_text(edit + "\nEDITED = 'yes'\n")
    (engine, file, edited, phase), err = _import_in(tmp_path)
    assert engine == "pure" and file == str(dest / "state.py") and edited == "yes"
    assert "state.py changed since the build" in err and _loader.REBUILD in err
    assert len(err.strip().splitlines()) <= 2  # one warning (its message, and the line it points at)


def test_a_stray_extension_beside_the_sources_is_never_used(tmp_path):
    """A compiled ``state.*.so`` beside an edited ``state.py`` would win the normal import: it must not."""
    dest = _copy_package(tmp_path)
    manifest = json.loads((dest / _loader.BUILD_DIR / _loader.MANIFEST).read_text())
    for _name, file in manifest["modules"].items():  # a manual in-place mypyc build, then an edit
        shutil.copy(dest / _loader.BUILD_DIR / file, dest / file)
    shutil.rmtree(dest / _loader.BUILD_DIR)
    with open(dest / "state.py", "a") as f:
        f.write("\nEDITED = 'yes'\n")
    (engine, file, edited, _), err = _import_in(tmp_path)
    assert engine == "pure" and file == str(dest / "state.py") and edited == "yes"
    assert "stray compiled files" in err


def test_hearts_pure_python_forces_the_source_quietly(tmp_path):
    dest = _copy_package(tmp_path)
    (engine, file, edited, _), err = _import_in(tmp_path, **{_loader.PURE_ENV: "1"})
    assert engine == "pure" and file == str(dest / "state.py") and edited == "-"
    assert err == ""


# -- what native classes change, compiled: pickling and copying work the same either way ---------


def _mid_hand(seed: int = 7) -> referee.rules.Match:
    m = referee.rules.Match(referee.rules.Rules(), seed)
    for s in m.to_move:
        m.pass_cards(s, referee.rules.cards_of(m.hand.hands[s])[:3])
    for _ in range(6):
        m.play(m.legal_plays().cards[-1])
    return m


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy", "clone"])
def test_a_match_pickles_and_copies_and_plays_on_the_same(how):
    import copy
    import pickle

    m = _mid_hand()
    c = {
        "pickle": lambda x: pickle.loads(pickle.dumps(x)),
        "copy": copy.copy,
        "deepcopy": copy.deepcopy,
        "clone": lambda x: x.clone(),
    }[how](m)
    assert type(c) is type(m) and type(c.hand) is type(m.hand) and c.history == m.history
    if how == "copy":
        return  # shallow: it shares the lists of the original, so it cannot play on independently
    while not m.over:  # the same decisions give the same match
        for x in (m, c):
            if x.phase is referee.rules.Phase.PLAY:
                x.play(x.legal_plays().cards[0])
            elif x.phase is referee.rules.Phase.PASS:
                for s in x.to_move:
                    x.pass_cards(s, referee.rules.cards_of(x.hand.hands[s])[:3])
            else:
                x.choose_moon(x.turn, "add-to-others")
        assert c.history == m.history and c.scores == m.scores
    assert c.results == m.results and c.winners == m.winners


def test_seeded_random_and_card_sets_pickle_and_copy():
    import copy
    import pickle

    r = referee.rules.SeededRandom(5, "x")
    r.next64()
    twins = (copy.copy(r), copy.deepcopy(r), pickle.loads(pickle.dumps(r)))
    expected = [r.next64() for _ in range(3)]
    for twin in twins:
        assert type(twin) is type(r) and [twin.next64() for _ in range(3)] == expected
    cs = referee.rules.CardSet(referee.rules.parse_cards("QS 2C 10H"))
    for twin in (copy.copy(cs), copy.deepcopy(cs), pickle.loads(pickle.dumps(cs))):
        assert twin == cs and twin.cards == cs.cards and hash(twin) == hash(cs) and repr(twin) == repr(cs)


def test_the_compiled_engine_still_loads_options_from_source_beside_a_stray_extension(tmp_path):
    """options.py is never compiled: a stray ``options.*.so`` (here not even a valid one) is never loaded."""
    dest = _copy_package(tmp_path)
    (dest / f"options{_loader.extension_suffix()}").write_bytes(b"not an extension module")
    (engine, file, edited, phase), err = _import_in(tmp_path)
    assert engine == "compiled" and phase == "pass" and err == ""


def test_no_build_at_all_runs_pure_python_quietly(tmp_path):
    """A plain install without a compiler has no build: pure Python, and no warning in every process."""
    dest = _copy_package(tmp_path)
    shutil.rmtree(dest / _loader.BUILD_DIR)
    (engine, file, edited, _), err = _import_in(tmp_path)
    assert engine == "pure" and file == str(dest / "state.py") and edited == "-"
    assert err == ""
