"""The report a learner reads when a check fails: the table of failing cases, what the wrong results
show (utils.checker.describe), the likely mistake, and the smallest failing case in full."""

from __future__ import annotations

import math

import numpy as np
import torch

from utils.checker.judge import Run, agree, close
from utils.checker.model import Exercise
from utils.checker.relations import Finding

MAX_TABLE_ROWS = 8


class ExerciseFailed(AssertionError):
    """A wrong answer. The message is for the learner; `diagnoses` holds the mistake codes, `findings`
    what utils.checker.describe measured about the wrong results (true of every failing case, whatever the
    cause)."""

    def __init__(self, message: str, diagnoses: list[str], findings: list[Finding] | None = None):
        super().__init__(message)
        self.diagnoses = diagnoses
        self.findings = findings or []


def fmt(value: float) -> str:
    """A value as the report prints it: integers (indices, counts) whole, floats to 7 digits."""
    return str(value) if isinstance(value, int) else f"{value:.7g}"


def passed_row(run: Run) -> tuple[str, str, str]:
    """(expected, got, note) for a case that passed, where a report shows it next to one that failed."""
    if run.result.numel() == 1:
        return fmt(run.expected.item()), fmt(run.result.item()), "right"
    return "", "", "right"


def failing_row(exercise: Exercise, run: Run) -> tuple[str, str, str]:
    """(expected, got, note) for one failing case."""
    if close(exercise, run.case, run.result, run.expected):
        where = "memory around out was overwritten" if not run.canaries_intact else "an input was modified"
        return "", "", f"values right, but {where}"
    if run.result.numel() == 1:
        got, want = run.result.item(), run.expected.item()
        note = (
            "never written (out's initial garbage)"
            if got == run.garbage
            else "NaN"
            if math.isnan(got)
            else "a number where NaN is right"
            if math.isnan(want)
            else f"off by {fmt(got - want)}"
        )
        return fmt(want), fmt(got), note
    bad = ~agree(exercise, run.case, run.result.flatten(), run.expected.flatten())
    index = int(bad.nonzero()[0, 0])
    got = run.result.flatten()[index].item()
    unwritten = " (never written)" if got == run.garbage else ""
    return (
        f"[{index}] {fmt(run.expected.flatten()[index].item())}",
        f"[{index}] {fmt(got)}{unwritten}",
        f"{int(bad.sum())} of {bad.numel()} wrong",
    )


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """The report's table: left-aligned columns, indented by two spaces."""
    rows = [header, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def failure_report(
    exercise: Exercise, runs: list[Run], failing: list[Run], codes: list[str], findings: list[Finding]
) -> str:
    shown = table(
        ("case", "expected", "got", ""),
        [(run.case.name, *failing_row(exercise, run)) for run in failing[:MAX_TABLE_ROWS]],
    )
    more = f"\n  ... and {len(failing) - MAX_TABLE_ROWS} more" if len(failing) > MAX_TABLE_ROWS else ""
    passed = [run.case.name for run in runs if run not in failing]
    passed_line = f"\nPassed: {'; '.join(passed)}" if passed else ""
    measured = "".join(f"\n  - {finding.text}" for finding in findings)
    measured = f"\nWhat the wrong results show (measured on the failing cases):{measured}" if measured else ""
    exact = [finding for finding in findings if finding.exact and finding.kind == "inputs"]
    if codes == ["wrong_values"] and exact:
        advice = (
            f"Likely mistake: not one the checker has a name for, but one relation above holds exactly on "
            f"every failing case ({exact[0].text}). Find the line of your kernel or host function that "
            "would make it."
        )
    elif codes == ["wrong_values"] and findings:
        advice = (
            "Likely mistake: none of the common mistakes explains these results, so the checker names "
            "none; what it measured above is true of every failing case. Find the line of your kernel "
            "or host function that would have that effect."
        )
    else:
        mistakes = [exercise.mistakes[code].message for code in codes]
        if "input_modified" in codes:  # which inputs, as the effects show them
            changed = dict.fromkeys(name for run in runs for name in run.changed)  # in the inputs' order
            mistakes[codes.index("input_modified")] += f" Changed by the call: {', '.join(changed)}."
        advice = "Likely mistake: " + mistakes[0] + "".join(f"\n    or: {m}" for m in mistakes[1:])
    if codes == ["wrong_values"]:
        advice += "\n" + _smallest_case(exercise, failing)
    return (
        f"{exercise.id}: {len(failing)} of {len(runs)} cases wrong.\n{shown}{more}{passed_line}{measured}\n"
        f"{advice}"
    )


def _smallest_case(exercise: Exercise, failing: list[Run]) -> str:
    """The failing case with the fewest input elements, in full (numpy's summary past 64 elements)."""
    run = min(failing, key=lambda r: (sum(x.numel() for x in r.case.inputs), failing.index(r)))

    def show(t: torch.Tensor) -> str:
        text = np.array2string(t.double().numpy(), precision=7, threshold=64, edgeitems=4, separator=", ")
        return text.replace("\n", "\n" + " " * 13)

    names = exercise.input_names
    lines = [f"The smallest failing case in full, '{run.case.name}', to reason about by hand:"]
    for name, x in zip(names, run.case.inputs):
        lines.append(f"  {name:<9}= {show(x)}")
    lines.append(f"  {'expected':<9}= {show(run.expected.reshape(run.case.out_shape))}")
    lines.append(f"  {'got':<9}= {show(run.result.reshape(run.case.out_shape))}")
    if run.result.numel() > 0 and bool((run.result == run.garbage).any()):
        held = fmt(run.garbage)
        lines.append(f"  (out held {held} before the call: elements still equal to it were never written)")
    return "\n".join(lines)
