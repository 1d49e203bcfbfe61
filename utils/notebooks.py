"""Where the course's notebooks are, and what their code cells define: one answer for every tool.

The release tool, the kernel loader, the reference run and the tests all ask the same questions (which
notebooks are there, which functions are `@triton.jit` kernels, which cells a notebook exports); they
ask them here, so that a new notebook or a new way of writing a decorator is handled once.
"""

from __future__ import annotations

import ast
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_GLOB = "[0-9][0-9]_*.ipynb"  # 01_vector_add.ipynb, ...
EXPORT_TAG = "export"  # a solution notebook's cell with this tag is part of its importable module


def solution_paths(root: Path = ROOT) -> list[Path]:
    """Every `solutions/NN_*.ipynb` under `root`, sorted: the source notebooks."""
    return sorted((root / "solutions").glob(NOTEBOOK_GLOB))


def learner_paths(root: Path = ROOT) -> list[Path]:
    """Every `notebooks/NN_*.ipynb` under `root`, sorted: what learners open (generated)."""
    return sorted((root / "notebooks").glob(NOTEBOOK_GLOB))


def solution(name: str, root: Path = ROOT) -> Path:
    """The solution notebook `name` ("05_row_sum" or "05_row_sum.ipynb"); a missing one is named."""
    path = root / "solutions" / (name if name.endswith(".ipynb") else f"{name}.ipynb")
    if not path.is_file():
        raise ValueError(f"no notebook solutions/{path.name}")
    return path


def dotted_name(node: ast.expr) -> str:
    """`triton.jit` for the expression triton.jit; "" for anything that is not a dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    return ""


def is_triton_jit(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True for `@triton.jit`, `@jit` and `@triton.jit(...)`, also below other decorators."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted_name(target) in ("triton.jit", "jit"):
            return True
    return False


def jit_helpers(sources: dict[str, str]) -> set[str]:
    """Which of some @triton.jit functions (name -> source, decorator included) are helpers, not kernels:
    those that return a value, and those another of them names, by calling it (`leave_barrier(...)`) or by
    passing it (`tl.reduce(x, 0, combine)`). No launch can run a helper; a kernel reaches it as itself.
    One rule for the compile test (utils.kernels, which compiles kernels alone) and for
    utils.launch.with_launchers (which wraps kernels in Launchers, and must leave helpers as they are)."""
    helpers, named = set(), set()
    for name, source in sources.items():
        function = ast.parse(textwrap.dedent(source)).body[0]
        if any(isinstance(node, ast.Return) and node.value is not None for node in ast.walk(function)):
            helpers.add(name)
        named |= {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
    return helpers | (named & sources.keys())


@dataclass(frozen=True)
class CodeCell:
    id: str
    source: str
    tags: tuple[str, ...]


def code_cells(path: Path) -> list[CodeCell]:
    """The notebook's code cells, in order. Read as JSON: nbformat's import (its schema validator) takes
    over a second, which notebook 06 would pay in a cell that loads notebook 04's kernels."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        CodeCell(  # nbformat stores a cell's source as one string or as a list of lines
            cell.get("id", ""), "".join(cell["source"]), tuple(cell.get("metadata", {}).get("tags", ()))
        )
        for cell in cells
        if cell["cell_type"] == "code"
    ]


def is_exported(cell: CodeCell) -> bool:
    return EXPORT_TAG in cell.tags
