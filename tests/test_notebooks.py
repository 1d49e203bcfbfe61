"""The notebooks' shared structure: set-up cell first, the template's sections, registered exercises."""

import ast
import re
from pathlib import Path

import nbformat
import pytest

from utils.checker.families import EXERCISES
from utils.checker.keys import KEY_EXERCISES
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
    known = set(EXERCISES) | set(KEY_EXERCISES)
    assert set(used) <= known, f"unknown exercise ids in {_id(path)}: {set(used) - known}"


def _module_scope_names(tree: ast.AST) -> tuple[set[str], list[tuple[str, int]]]:
    """The names a cell imports, and the names it assigns (with their lines), at the notebook's top level:
    not inside a function, class, lambda or comprehension, whose names are their own."""
    imported: set[str] = set()
    assigned: list[tuple[str, int]] = []
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp)
    nested += (ast.DictComp, ast.GeneratorExp)
    stack = list(ast.iter_child_nodes(tree))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned.append((node.id, node.lineno))
        if not isinstance(node, nested):
            stack.extend(ast.iter_child_nodes(node))
    return imported, assigned


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_no_cell_rebinds_an_imported_name(path):
    """A top-level `check = ...` in a GPU-only cell silently replaces utils.check.check for every cell
    below it, and the exercise cells then fail on a GPU only (03 did this once)."""
    nb = nbformat.read(path, as_version=4)
    imported: set[str] = set()
    clashes = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        source = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))  # magics
        names, assigned = _module_scope_names(ast.parse(source))
        clashes += [f"cell {index}, line {line}: {name}" for name, line in assigned if name in imported]
        imported |= names
    assert not clashes, f"{_id(path)} assigns names that an earlier cell imported: {clashes}"
