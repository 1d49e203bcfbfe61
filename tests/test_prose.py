"""No markdown cell types a figure that a cell measures.

A time, a GB/s, a percentage, a ratio, a count of distinct results, a register count or an error typed
into markdown drifts from the output beside it: runs differ, GPUs differ, and the learner on a T4 or a
CPU sees other numbers. The cell prints the figure with a verdict computed from it; the markdown says
what to look for and why (see the H200 reference run in reference/ for what an H200 prints).

Two kinds of figure may stay in markdown, and only these:
- a source's claim, quoted as a claim to test: a blockquote whose first line starts with "> **Claim"
  (for example "> **Claim (the seed post):** ... 4.8 TB/s ..."), answered by a cell below it;
- a constant derived by arithmetic (3x the bytes, ε = 2⁻²³ ≈ 1.2·10⁻⁷), listed in DERIVED below with
  the notebook it is in and why it is arithmetic, not a measurement.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from utils.notebooks import learner_paths, solution_paths

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = learner_paths() + solution_paths()

_NUMBER = r"(?<![\w^.⁻])\d[\d,]*(?:\.\d+)?"
_RANGE = rf"{_NUMBER}\s*(?:(?:–|-|to|and)\s*{_NUMBER}\s*)?"
# A number followed by a unit of time, bandwidth, share, ratio or count; or an error written as a power
# of ten (1.4·10⁻⁶, 3e-7).
MEASURED = re.compile(
    rf"{_RANGE}(?:µs|us\b|ms\b|ns\b|s\b|seconds?\b|minutes?\b|GB/s|TB/s|GiB/s|%|x\b|×(?!\s*\d)|"
    rf"times (?:faster|slower|longer|shorter|closer|more|fewer)\b|distinct\b|registers\b)"
    rf"|{_NUMBER}\s*(?:·|×|x)\s*10\s*(?:⁻|\^-|\^\{{-)"
    rf"|\b\d(?:\.\d+)?e-\d+\b"
)

# (notebook number, the exact text matched) -> why it is arithmetic, not a measurement.
DERIVED: dict[tuple[str, str], str] = {
    # notebook 04
    ("04", "95%"): "exercise 1's target, benchmarks/run.py's COPY_GOAL: a goal set, not a figure measured",
    # notebook 06
    ("06", "1.2·10⁻"): "ε = 2⁻²³ ≈ 1.19·10⁻⁷, float32's machine epsilon",
}


def _claim_free(markdown: str) -> str:
    """The markdown without its quoted claims (blockquotes whose first line starts with '> **Claim')."""
    kept, in_claim = [], False
    for line in markdown.splitlines():
        if line.startswith(">"):
            if not in_claim and line.lstrip("> ").startswith("**Claim"):
                in_claim = True
            if in_claim:
                continue
        else:
            in_claim = False
        kept.append(line)
    return "\n".join(kept)


def typed_figures(path: Path) -> list[str]:
    """Every figure typed into a markdown cell of the notebook at `path`, with its cell id and context."""
    nb = nbformat.read(path, as_version=4)
    number = path.name[:2]
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = _claim_free(cell.source)
        for match in MEASURED.finditer(text):
            if (number, match.group(0).strip()) in DERIVED:
                continue
            context = text[max(0, match.start() - 50) : match.end() + 10].replace("\n", " ")
            found.append(f"cell {cell.get('id')!r}: {match.group(0).strip()!r} in '...{context}...'")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_markdown_types_no_measured_figure(path):
    found = typed_figures(path)
    assert not found, (
        f"{path.parent.name}/{path.name} types {len(found)} measured figure(s) in markdown; print them from "
        "the cell that measures them, with a verdict, and say in markdown what to look for:\n  "
        + "\n  ".join(found)
    )


@pytest.mark.parametrize(
    "text",
    [
        "the kernel took 0.54 ms",
        "4,227 GB/s",
        "102% of the copy",
        "1.03x torch.amax",
        "about 1,450 times longer",
        "179 distinct float32 results",
        "at most 1.4·10⁻⁶",
        "spilled 5,016 registers",
        "took 3.8 to 7.1 µs",
        "an error of 3e-7",
    ],
)
def test_the_detector_finds_typed_measurements(text):
    assert MEASURED.search(text), text


@pytest.mark.parametrize(
    "text",
    [
        "N = 2^20 elements",
        "`BLOCK_SIZE` = 1024",
        "notebook 05",
        "32 threads per warp",
        "0.25 FLOP per byte",
        "section 6",
        "float32 has a 24-bit significand",
    ],
)
def test_the_detector_leaves_sizes_and_names_alone(text):
    assert not MEASURED.search(text), text


def test_quoted_claims_are_exempt_and_nothing_else():
    markdown = (
        "> **Claim (the seed post):** the H200 reads at 4.8 TB/s.\n> It took 5 µs.\n\n"
        "Below, the cell measured 4.2 TB/s."
    )
    remaining = _claim_free(markdown)
    assert "4.8 TB/s" not in remaining and "5 µs" not in remaining
    assert MEASURED.search(remaining).group(0) == "4.2 TB/s"
