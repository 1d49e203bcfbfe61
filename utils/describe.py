"""What a wrong result is, measured from its effects alone: the checker's description of every failure.

`utils.diagnose` names a mistake only when a prediction of it matches; learners make mistakes nobody
listed, and then a name would be a guess. This module says instead what is true of the failing runs,
computed from them: which elements are wrong or were never written (as index ranges, strides, rows or
columns), and how the wrong values relate to the right ones (a constant factor or offset, a factor that
follows the case's length, a function of the right value, the right value rounded to float16 or bfloat16
or wrapped like a small integer, the right value of another row, the right answer for other inputs).
Each sentence is checked against every failing case before it is said; a relation that holds on some
failing cases and not on others is not said. Nothing here reads the learner's code, and nothing here
names a cause.

utils.check prints these findings under every failing verdict; utils.diagnose uses `exact_relation` to
keep a trait (say, "only the float16 cases fail") from naming a mistake whose effects are something else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from utils.diagnose import Run, agree

if TYPE_CHECKING:
    from utils.exercises.core import Exercise

# How close a measured ratio or offset must be to a constant, relative to that constant, to be called it.
RELATION_RTOL = 1e-4
MAX_LISTED = 6  # indices or rows listed by name before "and k more"


@dataclass(frozen=True)
class Finding:
    """One measured fact about the failing runs. `kind` lets tests and the engine read it; `exact` marks
    a relation that fixes every wrong value (a factor, a function, another row's values), as opposed to
    a location or a size."""

    kind: str
    text: str
    exact: bool = False

    @property
    def structural(self) -> bool:
        """Does this effect rule out a mistake of rounding (a trait such as "only the float16 cases
        fail")? An exact relation other than rounding does, and so do wrong elements laid out by blocks."""
        return (self.exact and self.kind != "rounded") or self.kind == "block"


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
    if len(steps) == 1:
        return f"every {_ordinal(int(steps[0]))} {noun} from {noun} {first} ({k} of {n})"
    listed = ", ".join(str(int(i)) for i in s[:MAX_LISTED])
    more = f" and {k - MAX_LISTED} more" if k > MAX_LISTED else ""
    return f"{plural} {listed}{more} ({k} of {n})"


def _wrong_mask(exercise: Exercise, run: Run) -> torch.Tensor:
    got, want = run.result.reshape(-1), run.expected.reshape(-1)
    return ~agree(exercise, run.case, got, want, equal_nan=True)


def _block_pattern(
    failing: list[tuple[Run, torch.Tensor]], pattern: Callable[[int, int], torch.Tensor]
) -> int | None:
    """The power of two B for which, on every failing case, the wrong elements of each row of out (out's
    last axis, n long) are exactly `pattern(n, B)` in every row that has any (and some row has). None if
    no B does."""
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
            return b
    return None


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
    if not many:
        return findings
    masks = [(run, _wrong_mask(exercise, run)) for run in many]

    tail = _block_pattern(masks, _last_of_block)
    past = _block_pattern(masks, _from_block) if tail is None else None
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
    elif past is not None:
        findings.append(
            Finding(
                "block",
                f"on every failing case the elements {unit}from index {past} on are wrong and the first "
                f"{past} are right",
            )
        )
    partial = [(run, wrong) for run, wrong in masks if not wrong.all()]
    if not partial and tail is None and past is None:
        findings.append(Finding("where", "every element of every failing case is wrong"))
    for run, wrong in partial[:3]:  # the first few cases, one line each
        shape = run.case.out_shape
        unwritten = (run.result.reshape(-1) == run.garbage) & wrong
        if len(shape) == 2:
            rows, n_cols = shape
            grid = wrong.reshape(rows, n_cols)
            bad_rows = grid.any(dim=1)
            text = f"'{run.case.name}': wrong in {index_set(bad_rows.nonzero(), rows, 'row')}"
            columns = grid[bad_rows]
            if bool((columns == columns[0]).all()):
                text += f", in {index_set(columns[0].nonzero(), n_cols, 'column')} of each"
            elif bool(bad_rows.all()):
                continue  # every row wrong, each in its own columns: the table already says as much
        else:
            text = f"'{run.case.name}': wrong in {index_set(wrong.nonzero(), wrong.numel())}"
        if unwritten.any():
            never = "all of them" if bool((unwritten == wrong).all()) else f"{int(unwritten.sum())} of them"
            text += f"; {never} never written (still out's value from before the call)"
        findings.append(Finding("where", text))
    if len(partial) > 3:
        findings.append(Finding("where", f"... and {len(partial) - 3} more failing cases wrong in part"))
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
# How: what the wrong values are


@dataclass
class _Pairs:
    """The wrong, written, finite elements of one failing case: got and want, flat float64."""

    run: Run
    got: torch.Tensor
    want: torch.Tensor


def _pairs(exercise: Exercise, runs: list[Run]) -> list[_Pairs]:
    pairs = []
    for run in runs:
        got, want = run.result.reshape(-1), run.expected.reshape(-1)
        keep = _wrong_mask(exercise, run) & (got != run.garbage) & got.isfinite() & want.isfinite()
        if keep.any():
            pairs.append(_Pairs(run, got[keep], want[keep]))
    return pairs


def _near(a: torch.Tensor, b: torch.Tensor | float, rtol: float = RELATION_RTOL) -> bool:
    b = torch.as_tensor(b, dtype=torch.float64)
    return bool(((a - b).abs() <= rtol * b.abs() + 1e-300).all())


def _length(run: Run) -> int:
    """The number of elements each output reduces: N for a whole-array reduction, the row's length for
    one per row (out of shape (rows,) over an input of (rows, cols), or of the input's shape)."""
    x = run.case.inputs[0]
    return x.shape[-1] if x.dim() == 2 else x.numel()


def _rows(run: Run) -> int:
    x = run.case.inputs[0]
    return x.shape[0] if x.dim() == 2 else 1


# Constants a wrong value may be off by, with their names.
_NAMED = [
    (2.0, "2"),
    (0.5, "1/2"),
    (-1.0, "-1"),
    (math.log(2), "ln 2"),
    (1 / math.log(2), "1/ln 2 = log2(e)"),
    (math.e, "e"),
    (1 / math.e, "1/e"),
    (math.sqrt(2), "sqrt(2)"),
    (1 / math.sqrt(2), "1/sqrt(2)"),
]
# Factors that follow the case: (name, factor from the case's length n and rows).
_PER_CASE: list[tuple[str, Callable[[int, int], float]]] = [
    ("n", lambda n, r: n),
    ("1/n", lambda n, r: 1 / n),
    ("n - 1", lambda n, r: n - 1),
    ("n / (n - 1)", lambda n, r: n / (n - 1) if n > 1 else math.nan),
    ("(n - 1) / n", lambda n, r: (n - 1) / n),
    ("sqrt(n)", lambda n, r: math.sqrt(n)),
    ("1/sqrt(n)", lambda n, r: 1 / math.sqrt(n)),
    ("sqrt(n / (n - 1))", lambda n, r: math.sqrt(n / (n - 1)) if n > 1 else math.nan),
    ("sqrt((n - 1) / n)", lambda n, r: math.sqrt((n - 1) / n)),
    ("the number of rows", lambda n, r: r),
    ("1 / the number of rows", lambda n, r: 1 / r),
]
_FUNCTIONS: list[tuple[str, Callable[[torch.Tensor], torch.Tensor]]] = [
    ("the square of the right value", lambda w: w * w),
    ("the square root of the right value", lambda w: w.sqrt()),
    ("1 / the right value", lambda w: 1 / w),
    ("1 / the square root of the right value", lambda w: 1 / w.sqrt()),
    ("the absolute value of the right value", lambda w: w.abs()),
    ("exp of the right value", lambda w: w.exp()),
    ("the natural log of the right value", lambda w: w.log()),
    ("1 - the right value", lambda w: 1 - w),
]


def _constant(values: list[float]) -> float | None:
    first = values[0]
    return first if all(abs(v - first) <= RELATION_RTOL * abs(first) + 1e-300 for v in values) else None


def _name(value: float) -> str:
    for constant, name in _NAMED:
        if abs(value - constant) <= RELATION_RTOL * abs(constant):
            return name if name == f"{value:.7g}" else f"{name} ({value:.7g})"
    return f"{value:.7g}"


def _factor(pairs: list[_Pairs]) -> Finding | None:
    """got = c * want on each case, with c constant across cases or following the case's length. c is
    read off the elements whose right value is largest, and checked on every element to within
    RELATION_RTOL of c times the case's largest right value (a ratio of two near-zero values says
    nothing). All zeros is said apart: a zero result is no multiple of anything."""
    if all(bool((p.got == 0).all()) for p in pairs):
        return Finding("zero", "every wrong value is 0")
    factors = []
    for p in pairs:
        scale = p.want.abs().max()
        if scale == 0:
            return None
        big = p.want.abs() >= 0.5 * scale
        c = float((p.got[big] / p.want[big]).median())
        if c == 0 or not bool(((p.got - c * p.want).abs() <= RELATION_RTOL * abs(c) * scale).all()):
            return None
        factors.append(c)
    same = _constant(factors)
    if same is not None and same != 1:
        return Finding("factor", f"every wrong value is {_name(same)} times the right one", exact=True)
    for name, f in _PER_CASE:
        rows_and_length = [(_length(p.run), _rows(p.run)) for p in pairs]
        if all(abs(c - f(n, r)) <= RELATION_RTOL * abs(c) for c, (n, r) in zip(factors, rows_and_length)):
            return Finding(
                "factor",
                f"every wrong value is {name} times the right one, n being the number of elements each "
                "output reduces (it differs from case to case)",
                exact=True,
            )
    return None


def _offset(pairs: list[_Pairs]) -> Finding | None:
    """got = want + d, d constant across the case's elements and cases (or following the case's length)."""
    offsets = []
    for p in pairs:
        diff = p.got - p.want
        # The same offset everywhere: to within RELATION_RTOL of itself, or a float32 rounding of the
        # right values (1e-7 of the largest); never a tolerance scaled up to 1 (probabilities are 1e-5).
        spread = RELATION_RTOL * diff[0].abs() + 1e-7 * p.want.abs().max()
        if not bool(((diff - diff[0]).abs() <= spread).all()):
            return None
        offsets.append(float(diff[0]))
    same = _constant(offsets)
    if same is not None:
        return Finding("offset", f"every wrong value is the right one plus {_name(same)}", exact=True)
    for name, f in _PER_CASE[:3]:
        if all(
            abs(d - f(_length(p.run), _rows(p.run))) <= 1e-6 * max(1.0, abs(d))
            for d, p in zip(offsets, pairs)
        ):
            return Finding(
                "offset",
                f"every wrong value is the right one plus {name} (n: the elements reduced)",
                exact=True,
            )
    return None


def _function(pairs: list[_Pairs]) -> Finding | None:
    for name, f in _FUNCTIONS:
        with torch.no_grad():
            if all(_near(p.got, f(p.want)) for p in pairs if p.want.isfinite().all()):
                if all(f(p.want).isfinite().all() for p in pairs):
                    return Finding("function", f"every wrong value is {name}", exact=True)
    return None


def _rounded(pairs: list[_Pairs]) -> Finding | None:
    """got is want rounded to a narrower float, or a whole-number want wrapped like an 8- or 16-bit
    integer."""
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        if all(torch.equal(p.got, p.want.to(dtype).double()) for p in pairs):
            return Finding("rounded", f"every wrong value is the right one rounded to {name}", exact=True)
    if not all(bool((p.want == p.want.round()).all()) for p in pairs):
        return None
    for bits in (8, 16):
        m = 2.0**bits
        for signed in (False, True):

            def wrap(w: torch.Tensor, m: float = m, signed: bool = signed) -> torch.Tensor:
                v = torch.remainder(w, m)
                return torch.where(v >= m / 2, v - m, v) if signed else v

            if all(torch.equal(p.got, wrap(p.want)) for p in pairs):
                kind = "signed" if signed else "unsigned"
                return Finding(
                    "wrapped",
                    f"every wrong value is the right count wrapped around 2^{bits}, as a {bits}-bit "
                    f"{kind} integer holds it",
                    exact=True,
                )
    return None


def _spacings(pairs: list[_Pairs]) -> Finding | None:
    """How large the errors are: in units of float16's spacing at the right value when that is small,
    else the largest error next to the right value where it occurs."""
    worst16 = 0.0
    largest: tuple[float, float] = (0.0, 0.0)  # (error, right value there)
    for p in pairs:
        err = (p.got - p.want).abs()
        worst16 = max(worst16, float((err / _spacing(p.want, 11)).max()))
        i = int(err.argmax())
        if float(err[i]) > largest[0]:
            largest = (float(err[i]), float(p.want[i]))
    if worst16 <= 32:
        return Finding(
            "size",
            f"the errors are small: at most {worst16:.3g} float16 spacings at the right value (float16 "
            "keeps 11 significant bits; float32 keeps 24)",
        )
    return Finding(
        "size", f"the largest error is {largest[0]:.4g}, where the right value is {largest[1]:.4g}"
    )


def _spacing(x: torch.Tensor, bits: int) -> torch.Tensor:
    """The spacing of a float with `bits` significant bits at |x| (normal range only: enough here)."""
    _, exponent = torch.frexp(x.abs().clamp_min(1e-30))
    return torch.ldexp(torch.ones_like(x), exponent.to(torch.int64) - bits)


def _rows_close(got: torch.Tensor, want: torch.Tensor, half: bool) -> torch.Tensor:
    """Which rows of `got` equal the rows of `want` beside them: within 1e-4 relative (1e-6 of the
    case's largest value absolute), or within float16's rounding where out is float16 (`half`)."""
    scale = want.abs().nan_to_num(0.0, 0.0, 0.0).max().clamp_min(1e-30)
    rtol, atol = (2.0**-10, 2.0**-24) if half else (1e-4, 1e-6 * float(scale))
    same = ((got - want).abs() <= rtol * want.abs() + atol) | (got == want)
    return (same | (got.isnan() & want.isnan())).all(dim=-1)


def _other_rows(exercise: Exercise, failing: list[Run]) -> Finding | None:
    """On 2-D outputs: every wrong row holds the right values of another row: row 0, or the row a fixed
    shift away, the same on every case. The first wrong row of the first case proposes the rows it
    matches; each proposal is then checked on every wrong row of every failing case."""
    grids = []
    for run in failing:
        if len(run.case.out_shape) != 2:
            return None
        rows, cols = run.case.out_shape
        wrong = _wrong_mask(exercise, run).reshape(rows, cols).any(dim=1).nonzero().flatten()
        half = run.case.out_dtype == torch.float16
        grids.append((run.result.reshape(rows, cols), run.expected.reshape(rows, cols), wrong, half))
    got, want, wrong, half = grids[0]
    if not len(wrong):
        return None
    first = int(wrong[0])
    matching = _rows_close(got[first].expand_as(want), want, half).nonzero().flatten().tolist()
    proposals = [j for j in matching if j != first]

    def holds(source: Callable[[torch.Tensor, int], torch.Tensor]) -> bool:
        for got, want, wrong, half in grids:
            rows_from = source(wrong, len(want))
            if ((rows_from < 0) | (rows_from >= len(want))).any() or (rows_from == wrong).any():
                return False
            if not bool(_rows_close(got[wrong], want[rows_from], half).all()):
                return False
        return True

    if 0 in proposals and holds(lambda w, rows: torch.zeros_like(w)):
        return Finding("other_row", "every wrong row holds row 0's right values", exact=True)
    rows = len(want)
    for k in sorted({j - first for j in proposals} | {j - first - rows for j in proposals}, key=abs):

        def shifted(w: torch.Tensor, rows: int, k: int = k) -> torch.Tensor:
            return (w + k) % rows  # the last row's neighbour is the first: a (row + 1) % n_rows slip

        if holds(shifted):
            sign = "+" if k > 0 else "-"
            text = (
                f"every wrong row holds the right values of another row: row i holds row i {sign} {abs(k)}'s"
            )
            if any(bool(((w + k < 0) | (w + k >= len(want))).any()) for _, want, w, _ in grids):
                text += ", counting round from the last row to the first"
            return Finding("other_row", text, exact=True)
    return None


def _other_inputs(exercise: Exercise, failing: list[Run]) -> Finding | None:
    """The result is the right answer for changed inputs: x scaled by a named constant (exp2 without the
    log2(e) factor computes the function of x * ln 2), or two inputs of one shape swapped."""
    runs = [run for run in failing if run.result.numel() > 0]
    if not runs:
        return None

    def matches(make: Callable[[tuple[torch.Tensor, ...]], tuple[torch.Tensor, ...]]) -> bool:
        for run in runs:
            try:
                changed = make(tuple(x.double() for x in run.case.inputs))
                want = exercise.reference(*changed).reshape(-1)
            except Exception:  # changed inputs the reference cannot take: no evidence
                return False
            got = run.result.reshape(-1)
            if got.shape != want.shape or not bool(
                agree(exercise, run.case, got, want, equal_nan=True).all()
            ):
                return False
        return True

    for c, name in _NAMED[:5]:

        def scaled(xs: tuple[torch.Tensor, ...], c: float = c) -> tuple[torch.Tensor, ...]:
            return (xs[0] * c, *xs[1:])

        if c != -1.0 and matches(scaled):
            return Finding("inputs", f"the result is the right answer for x * {name}", exact=True)
    arity = len(runs[0].case.inputs)
    for i in range(arity):
        for j in range(i + 1, arity):
            same_shape = all(run.case.inputs[i].shape == run.case.inputs[j].shape for run in runs)

            def swap(xs, i=i, j=j):
                ys = list(xs)
                ys[i], ys[j] = ys[j], ys[i]
                return tuple(ys)

            if same_shape and matches(swap):
                return Finding(
                    "inputs",
                    f"the result is the right answer with inputs {i + 1} and {j + 1} swapped",
                    exact=True,
                )
    return None


def _nans(exercise: Exercise, failing: list[Run]) -> Finding | None:
    count, total = 0, 0
    for run in failing:
        got, want = run.result.reshape(-1), run.expected.reshape(-1)
        wrong = _wrong_mask(exercise, run)
        count += int((wrong & got.isnan() & ~want.isnan()).sum())
        total += int(wrong.sum())
    if count:
        return Finding("nan", f"{count} of the {total} wrong values are NaN where the right value is not")
    return None


def _indices(pairs: list[_Pairs]) -> Finding | None:
    """Wrong values that are all whole numbers below the case's length, where the right ones are not:
    said only where there are at least 4 different ones, some past 16 (a variance rounded to a whole
    number, 0 or 8, is not an index)."""
    got = torch.cat([p.got for p in pairs])
    if len(got.unique()) < 4 or got.max() <= 16:
        return None
    if all(
        bool((p.got == p.got.round()).all() and (p.got >= 0).all() and (p.got < p.run.case.n).all())
        and not bool((p.want == p.want.round()).all())
        for p in pairs
    ):
        return Finding("indices", "every wrong value is a whole number from 0 to N - 1, as an index would be")
    return None


def how_wrong(exercise: Exercise, failing: list[Run]) -> list[Finding]:
    """What the wrong values are, as far as one relation holds on every failing case."""
    findings = [f for f in (_nans(exercise, failing),) if f]
    pairs = _pairs(exercise, failing)
    if not pairs:
        return findings
    for analysis in (
        lambda: _rounded(pairs),
        lambda: _factor(pairs),
        lambda: _offset(pairs),
        lambda: _function(pairs),
        lambda: _other_rows(exercise, failing),
        lambda: _other_inputs(exercise, failing),
        lambda: _indices(pairs),
    ):
        found = analysis()
        if found:
            return [*findings, found]
    size = _spacings(pairs)
    return [*findings, size] if size else findings


def which_cases(runs: list[Run], failing: list[Run]) -> list[Finding]:
    """A split of the cases by size: every case past a power of two fails and every case up to it
    passes, or the other way round; a sign that one code path (one program, one tile, a loop taken
    or not) is wrong and the other right. Size: the input's elements, or the row's length."""
    if not failing or len(failing) == len(runs):
        return []
    findings = []
    for name, size in (("elements", lambda run: run.case.inputs[0].numel()), ("columns", _length)):
        if name == "columns" and all(run.case.inputs[0].dim() == 1 for run in runs):
            continue
        bad = {size(run) for run in failing}
        good = {size(run) for run in runs if run not in failing}
        if max(good) < min(bad):
            text = (
                f"every case with more than {max(good)} {name} fails, and every case with at most that passes"
            )
            findings.append(Finding("cases", text))
            break
        if max(bad) < min(good):
            findings.append(
                Finding(
                    "cases",
                    f"every case with at most {max(bad)} {name} fails, and every case with more passes",
                )
            )
            break
    return findings


def describe(exercise: Exercise, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """Everything measured about the failing runs: which cases, where they are wrong, then how."""
    wrong = [run for run in failing if run.result.shape == run.expected.shape]
    return which_cases(runs, failing) + where_wrong(exercise, wrong) + how_wrong(exercise, wrong)


def exact_relation(findings: list[Finding]) -> Finding | None:
    """The first finding that fixes every wrong value, if any."""
    return next((f for f in findings if f.exact), None)
