"""The reference run: every solution notebook executed top to bottom on a GPU, outputs and figures kept.

Learners without a GPU read what the cells print on a real one in `reference/<gpu>/NN_topic.ipynb`
(GitHub and nbviewer render it as it is). On a CUDA machine,

    ./course.sh reference            # or: python -m utils.reference [NN_topic.ipynb ...] [--out DIR]
                                     #     [--deadline SECONDS]
    python -m utils.reference --markdown [NN_topic.ipynb ...]   # no GPU needed

runs each notebook of `solutions/` with nbclient (a fresh kernel per notebook, in `solutions/`, as a
learner's Run All would) and writes it, outputs included, to `reference/<gpu>/` (for example
`reference/h200/`). The notebook's metadata gets a `reference_run` entry naming the GPU, its driver,
torch, triton, Python and the date; the set-up cell's banner, the first output, names them too. A
notebook whose run raises is written beside as `NN_topic.FAILED.ipynb` instead, and the command exits
non-zero, so a broken run never replaces a good one. Each code cell's metadata records a digest of the
source that ran. Regenerate the run after any change to a notebook's code: `tests/test_reference.py`
compares the cells by id and fails, naming them, while a reference notebook's code cells differ from its
solution's (changed, added, removed or moved) or from the source their digest records. Markdown runs
nothing, so a change to a notebook's prose alone needs no GPU: `--markdown` copies the solutions' markdown
cells, by id, into the committed copies (`copy_markdown`), and the test fails while they differ.

nbclient executes; this module only chooses the folder, records the versions and keeps failures apart.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import platform
import re
import sys
import time
from pathlib import Path

import nbformat

from utils.notebooks import ROOT as REPO_ROOT
from utils.notebooks import solution_paths

REFERENCE_DIR = REPO_ROOT / "reference"
CELL_TIMEOUT_S = 600
# Words that GPU names share and that say nothing about the card: "NVIDIA H200" is filed as h200.
_VENDOR_WORDS = {"nvidia", "tesla", "geforce", "amd", "radeon"}
# Words that describe the card's memory, not the card: "NVIDIA H100 80GB HBM3" is filed as h100 (the
# metadata's reference_run keeps the whole name).
_MEMORY_WORD = re.compile(r"\d+gb|hbm\d*e?")


def gpu_folder_name(gpu_name: str) -> str:
    """The folder a GPU's reference run goes to: "NVIDIA H200" -> "h200", "Tesla T4" -> "t4",
    "NVIDIA H100 80GB HBM3" -> "h100"."""
    words = [
        w
        for w in re.split(r"[^a-z0-9]+", gpu_name.lower())
        if w and w not in _VENDOR_WORDS and not _MEMORY_WORD.fullmatch(w)
    ]
    return "-".join(words) or "gpu"


def machine() -> dict[str, str]:
    """What a reference run ran on: GPU, compute capability, driver, and the software that matters."""
    import torch
    import triton

    from utils.setup import gpu_driver

    major, minor = torch.cuda.get_device_capability()
    return {
        "gpu": torch.cuda.get_device_name(),
        "capability": f"sm_{major}{minor}",
        "driver": gpu_driver(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


NO_GPU_LINK = "**No GPU?** ["
# The whole link of a solution's or learner notebook's title: the card it names and the copy it leads to
NO_GPU_LINK_TO_COPY = re.compile(r"\*\*No GPU\?\*\* \[What these cells print on an? ([^\]]+)\]\(([^)\s]+)\)")
REFERENCE_NOTE_START = "**No GPU?** You are reading the copy run on the "


def reference_note(gpu_name: str) -> str:
    """The line that stands in a reference copy's title cell for the learner's "No GPU?" link."""
    return (
        f"{REFERENCE_NOTE_START}{gpu_name}; every output below is from that run (its metadata's "
        "`reference_run` says on what, and when)."
    )


def as_reference_copy(nb, gpu_name: str) -> None:
    """Replace the title cell's "No GPU?" link, which points from notebooks/ to this copy, by a line
    saying that this is the copy, run on `gpu_name`: from reference/<gpu>/ the link's relative path leads
    nowhere."""
    title = nb.cells[0]
    note = reference_note(gpu_name)
    title.source = "\n".join(
        note if line.startswith(NO_GPU_LINK) else line for line in title.source.splitlines()
    )


def copy_markdown(solution_nb, reference_nb) -> list[str]:
    """Give `reference_nb` the markdown of `solution_nb`, cell by cell id (the title as this copy's, by
    as_reference_copy); return the ids of the cells changed. Markdown cells added, removed or moved raise
    ValueError: where they go among the outputs is the run's to say."""
    solution_nb = nbformat.from_dict(solution_nb)  # a copy: the title is changed below
    as_reference_copy(solution_nb, reference_nb.metadata.get("reference_run", {}).get("gpu", "GPU"))
    ids = [[c.id for c in nb.cells if c.cell_type == "markdown"] for nb in (solution_nb, reference_nb)]
    if ids[0] != ids[1]:
        raise ValueError("markdown cells added, removed or moved: regenerate the reference run")
    prose = {c.id: c.source for c in solution_nb.cells if c.cell_type == "markdown"}
    changed = [c.id for c in reference_nb.cells if c.cell_type == "markdown" and c.source != prose[c.id]]
    for cell in reference_nb.cells:
        if cell.cell_type == "markdown":
            cell.source = prose[cell.id]
    return changed


# In each code cell's metadata: a digest of the source that ran. The test compares it with the cell's
# source, so that a reference cell edited after its run (to match a solution, say) is caught.
SOURCE_DIGEST = "ran_source_sha256"


def source_digest(source: str) -> str:
    """The first 16 hex digits of the SHA-256 of a cell's source."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def record_sources(nb) -> None:
    """Put the digest of each code cell's source, as it ran, into the cell's metadata."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.metadata[SOURCE_DIGEST] = source_digest(cell.source)


def run_notebook(
    solution: Path, out_dir: Path, run_info: dict[str, str], deadline: float | None = None
) -> tuple[Path, float, str | None]:
    """Execute `solution` in a fresh kernel in its own folder; write it to `out_dir` with its outputs.

    Returns (written path, seconds, error or None). On an error the notebook, executed up to the failing
    cell, is written as NN_topic.FAILED.ipynb so that the good reference beside it stays. `deadline`, a
    time.perf_counter() value: the cell running then is interrupted (an error, as above), so that a
    machine lent for a fixed time still hands back the outputs so far.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    def cell_timeout(cell) -> int:
        if deadline is None:
            return CELL_TIMEOUT_S
        return max(1, min(CELL_TIMEOUT_S, int(deadline - time.perf_counter())))

    nb = nbformat.read(solution, as_version=4)
    client = NotebookClient(
        nb,
        timeout_func=cell_timeout,
        interrupt_on_timeout=True,  # the cell ends with an error, and the notebook is written as failed
        kernel_name="python3",
        resources={"metadata": {"path": str(solution.parent)}},
    )
    start = time.perf_counter()
    error = None
    try:
        client.execute()
    except CellExecutionError as failure:
        error = str(failure).strip().splitlines()[-1]
    seconds = time.perf_counter() - start
    record_sources(nb)
    as_reference_copy(nb, run_info["gpu"])
    nb.metadata["reference_run"] = dict(
        run_info, seconds=round(seconds, 1), source=f"solutions/{solution.name}"
    )
    # Keep only the language name, as the committed notebooks do; the versions are in reference_run.
    nb.metadata["language_info"] = {"name": nb.metadata.get("language_info", {}).get("name", "python")}
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / (solution.name if error is None else solution.stem + ".FAILED.ipynb")
    nbformat.write(nb, target)
    if error is None:
        (out_dir / (solution.stem + ".FAILED.ipynb")).unlink(missing_ok=True)
    return target, seconds, error


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m utils.reference", description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", help="solution notebooks to run (default: all of solutions/)")
    parser.add_argument("--out", type=Path, help="folder to write to (default: reference/<gpu>/)")
    parser.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="stop after this many seconds: the cell running then is interrupted and its notebook written "
        "as NN_topic.FAILED.ipynb with the outputs so far; notebooks not started are not run",
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="copy the solutions' markdown into the committed copies of every folder of reference/, by "
        "cell id, and run nothing (no GPU needed)",
    )
    args = parser.parse_args(argv)
    if args.markdown:
        return _copy_all_markdown({Path(name).name for name in args.notebooks})
    deadline = None if args.deadline is None else time.perf_counter() + args.deadline

    import torch

    if not torch.cuda.is_available():
        print(
            "The reference run needs a CUDA GPU; none was found here. What a GPU prints is in "
            'reference/<gpu>/: each notebook\'s "No GPU?" link leads to its copy.'
        )
        return 2
    run_info = machine()
    out_dir = args.out or REFERENCE_DIR / gpu_folder_name(run_info["gpu"])
    solutions = solution_paths()
    if args.notebooks:
        wanted = {Path(name).name for name in args.notebooks}
        solutions = [path for path in solutions if path.name in wanted]
        missing = wanted - {path.name for path in solutions}
        if missing:
            parser.error(f"not in solutions/: {', '.join(sorted(missing))}")
    print(
        f"reference run on {run_info['gpu']} ({run_info['capability']}, driver {run_info['driver']}), "
        f"torch {run_info['torch']}, triton {run_info['triton']}, {run_info['date']} -> {out_dir}"
    )
    failed = 0
    for solution in solutions:
        if deadline is not None and time.perf_counter() >= deadline:
            print(f"  {solution.name}: not run, past the deadline")
            failed += 1
            continue
        target, seconds, error = run_notebook(solution, out_dir, run_info, deadline)
        status = "ok" if error is None else f"FAILED: {error}"
        print(f"  {solution.name}: {seconds:.0f} s, {status} -> {target}")
        failed += error is not None
    return 1 if failed else 0


def _copy_all_markdown(wanted: set[str]) -> int:
    """--markdown: copy_markdown for each committed copy of the wanted solutions (all if none named)."""
    solutions = [path for path in solution_paths() if not wanted or path.name in wanted]
    for solution in solutions:
        for copy in sorted(REFERENCE_DIR.glob(f"*/{solution.name}")):
            nb = nbformat.read(copy, as_version=4)
            changed = copy_markdown(nbformat.read(solution, as_version=4), nb)
            if changed:
                nbformat.write(nb, copy)
            print(f"  {copy.relative_to(REPO_ROOT)}: markdown of {len(changed)} cells copied {changed or ''}")
    missing = wanted - {path.name for path in solutions}
    if missing:
        print(f"not in solutions/: {', '.join(sorted(missing))}")
    return 2 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
