"""Re-running: every solution notebook runs from a fresh kernel, and 'Run all' twice agrees with itself.

This course is about stale state (an `out` that was not zeroed, a scratch buffer reused), so its notebooks
must keep none of their own. For each notebook in solutions/, one kernel (started by nbclient) runs

1. every cell from the top, which must run without an error: this is the run of solutions/ that nbval
   would otherwise make, so pytest's testpaths leave solutions/ to this file;
2. every cell again in the same kernel, and each cell must print the same text as in step 1.

A restart (Kernel > Restart, then Run all) is step 1: a fresh kernel, and the notebooks keep nothing on
disk between runs. Each step begins by seeding the global random generators (random, numpy, torch)
alike, so cells that draw unseeded `torch.randn` data print the same numbers twice; any other difference
is state that a run left behind. The text compared is stdout, stderr and the text/plain of results and
displays, with memory addresses blanked. The comparison needs the interpreter (CI has no GPU): it runs
programs in order, so atomics add up the same way twice, and it prints no timings. On a GPU both vary,
so there the second run is only checked for errors.

Learner notebooks (notebooks/) are these cells with the answers stubbed out; nbval runs each once from the
top. Running them twice more here would add minutes of CI for the 'not attempted yet' branches, which
print one line and keep no state.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from utils.notebooks import solution_paths

ROOT = Path(__file__).resolve().parent.parent
# Last notebooks first: they are the slowest, and with two test workers the long runs should start early.
SOLUTIONS = solution_paths()[::-1]
CELL_TIMEOUT_S = 600
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"  # tests/conftest.py sets it without a GPU
SEED_CELL = """\
import random

import numpy
import torch

random.seed(0)
numpy.random.seed(0)
torch.manual_seed(0)"""
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # IPython colours its tracebacks


@dataclass
class Run:
    """One pass over code cells: what each printed, and the first error, which ends the pass."""

    label: str
    texts: dict[int, list[str]] = field(default_factory=dict)  # code-cell number -> lines of text output
    error: str | None = None


@dataclass
class Session:
    name: str
    code_cells: list[str]  # the source of each code cell, by code-cell number (nbval's "Cell N")
    runs: list[Run]


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _texts(cell) -> list[str]:
    """A cell's text output as lines: all of stdout, all of stderr, then each result's text/plain.

    A stream arrives in chunks that depend on when the kernel flushed, so each stream is joined first.
    """
    streams = {"stdout": "", "stderr": ""}
    shown = []
    for output in cell.outputs:
        if output.output_type == "stream":
            streams[output.name] += output.text
        elif output.output_type in ("execute_result", "display_data") and "text/plain" in output.data:
            shown.append(f"[{output.output_type}] {output.data['text/plain']}")
    texts = [f"[{name}] {text}" for name, text in streams.items() if text] + shown
    return _ADDRESS.sub("0x…", "\n".join(texts)).splitlines()


def _first_line(source: str) -> str:
    return next((line for line in source.splitlines() if line.strip()), "")[:100]


def _run(client: NotebookClient, nb, label: str, code_indices: list[int]) -> Run:
    """Seed the generators, then execute the given code cells in order, as 'Run all' does: stop at the
    first error."""
    run = Run(label)
    nb.cells.append(nbformat.v4.new_code_cell(SEED_CELL))  # execute_cell stores a cell at its index
    try:
        client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
    finally:
        nb.cells.pop()
    for number, index in enumerate(code_indices):
        cell = nb.cells[index]
        try:
            client.execute_cell(cell, index)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
            lines = [line for line in _COLOUR.sub("", str(error)).splitlines() if line.strip()]
            run.error = (
                f"{label}: code cell {number} (notebook cell {index}: {_first_line(cell.source)!r}) "
                "failed:\n" + "\n".join(lines[-20:])
            )
            break
        finally:
            run.texts[number] = _texts(cell)
    return run


@functools.cache
def _session(path: Path) -> Session:
    """Run the notebook twice in one fresh kernel; the two executions serve both tests below."""
    nb = nbformat.read(path, as_version=4)
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    runs = []
    with client.setup_kernel():
        runs.append(_run(client, nb, "Run all in a fresh kernel", code))
        if runs[-1].error is None:
            runs.append(_run(client, nb, "Run all a second time in the same kernel", code))
    return Session(_name(path), [nb.cells[i].source for i in code], runs)


class _RerunTests:
    """The two tests of one notebook. One class per notebook (below) makes pytest-xdist's --dist loadscope
    (conftest.py) run both on one worker, where they share _session's executions, and spread the
    notebooks over workers."""

    path: Path

    def test_run_all_in_a_fresh_kernel(self):
        session = _session(self.path)
        first = session.runs[0]
        assert first.error is None, f"{session.name}: {first.error}"

    def test_run_all_twice_prints_the_same(self):
        session = _session(self.path)
        errors = [run.error for run in session.runs if run.error]
        if errors:
            pytest.fail(f"{session.name} did not run twice: {errors[0]}")
        if not INTERPRETED:
            pytest.skip("on a GPU, timings and the order of atomic adds differ from run to run")
        first, second = session.runs
        differences = []
        for number, source in enumerate(session.code_cells):
            if first.texts[number] != second.texts[number]:
                diff = difflib.unified_diff(
                    first.texts[number], second.texts[number], "first run", "second run", lineterm="", n=1
                )
                differences.append(f"code cell {number} ({_first_line(source)!r}):\n" + "\n".join(diff))
        assert not differences, (
            f"{session.name}: the second 'Run all' in the same kernel printed something "
            "else, so state from the first run leaked into it:\n" + "\n\n".join(differences)
        )


for _path in SOLUTIONS:  # TestSolutions05RowSum, ...: the slowest notebook first
    _class = "TestSolutions" + "".join(part.capitalize() for part in _path.stem.split("_"))
    globals()[_class] = type(_class, (_RerunTests,), {"path": _path})
