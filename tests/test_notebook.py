"""notebooks/quickstart.ipynb runs top to bottom (nbclient), so it never rots."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import REPO_ROOT


@pytest.mark.slow
def test_quickstart_notebook_executes() -> None:
    notebook = nbformat.read(REPO_ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(REPO_ROOT)}}
    ).execute()
    outputs = "".join(
        str(output.get("text", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "passed 3/3" in outputs and "always_equal" in outputs and "completed 2 steps" in outputs
