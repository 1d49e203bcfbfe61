"""How the wrong values of failing runs relate to the right ones: the "how" half of utils.checker.describe.

Each analysis states one relation (a constant factor or one that follows the case's length, an offset,
a function of the right value, the right value rounded to float16 or bfloat16 or wrapped like a small
integer, another row's right values, the right answer for changed inputs, whole numbers like indices)
and says it only if it holds on every wrong element of every failing case; otherwise the size of the
errors. `Finding` is the form every description takes, here because this module is the lower of the
two (utils.checker.describe imports it from here).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from utils.checker.judge import Run, agree
from utils.checker.model import Exercise

# How close a measured ratio or offset must be to a constant, relative to that constant, to be called it.
RELATION_RTOL = 1e-4


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


def wrong_mask(exercise: Exercise, run: Run) -> torch.Tensor:
    got, want = run.result.reshape(-1), run.expected.reshape(-1)
    return ~agree(exercise, run.case, got, want)


@dataclass
class Pairs:
    """The wrong, written, finite elements of one failing case: got and want, flat float64."""

    run: Run
    got: torch.Tensor
    want: torch.Tensor


def pairs(exercise: Exercise, runs: list[Run]) -> list[Pairs]:
    pairs = []
    for run in runs:
        got, want = run.result.reshape(-1), run.expected.reshape(-1)
        keep = wrong_mask(exercise, run) & (got != run.garbage) & got.isfinite() & want.isfinite()
        if keep.any():
            pairs.append(Pairs(run, got[keep], want[keep]))
    return pairs


def _near(a: torch.Tensor, b: torch.Tensor | float, rtol: float = RELATION_RTOL) -> bool:
    b = torch.as_tensor(b, dtype=torch.float64)
    return bool(((a - b).abs() <= rtol * b.abs() + 1e-300).all())


def reduced_length(run: Run) -> int:
    """The number of elements each output reduces: N for a whole-array reduction, the row's length for
    one per row (out of shape (rows,) over an input of (rows, cols), or of the input's shape)."""
    x = run.case.inputs[0]
    return x.shape[-1] if x.dim() == 2 else x.numel()


def row_count(run: Run) -> int:
    """The rows of a 2-D input, 1 for a 1-D one."""
    x = run.case.inputs[0]
    return x.shape[0] if x.dim() == 2 else 1


# Constants a wrong value may be off by, with their names.
NAMED_CONSTANTS = [
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
    for constant, name in NAMED_CONSTANTS:
        if abs(value - constant) <= RELATION_RTOL * abs(constant):
            return name if name == f"{value:.7g}" else f"{name} ({value:.7g})"
    return f"{value:.7g}"


def factor(pairs: list[Pairs]) -> Finding | None:
    """got = c * want on each case, c constant across cases or following the case's length; c read off the
    largest right values, checked on every element to within RELATION_RTOL of c times the largest (a ratio
    of two near-zero values says nothing). All zeros is said apart: no multiple of anything."""
    if all(bool((p.got == 0).all()) for p in pairs):
        return Finding("zero", "every wrong value is 0")
    factors = []
    misses = []  # each case's largest departure from c * want, as a fraction of its largest right value
    for p in pairs:
        scale = p.want.abs().max()
        if scale == 0:
            return None
        big = p.want.abs() >= 0.5 * scale
        c = float((p.got[big] / p.want[big]).median())
        miss = float((p.got - c * p.want).abs().max() / scale)
        if c == 0 or miss > RELATION_RTOL * abs(c):
            return None
        factors.append(c)
        misses.append(miss)
    same = _constant(factors)
    # Said only when it stands out from how far the values stray from it: a fp16 rounding gives ratios of
    # 0.99996 to 1.00002 from case to case, within RELATION_RTOL of each other, and no one factor.
    spread = max(max(abs(f - same) for f in factors), max(misses)) if same is not None else 0.0
    if same is not None and same != 1 and spread <= 0.1 * abs(same - 1):
        return Finding("factor", f"every wrong value is {_name(same)} times the right one", exact=True)
    for name, f in _PER_CASE:
        rows_and_length = [(reduced_length(p.run), row_count(p.run)) for p in pairs]
        expected = [f(n, r) for n, r in rows_and_length]
        if all(
            abs(c - e) <= RELATION_RTOL * abs(c) and max(abs(c - e), miss) <= 0.1 * abs(e - 1)
            for c, e, miss in zip(factors, expected, misses)
        ):
            # "n" is named where the factor has one; the number of rows is named in full
            n_is = "" if "rows" in name else ", n being the number of elements each output reduces"
            said = f"every wrong value is {name} times the right one{n_is} (it differs from case to case)"
            return Finding("factor", said, exact=True)
    return None


def offset(pairs: list[Pairs], several: bool = True) -> Finding | None:
    """got = want + d: d what out held before the call (one wrong value is enough: no mistake of the values
    gives out's garbage), or, given `several`, d constant across elements and cases (or the case's length)."""
    if pairs and all(_near(p.got - p.want, p.run.garbage, 1e-5) for p in pairs):  # float32 sums onto it round
        added = "every wrong value is the right one plus what out held before the call: the result was added"
        return Finding("offset", f"{added} onto out's old contents", exact=True)
    if not several:
        return None
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
            abs(d - f(reduced_length(p.run), row_count(p.run))) <= 1e-6 * max(1.0, abs(d))
            for d, p in zip(offsets, pairs)
        ):
            return Finding(
                "offset",
                f"every wrong value is the right one plus {name} (n: the elements reduced)",
                exact=True,
            )
    return None


def function(pairs: list[Pairs]) -> Finding | None:
    """got = f(want) for one of _FUNCTIONS on every wrong element, where f moves some right value (|w| is
    w itself on positive values; a rounding error near w is no function of it)."""
    for name, f in _FUNCTIONS:
        with torch.no_grad():
            if all(_near(p.got, f(p.want)) for p in pairs if p.want.isfinite().all()):
                moved = not all(_near(f(p.want), p.want) for p in pairs)
                if moved and all(f(p.want).isfinite().all() for p in pairs):
                    return Finding("function", f"every wrong value is {name}", exact=True)
    return None


def rounded(pairs: list[Pairs]) -> Finding | None:
    """got is want rounded to a narrower float, or a whole-number want wrapped like an 8- or 16-bit int."""
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

            # one wrong 0 is the wrap of every multiple of 2^bits: no evidence
            lone_zero = sum(len(p.got) for p in pairs) == 1 and not any(bool(p.got.any()) for p in pairs)
            if not lone_zero and all(torch.equal(p.got, wrap(p.want)) for p in pairs):
                kind = "signed" if signed else "unsigned"
                return Finding(
                    "wrapped",
                    f"every wrong value is the right count wrapped around 2^{bits}, as a {bits}-bit "
                    f"{kind} integer holds it",
                    exact=True,
                )
    return None


def spacings(pairs: list[Pairs], others: bool = False) -> Finding | None:
    """How large the errors are: in units of float16's spacing at the right value when that is small,
    else the largest error next to the right value where it occurs. The pairs hold the finite, written
    wrong values only; `others`: some wrong values are not among them (NaN, inf, never written), and the
    sentence says that it speaks of the rest."""
    # In the spacings of the failing inputs' narrowest float: float16's where one is 16-bit, float32's where
    # all are float32 (float16 units there point at a precision the case never had)
    narrow = any(x.dtype in (torch.float16, torch.bfloat16) for p in pairs for x in p.run.case.inputs)
    name, bits = ("float16", 11) if narrow else ("float32", 24)
    worst = 0.0
    largest: tuple[float, float, float] = (0.0, 0.0, 0.0)  # (error, right value there, value got there)
    for p in pairs:
        err = (p.got - p.want).abs()
        worst = max(worst, float((err / _spacing(p.want, bits)).max()))
        i = int(err.argmax())
        if float(err[i]) > largest[0]:
            largest = (float(err[i]), float(p.want[i]), float(p.got[i]))
    where = " of the finite values written" if others else ""
    if worst <= 32:
        return Finding(
            "size",
            f"the errors{where} are small: at most {worst:.3g} {name} spacings at the right value "
            f"({name} keeps {bits} significant bits)",
        )
    got = f" and the result {largest[2]:.4g}" if f"{largest[0]:.4g}" == f"{abs(largest[1]):.4g}" else ""
    return Finding(
        "size",
        f"the largest error{where} is {largest[0]:.4g}, where the right value is {largest[1]:.4g}{got}",
    )


def _spacing(x: torch.Tensor, bits: int) -> torch.Tensor:
    """The spacing of a float with `bits` significant bits at |x| (normal range only: enough here)."""
    _, exponent = torch.frexp(x.abs().clamp_min(1e-30))
    return torch.ldexp(torch.ones_like(x), exponent.to(torch.int64) - bits)


def nans(exercise: Exercise, failing: list[Run]) -> Finding | None:
    """NaN where the right value is a number, or a number where it is NaN (a NaN in x that a comparison
    such as x > 0 or x == x dropped on its way)."""
    count, lost, total = 0, 0, 0
    for run in failing:
        got, want = run.result.reshape(-1), run.expected.reshape(-1)
        wrong = wrong_mask(exercise, run)
        count += int((wrong & got.isnan() & ~want.isnan()).sum())
        lost += int((wrong & ~got.isnan() & want.isnan()).sum())
        total += int(wrong.sum())
    if count:  # and whether x held what makes NaN of an operation that is right on numbers
        held = all(any(not bool(x.isfinite().all()) for x in run.case.inputs) for run in failing)
        inputs = ", and the inputs of every failing case hold NaN or an infinity" if held else ""
        return Finding(
            "nan", f"{count} of the {total} wrong values are NaN where the right value is not{inputs}"
        )
    if lost:
        lost_nan = f"{lost} of the {total} wrong values are numbers where the right value is NaN"
        return Finding("nan", f"{lost_nan}: a NaN of the input was lost")
    return None


def indices(pairs: list[Pairs]) -> Finding | None:
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


def tied_indices(pairs: list[Pairs]) -> Finding | None:
    """Where the right value is an index into a 1-D input (an argmax's): every wrong value is an index
    too, of another element that holds the same value as the one at the right index (NaN counting as
    equal to NaN), in every failing case: the result is another of the tied elements."""

    def tied(p: Pairs) -> bool:
        if len(p.run.case.inputs) != 1 or p.run.case.inputs[0].dim() != 1:
            return False
        x, n = p.run.case.inputs[0].double(), p.run.case.n
        whole = (p.got == p.got.round()) & (p.want == p.want.round())
        if not bool((whole & (p.got >= 0) & (p.got < n) & (p.want >= 0) & (p.want < n)).all()):
            return False
        a, b = x[p.got.long()], x[p.want.long()]
        return bool(((a == b) | (a.isnan() & b.isnan())).all())

    if not pairs or not all(tied(p) for p in pairs):
        return None
    later = (
        " (a later one, in every failing case)" if all(bool((p.got > p.want).all()) for p in pairs) else ""
    )
    nan = any(bool(p.run.case.inputs[0][p.want.long()].isnan().any()) for p in pairs)  # NaN == NaN is False
    same = "equal to the one at the right index" + (", or a NaN where that one is a NaN" if nan else "")
    return Finding(
        "ties",
        f"every wrong value is the index of another element {same}{later}: the maximum was found, and a tie "
        "was broken towards another of its copies",
        exact=True,
    )
