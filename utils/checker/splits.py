"""Which cases fail, as a fact of the battery: every failing case shares a trait that some passing case
lacks (the NaN cases, the float16 ones), or the cases split by size. Part of the checker's description of a
failure (utils.checker.describe); like it, nothing here names a cause."""

from __future__ import annotations

from utils.checker.judge import Run
from utils.checker.relations import Finding, reduced_length

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


def after_same_shape(runs: list[Run], failing: list[Run]) -> list[Finding]:
    """A failing case that ran right after a passing case of the same shapes: whatever a function keeps
    between calls by shape reaches it there, whatever else the effects show. A condition, not a finding
    about the values: utils.checker.describe lists it after them."""
    found, failed = [], {id(run) for run in failing}
    for before, run in zip(runs, runs[1:]):
        shapes = [x.shape for x in run.case.inputs]
        if id(run) in failed and id(before) not in failed and shapes == [x.shape for x in before.case.inputs]:
            text = (
                f"'{run.case.name}' ran right after '{before.case.name}', of the same shape, which passed: "
                "if your function keeps anything between calls by shape (a cached result, maximum, sum, "
                "grid or buffer), it reaches this case from that one"
            )
            found.append(Finding("cases", text))
    return found


def which_cases(runs: list[Run], failing: list[Run]) -> list[Finding]:
    """A split of the cases: by a trait (see _by_trait), or by size: every case past some size fails
    and every case up to it passes, or the other way round; a sign that one code path (one program, one
    tile, a loop taken or not) is wrong and the other right. Size: the input's elements, or the row's
    length. A size split needs two failing cases and two passing ones at least: one case on a side only
    restates its own size."""
    if not failing or len(failing) == len(runs):
        return []
    findings = _by_trait(runs, failing)
    if len(failing) < 2 or len(runs) - len(failing) < 2:
        return findings
    for name, size in (("elements", lambda run: run.case.inputs[0].numel()), ("columns", reduced_length)):
        if name == "columns" and all(run.case.inputs[0].dim() == 1 for run in runs):
            continue
        bad = {size(run) for run in failing}
        good = {size(run) for run in runs if run not in failing}
        if max(good) < min(bad):
            # the sizes the battery has on either side: where between them the limit lies, it cannot say
            text = (
                f"every case of {min(bad)} {name} or more fails, and every one of {max(good)} or fewer passes"
            )
            findings.append(Finding("cases", text))
            break
        if max(bad) < min(good):
            text = (
                f"every case of {max(bad)} {name} or fewer fails, and every one of {min(good)} or more passes"
            )
            findings.append(Finding("cases", text))
            break
    return findings
