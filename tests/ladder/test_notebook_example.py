"""docs/examples/notebook.ipynb runs as written, in a real Jupyter kernel (nbclient and ipykernel): every
cell without an error, its record drawn as HTML (the results table and the replay viewer) and its ladder
as the ladder's table, with the bots' names."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # a kernel process

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "examples" / "notebook.ipynb"
NAMES = ("ducker", "random", "heuristic", "lowest")
KERNEL = "hearts-arena-test"


def _tagged(nb: Any, tag: str) -> Any:
    (cell,) = [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]
    return cell


def _html(cell: Any) -> str:
    found = [o["data"]["text/html"] for o in cell.outputs if o.get("output_type") == "execute_result"]
    assert len(found) == 1, f"one HTML result in the cell tagged {cell.metadata.tags}: {cell.outputs}"
    return str(found[0])


def test_the_example_notebook_runs_and_shows_its_record_and_ladder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kernel's files (its connection file, IPython's profile) in the test's folder, not the home's, and
    # a kernel of this very interpreter (a "python3" kernel installed elsewhere may be another Python's).
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "the notebook is kept without outputs"
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name=KERNEL, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # CellExecutionError for a cell that raises
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.get("output_type") == "error"], cell.source
            assert not [o for o in cell.outputs if o.get("name") == "stderr"], cell.outputs

    record = _html(_tagged(nb, "record"))
    assert '<table class="hearts-match">' in record and "rules <code>spot</code> · seed 7" in record
    assert re.findall(r'<td class="bot">([^<]*)</td>', record) == list(NAMES)
    (srcdoc,) = re.findall(r'<iframe class="hearts-replay"[^>]* srcdoc="([^"]*)"', record)
    viewer = html.unescape(srcdoc)
    assert 'id="replay-data"' in viewer and all(f'<span class="bot">{n}</span>' in viewer for n in NAMES)

    seats = _tagged(nb, "seats").outputs[0]["data"]["text/plain"]
    assert all(repr(n) in seats for n in NAMES)

    ladder = _html(_tagged(nb, "ladder"))
    assert '<table class="hearts-ladder">' in ladder and "Ladder: 8 matches, rules spot" in ladder
    assert sorted(re.findall(r'<tr data-bot="([^"]*)">', ladder)) == sorted(NAMES)
