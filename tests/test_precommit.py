"""The pre-commit hooks catch what they are for: a notebook with outputs, a lint error in a notebook.

The real hooks of .pre-commit-config.yaml run in a scratch git repository, on a copy of a committed
notebook. Skipped where pre-commit is not installed: it is a contributor's tool, not in
requirements-test.txt (CI installs it in .ci/run). The hooks' environment is built with pip on first use
(about half a minute on our machine) and reused from pre-commit's cache after that; CI has built it
already, in the step before the tests.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "01_vector_add.ipynb"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pre_commit") is None,
    reason="pre-commit is not installed (pip install pre-commit)",
)


def _environment() -> dict[str, str]:
    """This process's environment without git's per-repository variables (set inside a git hook) and
    without the user's git configuration, which nbstripout reads (filter.nbstripout.extrakeys)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return env


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A git repository holding the course's hook configuration, ruff settings, utils/ and one notebook."""
    for name in (".pre-commit-config.yaml", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copy(NOTEBOOK, tmp_path / "clean.ipynb")
    # ruff's import sorting counts `utils.check` as first-party only where utils/check.py exists.
    shutil.copytree(ROOT / "utils", tmp_path / "utils", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, env=_environment(), check=True)
    return tmp_path


def _run_hook(repo: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
    subprocess.run(["git", "add", "-A"], cwd=repo, env=_environment(), check=True)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", hook, "--files", *files],
        cwd=repo,
        env=_environment(),
        capture_output=True,
        text=True,
    )


def test_nbstripout_strips_outputs_and_leaves_committed_notebooks_alone(scratch):
    clean = (scratch / "clean.ipynb").read_text(encoding="utf-8")
    nb = nbformat.reads(clean, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    # What running and saving the notebook in Jupyter leaves behind: counts, outputs, timing metadata,
    # and a fuller language_info than the committed {"name": "python"}.
    nb.metadata.language_info.update(
        version="3.11.7",
        mimetype="text/x-python",
        file_extension=".py",
        codemirror_mode={"name": "ipython", "version": 3},
    )
    code[0].execution_count = 1
    code[0].outputs = [v4.new_output("stream", name="stdout", text="device: CPU | mode: interpreter\n")]
    code[0].metadata["execution"] = {"iopub.status.idle": "2026-12-01T10:00:00.000Z"}
    code[1].execution_count = 2
    code[1].outputs = [v4.new_output("execute_result", data={"text/plain": "42"}, execution_count=2)]
    nbformat.write(nb, str(scratch / "dirty.ipynb"))

    first = _run_hook(scratch, "nbstripout", "clean.ipynb", "dirty.ipynb")
    assert first.returncode == 1, f"the hook should fail on a notebook with outputs:\n{first.stdout}"
    assert "files were modified by this hook" in first.stdout
    # Stripping gives back the committed file byte for byte (cell ids kept), and the clean copy is untouched.
    assert (scratch / "dirty.ipynb").read_text(encoding="utf-8") == clean
    assert (scratch / "clean.ipynb").read_text(encoding="utf-8") == clean
    second = _run_hook(scratch, "nbstripout", "clean.ipynb", "dirty.ipynb")
    assert second.returncode == 0, second.stdout


def test_ruff_lints_notebook_cells(scratch):
    nb = nbformat.read(str(scratch / "clean.ipynb"), as_version=4)
    nb.cells.append(v4.new_code_cell("import json\n", id="lint-demo"))  # an unused import: F401
    nbformat.write(nb, str(scratch / "unused_import.ipynb"))
    assert _run_hook(scratch, "ruff", "clean.ipynb").returncode == 0
    result = _run_hook(scratch, "ruff", "unused_import.ipynb")
    assert result.returncode == 1 and "F401" in result.stdout, result.stdout


def test_hooks_leave_the_reference_run_alone(scratch):
    # reference/ keeps its outputs: they are what learners without a GPU read (utils/reference.py).
    nb = nbformat.read(str(scratch / "clean.ipynb"), as_version=4)
    first = next(cell for cell in nb.cells if cell.cell_type == "code")
    first.execution_count = 1
    first.outputs = [v4.new_output("stream", name="stdout", text="device: NVIDIA H200 (sm_90)\n")]
    (scratch / "reference" / "h200").mkdir(parents=True)
    executed = scratch / "reference" / "h200" / "01_vector_add.ipynb"
    nbformat.write(nb, str(executed))
    before = executed.read_text(encoding="utf-8")
    for hook in ("nbstripout", "ruff"):
        result = _run_hook(scratch, hook, "reference/h200/01_vector_add.ipynb")
        assert result.returncode == 0, f"{hook} touched reference/:\n{result.stdout}"
    assert executed.read_text(encoding="utf-8") == before
