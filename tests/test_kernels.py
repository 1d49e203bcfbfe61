"""utils.kernels.load: a notebook's exported cells as a module; nothing guessed, nothing left behind."""

import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from utils import kernels
from utils.kernels import ExportError, exported_source, load


def test_a_notebook_loads_with_its_exported_kernels_and_launchers():
    module = load("01_vector_add")
    assert callable(module.copy) and hasattr(module.copy_kernel, "run")
    assert module.BLOCK_SIZE == 1024


def test_only_exported_cells_are_loaded():
    source = exported_source("01_vector_add")
    assert "def copy(" in source
    assert "copied {x.numel()" not in source, "the demo run after the wrapper is not exported"


def test_loading_writes_no_files(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    load("05_row_sum")
    assert not list(tmp_path.iterdir())


def _notebook(tmp_path: Path, *sources: str) -> str:
    (tmp_path / "solutions").mkdir()
    cells = [v4.new_code_cell("# set-up")]
    for i, source in enumerate(sources):
        cell = v4.new_code_cell(source, metadata={"tags": ["export"]})
        cell.id = f"cell-{i}"
        cells.append(cell)
    nbformat.write(v4.new_notebook(cells=cells), tmp_path / "solutions" / "99_probe.ipynb")
    return "99_probe"


def test_a_name_no_exported_cell_defines_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(kernels, "solution", lambda name: tmp_path / "solutions" / f"{name}.ipynb")
    name = _notebook(
        tmp_path,
        "def best(x, out):\n    return fast(x, out) if split_works else None\n\n"
        "def fast(x, out):\n    return x\n",
    )
    with pytest.raises(ExportError, match=r"split_works \(read by best\)"):
        load(name)


def test_an_exported_cell_that_runs_code_reading_another_cell_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(kernels, "solution", lambda name: tmp_path / "solutions" / f"{name}.ipynb")
    name = _notebook(tmp_path, "total = sum(values)\n")
    with pytest.raises(ExportError, match="values"):
        load(name)


def test_a_notebook_without_exports_says_how_to_add_them(tmp_path, monkeypatch):
    monkeypatch.setattr(kernels, "solution", lambda name: tmp_path / "solutions" / f"{name}.ipynb")
    name = _notebook(tmp_path)
    with pytest.raises(ExportError, match="tag the cells"):
        load(name)


def test_an_unknown_notebook_is_named():
    with pytest.raises(ValueError, match="solutions/99_nothing.ipynb"):
        load("99_nothing")


def test_a_function_is_found_in_the_notebook_that_exports_it():
    from utils.kernels import exporting_notebook

    assert exporting_notebook("row_sum_best") == "05_row_sum"
    with pytest.raises(ExportError, match="in no notebook"):
        exporting_notebook("no_such_function")
