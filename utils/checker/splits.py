"""Which cases fail, as a fact of the battery: every failing case shares a trait that some passing case
lacks (the NaN cases, the float16 ones), or the cases split by size. Part of the checker's description of a
failure (utils.checker.describe); like it, nothing here names a cause."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import torch

from utils.checker.judge import Run, answers
from utils.checker.model import Exercise
from utils.checker.relations import Finding, reduced_length, row_count, wrong_mask

# What the cases with a trait (utils.checker.model.Case.traits) have in common, in a report's words.
TRAIT_WORDS = {
    "nan": "with a NaN in x",
    "ties": "with the maximum tied",
    "extreme": "of values so large or small that exp overflows or underflows in float32",
    "sorted": "of sorted values",
    "offset": "of values far from 0 (a spread of about 1 around 1e4)",
    "large_mean": "of rows whose mean is large against their spread",
    "fp16": "in float16",
    "strided": "on a strided or transposed view",
    "all_neg_inf": "with a row of -inf",
    "neg_inf_run": "whose rows start with a run of -inf",
    "starts_neg_inf": "whose rows start with -inf (a row of -inf among them)",
    "called_n_splits": "called with n_splits=8",
    "saved_eps": "whose mean and rstd a forward saved with an eps other than 1e-5",
}


def _by_trait(runs: list[Run], failing: list[Run]) -> list[Finding]:
    """Every failing case shares a trait that some passing case lacks: the cases it marks are where the
    mistake shows (a fact of the battery, whatever the cause)."""
    findings = []
    for trait, words in TRAIT_WORDS.items():
        marked = [run for run in runs if trait in run.case.traits]
        # one failing case among several of the trait only restates that case's trait, as a size split would
        restates = len(failing) == 1 < len(marked)
        if all(run in marked for run in failing) and len(marked) < len(runs) and not restates:
            shown = (
                f"all {len(marked)}"
                if len(failing) == len(marked)
                else f"{len(failing)} of the {len(marked)}"
            )
            findings.append(
                Finding("cases", f"only cases {words} fail ({shown} of them); every other passes")
            )
    return findings


def after_same_shape(exercise: Exercise, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """A failing case whose wrong elements hold exactly what a passing case of the same shapes, run before
    it, left in out at those places (two different values at least, so that a constant both share proves
    nothing), or whose whole result is the right answer for that case's keywords or dtypes: whatever a
    function keeps between calls by shape reaches it there. A condition, not a finding about the values:
    utils.checker.describe lists it after them."""
    found, failed = [], {id(run) for run in failing}
    keeps = "if your function keeps anything between calls by shape (a cached result, maximum, sum, buffer, "
    keeps += "plan or launch), it reaches this case from that one"
    for i, run in enumerate(runs):
        if id(run) not in failed or run.result.shape != run.expected.shape:
            continue
        wrong = wrong_mask(exercise, run)
        got = run.result.reshape(-1)[wrong]
        shapes = [x.shape for x in run.case.inputs]
        for before in reversed(runs[:i]):
            if id(before) in failed or shapes != [x.shape for x in before.case.inputs]:
                continue
            ran = f"'{before.case.name}' (of the same shape, run before it, passed)"
            if got.unique().numel() >= 2 and before.result.shape == run.result.shape:
                if torch.equal(before.result.reshape(-1)[wrong], got):
                    found.append(
                        Finding(
                            "same_shape",
                            f"'{run.case.name}' holds, where it is wrong, what {ran} left there: {keeps}",
                        )
                    )
                    break
            answer = _answer_for_call(exercise, run, before)
            if answer:
                found.append(
                    Finding("same_shape", f"'{run.case.name}' is the right answer {answer} of {ran}: {keeps}")
                )
                break
    return found


def _answer_for_call(exercise: Exercise, run: Run, before: Run) -> str | None:
    """Whether run's whole result is the right answer for its inputs with before's keywords (eps=, CHUNK=),
    or in before's dtypes (inputs and out cast, judged with that dtype's tolerance, every value one that out's
    dtype there holds); in words, or None."""
    inputs, kwargs = run.case.inputs, run.case.kwargs
    tries = []
    if before.case.kwargs != kwargs:
        words = ", ".join(f"{k}={v}" for k, v in before.case.kwargs.items()) or "the default keywords"
        tries.append((f"for the keywords ({words})", inputs, before.case.kwargs, run.case))
    dtypes = [x.dtype for x in before.case.inputs]
    narrow = before.case.out_dtype
    got = run.result.reshape(-1)
    # every value one that before's out dtype holds: a result within its tolerance alone says too little
    if dtypes != [x.dtype for x in inputs] and torch.equal(got, got.to(narrow).double()):
        cast = tuple(x.to(d) for x, d in zip(inputs, dtypes))
        name = str(before.case.inputs[0].dtype).removeprefix("torch.")
        tries.append(
            (
                f"in {name} (each value one that {name} holds), the dtype",
                cast,
                kwargs,
                replace(run.case, inputs=cast, out_dtype=before.case.out_dtype),
            )
        )
    for words, xs, call_kwargs, case in tries:
        if answers(exercise, case, run.result, xs, call_kwargs, case.out_dtype):
            return words
    return None


def _sizes(runs: list[Run]) -> list[tuple[str, Callable[[Run], int]]]:
    """The sizes a split may be by: for a battery of 2-D inputs the columns, then the rows, then the
    elements (a row's length or their count says more there than their product); else the elements."""
    elements: tuple[str, Callable[[Run], int]] = ("elements", lambda run: run.case.inputs[0].numel())
    if all(run.case.inputs[0].dim() == 1 for run in runs):
        return [elements]
    return [("columns", reduced_length), ("rows", row_count), elements]


def _regular(name: str, bad: set[int], good: set[int]) -> str | None:
    """A split by a multiple: every failing size is not a power of two and every passing one is, or every
    failing size is not a multiple of k and every passing one is (a tail of fewer than k left out, say), or
    every failing size is a multiple of k and no passing one is (a loop that stops one tile short when the
    tiles fill the input exactly, say)."""

    def power(n: int) -> bool:
        return n > 0 and n & (n - 1) == 0

    if not any(map(power, bad)) and all(map(power, good)):
        return f"every failing case's number of {name} is not a power of two, and every passing case's is"
    for k in (2, 4, 8, 16, 32, 64, 128):
        if all(n % k for n in bad) and not any(n % k for n in good):
            return (
                f"every failing case's number of {name} is not a multiple of {k}, and every passing case's is"
            )
    # The other way round: a whole tile, or the last, treated as a partial one. Tiles are powers of two;
    # the greatest common divisor of two sizes that is not one (2,400 of 19,200 and 2,400) says nothing.
    k = math.gcd(*bad)
    if k >= 16 and k & (k - 1) == 0 and len(bad) > 1 and all(n % k for n in good):
        return f"every failing case's number of {name} is a multiple of {k:,}, and no passing case's is"
    return None


def which_cases(runs: list[Run], failing: list[Run]) -> list[Finding]:
    """A split of the cases: by a trait (see _by_trait), or by size: every case past some size fails
    and every case up to it passes, or the other way round; a sign that one code path (one program, one
    tile, a loop taken or not) is wrong and the other right; or, failing that, by a multiple (_regular): a
    tail or a width the code does not handle. Size: a row's length, the rows or the elements (_sizes). A
    size split needs two failing cases and two passing ones at least: one case on a side only restates its
    own size."""
    if not failing or len(failing) == len(runs):
        return []
    findings = _by_trait(runs, failing)
    if len(failing) < 2 or len(runs) - len(failing) < 2:
        return findings
    regular = None
    for name, size in _sizes(runs):
        bad = {size(run) for run in failing}
        good = {size(run) for run in runs if run not in failing}
        if max(good) < min(bad):
            # the sizes the battery has on either side: where between them the limit lies, it cannot say
            text = (
                f"every case of {min(bad)} {name} or more fails, and every one of {max(good)} or fewer passes"
            )
            return [*findings, Finding("cases", text)]
        if max(bad) < min(good):
            text = (
                f"every case of {max(bad)} {name} or fewer fails, and every one of {min(good)} or more passes"
            )
            return [*findings, Finding("cases", text)]
        regular = regular or _regular(name, bad, good)
    return [*findings, Finding("cases", regular)] if regular else findings
