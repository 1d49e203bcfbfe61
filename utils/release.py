"""Generate the learner notebooks in notebooks/ from the single-source notebooks in solutions/.

Each ``solutions/NN_topic.ipynb`` is a complete notebook whose exercise answers sit, inside code
cells, between a whole line ``### BEGIN SOLUTION`` and a whole line ``### END SOLUTION`` (markers may
be indented). ``python -m utils.release`` writes ``notebooks/NN_topic.ipynb`` with each marked region
replaced by ``# YOUR CODE HERE`` plus ``pass`` inside a ``@triton.jit`` kernel (a stub that still
compiles) or ``raise NotImplementedError("exercise: <function>")`` inside any other function, with
outputs and execution counts cleared and everything else unchanged; ``--check`` writes nothing and
lists the notebooks that are out of date. A region outside a function, or unbalanced markers, is an
error naming the notebook, the cell and the line. Before the learner notebooks, it writes the course's
address from its one setting into the set-up cells, the badges and the workshop guide (utils.home).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from utils import home
from utils.notebooks import NOTEBOOK_GLOB, is_triton_jit, solution_paths

BEGIN_MARKER = "### BEGIN SOLUTION"
END_MARKER = "### END SOLUTION"
STUB_COMMENT = "# YOUR CODE HERE"
REPO_ROOT = Path(__file__).resolve().parent.parent
SOLUTION_GLOB = NOTEBOOK_GLOB
NBFORMAT_VERSION = 4

# Lines that look like a marker but are not exactly one (wrong case, '##', no space...): a typo here
# would silently ship the answer, so they are errors rather than ordinary comments.
_MARKER_LIKE = re.compile(r"^\s*#+\s*(BEGIN|END)[\s_]*SOLUTION\b", re.IGNORECASE)
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


class ReleaseError(Exception):
    """A solution notebook whose markers cannot be turned into learner stubs."""


@dataclass(frozen=True)
class _Region:
    begin: int  # 0-based index of the BEGIN marker line in the cell
    end: int  # 0-based index of the END marker line in the cell
    indent: str  # leading whitespace of the BEGIN marker; the stub is written at this indentation


def _where(cell_index: int, line_index: int | None = None) -> str:
    if line_index is None:
        return f"cell {cell_index}"
    return f"cell {cell_index}, line {line_index + 1}"


def _find_regions(lines: list[str], cell_index: int) -> list[_Region]:
    """The marked regions of one cell, in order; rejects unbalanced, nested or misspelt markers."""
    regions = []
    open_begin: int | None = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped == BEGIN_MARKER:
            if open_begin is not None:
                raise ReleaseError(
                    f"{_where(cell_index, i)}: nested {BEGIN_MARKER!r} (the region opened at line "
                    f"{open_begin + 1} has no {END_MARKER!r} yet)"
                )
            open_begin = i
        elif stripped == END_MARKER:
            if open_begin is None:
                raise ReleaseError(f"{_where(cell_index, i)}: {END_MARKER!r} without {BEGIN_MARKER!r}")
            begin_line = lines[open_begin]
            indent = begin_line[: len(begin_line) - len(begin_line.lstrip())]
            regions.append(_Region(open_begin, i, indent))
            open_begin = None
        elif _MARKER_LIKE.match(line):
            raise ReleaseError(
                f"{_where(cell_index, i)}: {stripped!r} looks like a solution marker but is not exactly "
                f"{BEGIN_MARKER!r} or {END_MARKER!r}"
            )
    if open_begin is not None:
        raise ReleaseError(f"{_where(cell_index, open_begin)}: {BEGIN_MARKER!r} without {END_MARKER!r}")
    return regions


def _mask_magics(lines: list[str]) -> list[str]:
    """Replace IPython magic and shell lines (``%...``, ``!...``) by ``pass`` so ``ast`` can parse the cell.

    Line numbers are preserved, so positions found in the masked text are positions in the cell.
    """
    masked = []
    for line in lines:
        body = line.lstrip()
        if body.startswith(("%", "!")):
            masked.append(line[: len(line) - len(body)] + "pass")
        else:
            masked.append(line)
    return masked


def _parse_cell(lines: list[str]) -> ast.Module:
    """Parse a code cell as Python; magics are masked only if the plain text does not parse.

    Trying the plain text first keeps continuation lines such as ``    % value`` intact.
    """
    source = "\n".join(lines)
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.parse("\n".join(_mask_magics(lines)))


def _statements(tree: ast.Module):
    """Yield ``(statement, enclosing functions outermost first)`` for every statement of ``tree``."""

    def visit(node: ast.AST, functions: tuple[_Function, ...]):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield child, functions
            inner = functions + (child,) if isinstance(child, _FUNCTION_NODES) else functions
            yield from visit(child, inner)

    yield from visit(tree, ())


def _sentinel(index: int) -> str:
    return f"__release_region_{index}__"


def _stub_cell_source(source: str, cell_index: int) -> str:
    """The learner's version of one code cell's source (unchanged when it has no marked region)."""
    lines = source.split("\n")
    regions = _find_regions(lines, cell_index)
    if not regions:
        return source

    try:
        original_tree = _parse_cell(lines)
    except SyntaxError as error:
        raise ReleaseError(
            f"{_where(cell_index, (error.lineno or 1) - 1)}: the cell does not parse as Python "
            f"({error.msg}), so its solution regions cannot be placed"
        ) from None

    # Replace each region by one sentinel statement at the marker's indentation and let Python's own
    # parser say which function (if any) that statement belongs to.
    sentinel_lines: list[str] = []
    origin: list[int] = []  # for each sentinel line, the cell line it comes from
    position = 0
    for k, region in enumerate(regions):
        sentinel_lines += lines[position : region.begin]
        origin += range(position, region.begin)
        sentinel_lines.append(region.indent + _sentinel(k))
        origin.append(region.begin)
        position = region.end + 1
    sentinel_lines += lines[position:]
    origin += range(position, len(lines))
    try:
        sentinel_tree = _parse_cell(sentinel_lines)
    except SyntaxError as error:
        line = origin[min(max((error.lineno or 1) - 1, 0), len(origin) - 1)]
        raise ReleaseError(
            f"{_where(cell_index, line)}: the cell does not parse once its solution regions are "
            f"replaced by stubs ({error.msg}); does a region start or end in the middle of a statement?"
        ) from None

    sentinel_ids = {_sentinel(k): k for k in range(len(regions))}
    region_function: dict[int, _Function] = {}
    for statement, functions in _statements(sentinel_tree):
        value = getattr(statement, "value", None)
        is_sentinel = (
            isinstance(statement, ast.Expr) and isinstance(value, ast.Name) and value.id in sentinel_ids
        )
        if is_sentinel and functions and isinstance(value, ast.Name):
            region_function[sentinel_ids[value.id]] = functions[-1]
    original_statements = list(_statements(original_tree))

    stubbed: list[str] = []
    position = 0
    for k, region in enumerate(regions):
        function = region_function.get(k)
        if function is None:
            raise ReleaseError(
                f"{_where(cell_index, region.begin)}: solution region is not inside a function body; "
                "only function bodies can be stubbed (move the answer into a function)"
            )
        # Every statement of the answer must lie in that same function (no dedented lines, say).
        def_line = origin[function.lineno - 1] + 1  # the def's line number in the original cell
        for statement, functions in original_statements:
            inside_region = region.begin + 1 < statement.lineno <= region.end
            if inside_region and def_line not in [f.lineno for f in functions]:
                raise ReleaseError(
                    f"{_where(cell_index, statement.lineno - 1)}: this line of the solution region is "
                    f"outside the body of {function.name!r}, where the region starts"
                )
        stubbed += lines[position : region.begin]
        stubbed.append(region.indent + STUB_COMMENT)
        if is_triton_jit(function):
            stubbed.append(region.indent + "pass")
        else:
            stubbed.append(region.indent + f'raise NotImplementedError("exercise: {function.name}")')
        position = region.end + 1
    stubbed += lines[position:]
    return "\n".join(stubbed)


def release_notebook(nb: nbformat.NotebookNode, name: str = "<notebook>") -> nbformat.NotebookNode:
    """The learner notebook for solution notebook ``nb``: stubs for the answers, no outputs.

    ``nb`` is not modified. Cell ids, cell metadata and notebook metadata are copied unchanged.
    Raises ReleaseError (message starting with ``name``) if a cell's markers cannot be stubbed.
    """
    learner = copy.deepcopy(nb)
    for index, cell in enumerate(learner.cells):
        if cell.cell_type != "code":
            continue
        try:
            cell.source = _stub_cell_source(cell.source, index)
        except ReleaseError as error:
            raise ReleaseError(f"{name}: {error}") from None
        cell.outputs = []
        cell.execution_count = None
    return learner


def notebook_text(nb: nbformat.NotebookNode) -> str:
    """Exactly the text ``nbformat.write(nb, path)`` puts in the file (it adds a final newline)."""
    text = nbformat.writes(nb, version=NBFORMAT_VERSION)
    return text if text.endswith("\n") else text + "\n"


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def read_solution(path: Path, root: Path = REPO_ROOT) -> nbformat.NotebookNode:
    """Read a solution notebook, refusing cells without ids (nbformat would invent random ones)."""
    text = path.read_text(encoding="utf-8")
    raw = json.loads(text)
    if raw.get("nbformat", 0) >= 4 and raw.get("nbformat_minor", 0) >= 5:
        missing = [str(i) for i, cell in enumerate(raw.get("cells", [])) if "id" not in cell]
        if missing:
            raise ReleaseError(
                f"{_display(path, root)}: cells {', '.join(missing)} have no id, so the learner notebook "
                "would get random ones; open and save it in Jupyter (or run nbformat.validator.normalize)"
            )
    return nbformat.reads(text, as_version=NBFORMAT_VERSION)


def learner_notebooks(
    root: Path = REPO_ROOT, solutions: list[Path] | None = None
) -> dict[Path, nbformat.NotebookNode]:
    """Map each learner notebook path to its notebook, for all (or the given) solution notebooks.

    Raises ReleaseError listing every solution notebook whose markers are invalid.
    """
    solutions = solution_paths(root) if solutions is None else solutions
    learners: dict[Path, nbformat.NotebookNode] = {}
    errors: list[str] = []
    for solution in solutions:
        try:
            learner = release_notebook(read_solution(solution, root), name=_display(solution, root))
        except ReleaseError as error:
            errors.append(str(error))
            continue
        learners[root / "notebooks" / solution.name] = learner
    if errors:
        raise ReleaseError("\n".join(errors))
    return learners


def expected_outputs(root: Path = REPO_ROOT, solutions: list[Path] | None = None) -> dict[Path, str]:
    """Map each learner notebook path to the exact file text the tool writes there."""
    return {path: notebook_text(nb) for path, nb in learner_notebooks(root, solutions).items()}


def stale_notebooks(root: Path = REPO_ROOT, solutions: list[Path] | None = None) -> list[str]:
    """What ``--check`` reports: learner notebooks that are missing, differ, or have no solution source.

    Notebooks without a source are looked for only when checking all solutions (``solutions`` is None).
    """
    problems = []
    expected = expected_outputs(root, solutions)
    for path, text in expected.items():
        shown = _display(path, root)
        if not path.exists():
            problems.append(f"{shown}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{shown}: differs from what solutions/{path.name} produces")
    if solutions is None:
        for path in sorted((root / "notebooks").glob("*.ipynb")):
            if path not in expected:
                problems.append(f"{_display(path, root)}: no solution source solutions/{path.name}")
    return problems


def _solution_arguments(paths: list[str], root: Path) -> list[Path]:
    solutions_dir = (root / "solutions").resolve()
    chosen = []
    for argument in paths:
        path = Path(argument)
        if path.resolve().parent != solutions_dir or not path.match(SOLUTION_GLOB):
            raise ReleaseError(f"{argument}: not a solution notebook solutions/{SOLUTION_GLOB} under {root}")
        if not path.is_file():
            raise ReleaseError(f"{argument}: no such file")
        chosen.append(path.resolve())
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Command line: write learner notebooks, or with --check report the stale ones. Returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m utils.release",
        description="Write notebooks/NN_topic.ipynb from solutions/NN_topic.ipynb, stubbing the regions "
        f"between {BEGIN_MARKER!r} and {END_MARKER!r}.",
    )
    parser.add_argument(
        "solutions", nargs="*", metavar="SOLUTION", help="solution notebooks to release (default: all)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing notebooks that are missing, out of date or without a source",
    )
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="repository root (default: %(default)s)")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()

    try:
        chosen = _solution_arguments(args.solutions, root) if args.solutions else None
        if args.check:
            problems = [
                f"{_display(path, root)}: the course's address differs from utils.setup's"
                for path in home.stale(root)
            ]
            problems += stale_notebooks(root, chosen)
            for problem in problems:
                print(problem)
            if problems:
                print("run: python -m utils.release", file=sys.stderr)
                return 1
            return 0
        # The course's address first (utils.home): it rewrites the solutions' set-up cells, from which the
        # learner notebooks are made.
        for path, text in home.rewritten(root).items():
            if path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {_display(path, root)} (the course's address, from utils.setup)")
        learners = learner_notebooks(root, chosen)
    except ReleaseError as error:
        print(f"release: error: {error}", file=sys.stderr)
        return 2

    # Everything is computed before anything is written, so an error above leaves notebooks/ untouched.
    for path, nb in learners.items():
        if path.exists() and path.read_text(encoding="utf-8") == notebook_text(nb):
            continue  # leave up-to-date files (and their timestamps) alone
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path), version=NBFORMAT_VERSION)
        print(f"wrote {_display(path, root)}")
    if chosen is None:
        for path in sorted((root / "notebooks").glob("*.ipynb")):
            if path not in learners:
                print(f"warning: {_display(path, root)} has no solution source", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
