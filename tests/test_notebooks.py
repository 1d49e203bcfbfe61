"""The notebooks' shared structure: set-up cell first, the template's sections, registered exercises."""

import re
from pathlib import Path

import nbformat
import pytest

from utils.exercises import EXERCISES
from utils.notebooks import learner_paths, solution_paths
from utils.setup import SETUP_CELL

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = learner_paths() + solution_paths()
SECTIONS = [
    "Mental model",
    "The kernel",
    "The host wrapper",
    "Diagrams",
    "Check",
    "Exercises",
    "Bandwidth",
    "Takeaways",
]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found in notebooks/ or solutions/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_first_code_cell_is_the_setup_cell(path):
    nb = nbformat.read(path, as_version=4)
    first_code = next(cell for cell in nb.cells if cell.cell_type == "code")
    assert first_code.source == SETUP_CELL, f"{_id(path)} must start with utils.setup.SETUP_CELL, verbatim"
    # Nothing may define a kernel before the set-up cell has chosen between GPU and interpreter.
    before = nb.cells[: nb.cells.index(first_code)]
    assert all(cell.cell_type == "markdown" for cell in before)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_sections_follow_the_template(path):
    nb = nbformat.read(path, as_version=4)
    headings = [
        line
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]
    positions = [next((i for i, h in enumerate(headings) if section in h), None) for section in SECTIONS]
    missing = [s for s, p in zip(SECTIONS, positions) if p is None]
    assert not missing, f"{_id(path)} lacks the sections {missing}"
    assert positions == sorted(positions), f"{_id(path)}: sections out of order: {headings}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_checked_exercises_are_registered(path):
    nb = nbformat.read(path, as_version=4)
    source = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    used = re.findall(r"""\bcheck\(\s*["'](\w+)["']""", source)
    assert used, f"{_id(path)} never calls check()"
    assert set(used) <= set(EXERCISES), f"unknown exercise ids in {_id(path)}: {set(used) - set(EXERCISES)}"
