"""What a wrong result is, measured from its effects alone: the checker's description of every failure.

`utils.checker.diagnose` names a mistake only when a prediction of it matches; learners make mistakes nobody
listed, and then a name would be a guess. This module says instead what is true of the failing runs,
computed from them: which elements are wrong or were never written (as index ranges, strides, rows or
columns), which cases fail (utils.checker.splits), and how the wrong values relate to the right ones
(utils.checker.relations). Each sentence is checked against every failing case before it is said; a relation
that holds on some failing cases and not on others is not said. Nothing here reads the learner's code,
and nothing here names a cause.

utils.checker.runner prints these findings under every failing verdict, and tells utils.checker.diagnose
whether one of them is structural (Finding.structural), which keeps a trait (say, "only the float16 cases
fail") from naming a mistake whose effects are something else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from utils.checker import relations
from utils.checker.judge import Run, answers, close
from utils.checker.model import Exercise
from utils.checker.relations import NAMED_CONSTANTS, Finding, wrong_mask
from utils.checker.rows import other_rows, row_factors
from utils.checker.splits import after_same_shape, which_cases

MAX_LISTED = 6  # indices or rows listed by name before "and k more"

__all__ = ["Finding", "describe", "index_set"]


# ----------------------------------------------------------------------------------------------------
# Where: which elements are wrong


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def index_set(indices: torch.Tensor | Sequence[int], n: int, noun: str = "element") -> str:
    """A set of indices out of n, in words: "all 64 rows", "the last 3 elements (from element 1022 of
    1025)", "every 8th row from row 0 (8 of 64)", "elements 3, 9, 11 (3 of 100)"."""
    s = torch.as_tensor(indices, dtype=torch.int64).flatten().sort().values
    k = len(s)
    plural = noun + ("s" if k != 1 else "")
    if k == n:
        return f"all {n} {noun}s" if n > 1 else f"the only {noun}"
    first, last = int(s[0]), int(s[-1])
    if k == 1:
        return f"{noun} {first} only (of {n})"
    if last - first == k - 1:  # one contiguous run
        if first == 0:
            return f"the first {k} {plural} (of {n})"
        if last == n - 1:
            return f"the last {k} {plural} (from {noun} {first} of {n})"
        return f"{plural} {first} to {last} (of {n})"
    steps = s.diff().unique()
    if len(steps) == 1 and k > 2:  # two indices are just two: "every 3rd from 0" of rows 0 and 3 says less
        return f"every {_ordinal(int(steps[0]))} {noun} from {noun} {first} ({k} of {n})"
    listed = ", ".join(str(int(i)) for i in s[:MAX_LISTED])
    more = f" and {k - MAX_LISTED} more" if k > MAX_LISTED else ""
    return f"{plural} {listed}{more} ({k} of {n})"


def _block_pattern(
    failing: list[tuple[Run, torch.Tensor]], pattern: Callable[[int, int], torch.Tensor]
) -> list[int]:
    """The powers of two B for which, on every failing case, the wrong elements of each row of out (out's
    last axis, n long) are exactly `pattern(n, B)` in every row that has any (and some row has): several
    where the failing lengths cannot tell them apart (n = 1025 ends one past a block of 16 and of 1,024
    alike), none if no B does."""
    found = []
    for b in (2**k for k in range(4, 17)):  # 16 and up: a tile, not a field of a small out
        ok = True
        for run, wrong in failing:
            n = run.case.out_shape[-1]
            rows = wrong.reshape(-1, n)
            bad = rows.any(dim=1)
            want = pattern(n, b)
            if not bad.any() or not want.any() or want.all() or not bool((rows[bad] == want).all()):
                ok = False
                break
        if ok:
            found.append(b)
    return found


def _last_of_block(n: int, b: int) -> torch.Tensor:
    """The last n mod b of n positions: a partial last tile of b."""
    return torch.arange(n) >= n - n % b


def _from_block(n: int, b: int) -> torch.Tensor:
    """Every position from b on: all but a first tile of b."""
    return torch.arange(n) >= b


def where_wrong(exercise: Exercise, failing: list[Run]) -> list[Finding]:
    """Which elements are wrong, and which were never written, on the failing cases."""
    findings: list[Finding] = []
    many = [run for run in failing if run.result.numel() > 1]
    if not many:  # one value a case: the cases that left it as it was
        untouched = [
            run.case.name for run in failing if run.result.numel() == 1 and run.result.item() == run.garbage
        ]
        if not untouched:
            return findings
        listed = ", ".join(f"'{name}'" for name in untouched[:3]) + (
            f" and {len(untouched) - 3} more" if len(untouched) > 3 else ""
        )
        cases = "every failing case" if len(untouched) == len(failing) else listed
        held = "never written, or written back with it (a max or a sum that took out's old value in)"
        return [Finding("where", f"out still holds its value from before the call in {cases}: {held}")]
    masks = [(run, wrong_mask(exercise, run)) for run in many]

    tails = _block_pattern(masks, _last_of_block)
    tail = tails[0] if len(tails) == 1 else None
    pasts = _block_pattern(masks, _from_block) if not tails else []
    past = pasts[0] if pasts else None
    two_d = all(len(run.case.out_shape) == 2 for run in many)
    unit = "of each wrong row " if two_d else ""
    if tail is not None:
        findings.append(
            Finding(
                "block",
                f"on every failing case the wrong elements {unit}are exactly the last (length mod {tail}) "
                f"of them, where a partial last block of {tail} would fall, and only those",
            )
        )
    elif tails:
        findings.append(
            Finding(
                "block",
                f"on every failing case the wrong elements {unit}are exactly the last (length mod B) of them "
                f"for every power of two B from {tails[0]:,} to {tails[-1]:,} alike (the failing lengths do "
                "not tell those apart), where a partial last block of such a B would fall, and only those",
            )
        )
    elif past is not None:
        findings.append(
            Finding(
                "block",
                f"on every failing case the elements {unit}from index {past} on are wrong and the first "
                f"{past} are right",
            )
        )
    partial = [(run, wrong) for run, wrong in masks if not wrong.all()]
    if not partial and not tails and past is None:
        findings.append(Finding("where", "every element of every failing case is wrong"))
    lines = []  # one per case wrong in part or unwritten in part, bar those whose every row is wrong in
    # columns of its own with nothing left unwritten
    for run, wrong in masks:
        shape = run.case.out_shape
        unwritten = (run.result.reshape(-1) == run.garbage) & wrong
        if wrong.all() and (not unwritten.any() or bool(unwritten.all())):
            continue  # every element wrong: said above, and what was left unwritten below if all was
        if len(shape) == 2:
            rows, n_cols = shape
            grid = wrong.reshape(rows, n_cols)
            bad_rows = grid.any(dim=1)
            where = index_set(bad_rows.nonzero(), rows, "row")
            if len(exercise.out_rows) == rows:  # rows of out that are results of their own: dW, db
                where = " and ".join(
                    f"out[{i}] ({exercise.out_rows[i]})" for i in bad_rows.nonzero().flatten()
                )
                where += "" if bool(bad_rows.all()) else " only"
            text = f"'{run.case.name}': wrong in {where}"
            columns = grid[bad_rows]
            if bool((columns == columns[0]).all()):
                of_each = " of each" if int(bad_rows.sum()) > 1 else ""
                text += f", in {index_set(columns[0].nonzero(), n_cols, 'column')}{of_each}"
            elif bool(bad_rows.all()) and not unwritten.any():
                continue  # every row wrong, each in its own columns: the table already says as much
        else:
            text = f"'{run.case.name}': wrong in {index_set(wrong.nonzero(), wrong.numel())}"
        if unwritten.any():
            never = (
                "all of them"
                if bool((unwritten == wrong).all())
                else f"{int(unwritten.sum())} of the wrong elements"
            )
            held = "out's value from before the call (never written, or written back as it was)"
            text += f"; {never} still hold {held}"
            if len(shape) == 2 and not bool((unwritten == wrong).all()):  # which columns were left
                left = unwritten.reshape(shape)[unwritten.reshape(shape).any(dim=1)]
                if bool((left == left[0]).all()):
                    text += f", {index_set(left[0].nonzero(), shape[1], 'column')} of each row that has any"
        lines.append(Finding("where", text))
    findings += lines[:3]  # the first few cases, one line each
    if len(lines) > 3:  # counted from the lines written, not from the cases, some of which have none
        findings.append(Finding("where", f"... and {len(lines) - 3} more failing cases like these"))
    unwritten_all = [
        run for run, wrong in masks if bool((run.result.reshape(-1) == run.garbage)[wrong].all())
    ]
    if len(unwritten_all) == len(masks) and not partial:
        findings.append(
            Finding(
                "where", "no wrong element was written: each still holds out's value from before the call"
            )
        )
    return findings


# ----------------------------------------------------------------------------------------------------
# Where the wrong values came from: another row, other inputs; and how_wrong, the value analyses in
# order (utils.checker.relations), the first that holds on every failing case


def other_inputs(exercise: Exercise, failing: list[Run]) -> Finding | None:
    """The result is the right answer for changed inputs: x scaled by a named constant (exp2 without the
    log2(e) factor computes the function of x * ln 2), or two inputs of one shape swapped."""
    runs = [run for run in failing if run.result.numel() > 0]
    if not runs:
        return None

    def matches(make: Callable[[tuple[torch.Tensor, ...]], tuple[torch.Tensor, ...]]) -> bool:
        return all(
            answers(
                exercise,
                run.case,
                run.result,
                make(tuple(x.double() for x in run.case.inputs)),
                run.case.kwargs,
            )
            for run in runs
        )

    for c, name in NAMED_CONSTANTS[:5]:

        def scaled(xs: tuple[torch.Tensor, ...], c: float = c) -> tuple[torch.Tensor, ...]:
            return (xs[0] * c, *xs[1:])

        if c != -1.0 and matches(scaled):
            return Finding("inputs", f"the result is the right answer for x * {name}", exact=True)
    prefix = _prefix(exercise, runs)
    if prefix:
        return prefix
    arity = len(runs[0].case.inputs)
    for i in range(arity):
        for j in range(i + 1, arity):
            same_shape = all(run.case.inputs[i].shape == run.case.inputs[j].shape for run in runs)

            def swap(xs, i=i, j=j):
                ys = list(xs)
                ys[i], ys[j] = ys[j], ys[i]
                return tuple(ys)

            if same_shape and matches(swap):
                names = exercise.input_names
                first, second = (names[i], names[j]) if len(names) == arity else (i + 1, j + 1)
                return Finding(
                    "inputs", f"the result is the right answer with {first} and {second} swapped", exact=True
                )
    return None


def _prefix(exercise: Exercise, runs: list[Run]) -> Finding | None:
    """A one-value result of a 1-D x that is the right answer for x's first k elements, k a power of two
    below N, the same k in every failing case (the largest such k where several fit, as a max's may)."""
    if any(len(r.case.inputs) != 1 or r.case.inputs[0].dim() != 1 or r.result.numel() != 1 for r in runs):
        return None
    common: set[int] | None = None
    for run in runs:
        x = run.case.inputs[0].double()
        fits = {
            k
            for k in (1 << p for p in range(x.numel().bit_length()))
            if k < x.numel() and answers(exercise, run.case, run.result, (x[:k],), run.case.kwargs)
        }
        common = fits if common is None else common & fits
        if not common:
            return None
    if not common:  # no runs
        return None
    k = max(common)
    what = "element" if k == 1 else f"{k:,} elements"
    return Finding("inputs", f"the result is the right answer for x's first {what} only", exact=True)


def how_wrong(exercise: Exercise, failing: list[Run]) -> list[Finding]:
    """What the wrong values are: NaNs counted, then the first relation that holds on every wrong
    element of every failing case, tried in order; else the size of the errors."""
    findings = [f for f in (relations.nans(exercise, failing),) if f]
    pairs = relations.pairs(exercise, failing)
    if not pairs:
        return findings
    # the pairs hold the finite, written wrong values only: a relation found on them says so when others
    # (NaN, inf, never written) are left out
    others = sum(len(p.got) for p in pairs) < sum(int(wrong_mask(exercise, run).sum()) for run in failing)
    # One wrong value is some factor, some offset and some function of its right value: a relation
    # needs two at least to say anything.
    several = sum(len(p.got) for p in pairs) > 1
    for analysis in (
        lambda: relations.rounded(pairs),
        lambda: relations.factor(pairs) if several else None,
        lambda: relations.offset(pairs, several),
        lambda: relations.function(pairs) if several else None,
        lambda: other_rows(exercise, failing),
        lambda: row_factors(exercise, failing),
        lambda: other_inputs(exercise, failing),
        lambda: relations.tied_indices(pairs),
        lambda: relations.indices(pairs),
    ):
        found = analysis()
        if found:
            if others and found.kind not in ("other_row", "inputs"):  # those two compare whole results
                found = Finding(
                    found.kind, f"{found.text} (counting the finite, written values)", found.exact
                )
            return [*findings, found]
    size = relations.spacings(pairs, others=others)
    return [*findings, size] if size else findings


def describe(exercise: Exercise, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """Everything measured about the failing runs: which cases, where they are wrong, then how. Where and
    how are measured on the runs whose values are wrong (a run can fail with right values: it wrote
    outside out, or into an input)."""
    wrong = [
        run
        for run in failing
        if run.result.shape == run.expected.shape and not close(exercise, run.case, run.result, run.expected)
    ]
    measured = which_cases(runs, failing) + where_wrong(exercise, wrong) + how_wrong(exercise, wrong)
    return measured + after_same_shape(exercise, runs, failing)
