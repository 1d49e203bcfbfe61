"""Generate the learner notebooks in notebooks/ from the single-source notebooks in solutions/.

Each ``solutions/NN_topic.ipynb`` is a complete notebook whose exercise answers sit, inside code
cells, between a whole line ``### BEGIN SOLUTION`` and a whole line ``### END SOLUTION`` (markers may
be indented). ``python -m utils.release`` writes ``notebooks/NN_topic.ipynb`` with each marked region
replaced by ``# YOUR CODE HERE`` plus ``pass`` inside a ``@triton.jit`` kernel (a stub that still
compiles) or ``raise NotImplementedError("exercise: <function>")`` inside any other function, with
outputs and execution counts cleared and everything else unchanged; ``--check`` writes nothing and
lists the notebooks that are out of date. A region outside a function, or unbalanced markers, is an
error naming the notebook, the cell and the line (utils.stubs makes the stubs). Before the learner
notebooks, it writes the course's address from its one setting into the set-up cells, the badges and
the workshop guide (utils.home).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

import nbformat

from utils import home
from utils.notebooks import NOTEBOOK_GLOB, code_cells, is_exported, solution_paths
from utils.stubs import BEGIN_MARKER, END_MARKER, ReleaseError, stub_cell_source

REPO_ROOT = Path(__file__).resolve().parent.parent
SOLUTION_GLOB = NOTEBOOK_GLOB
NBFORMAT_VERSION = 4


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
            cell.source = stub_cell_source(cell.source, index)
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


def exported_modules(root: Path = REPO_ROOT, solutions: list[Path] | None = None) -> dict[Path, str]:
    """utils/exported/nbNN_topic.py for each solution notebook with cells tagged `export`: the module that
    utils.kernels.load loads (utils.kernels.exported_source), and its text."""
    from utils.kernels import exported_source

    modules = {}
    for solution in solution_paths(root) if solutions is None else solutions:
        cells = code_cells(solution)
        if any(is_exported(cell) for cell in cells):
            modules[root / "utils" / "exported" / f"nb{solution.stem}.py"] = exported_source(
                solution.stem, cells
            )
    return modules


def expected_outputs(root: Path = REPO_ROOT, solutions: list[Path] | None = None) -> dict[Path, str]:
    """Map each learner notebook path, and each exported module's, to the exact file text the tool
    writes there."""
    learners = {path: notebook_text(nb) for path, nb in learner_notebooks(root, solutions).items()}
    return learners | exported_modules(root, solutions)


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
            source = path.name if path.suffix == ".ipynb" else path.stem.removeprefix("nb") + ".ipynb"
            problems.append(f"{shown}: differs from what solutions/{source} produces")
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
        modules = exported_modules(root, chosen)
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
    for path, text in modules.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {_display(path, root)}")
    if chosen is None:
        for path in sorted((root / "notebooks").glob("*.ipynb")):
            if path not in learners:
                print(f"warning: {_display(path, root)} has no solution source", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
