"""logsumexp (notebook 06): its cases, the per-program combines a learner may get wrong, its tolerance
and its entry. Its messages are the transforms family's (utils.checker.families.transforms)."""

from __future__ import annotations

import math

import numpy as np
import torch

from utils.checker.data import (
    describe,
    extra_cases,
    values,
    vector_cases,
)
from utils.checker.families.reductions import MAX_RACE_PROGRAMS, scalar_predictions
from utils.checker.families.transforms import MESSAGES, TRANSFORM_WORDS
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_each, race
from utils.checker.tiled import REDUCTIONS
from utils.checker.tolerance import FP32_EPS

_LOGSUMEXP = dict(
    TRANSFORM_WORDS,
    identity="other=float('-inf'): exp(-inf) = 0 adds nothing",
    reset="",
    nan_hint="exp(-inf - (-inf)) is NaN: a running max that is still -inf (a lane or a program that has "
    "seen only masked lanes or -inf entries, or an input of -inf only) must not be subtracted from itself, "
    "in the partials or in the combine; shift by 0 there, tl.where(m == float('-inf'), 0.0, m). So are "
    "inf / inf and 0 / 0, where an exp overflowed or vanished on its own: a rescale written exp(m) / "
    "exp(m_new), not exp(m - m_new). The cases that fail say which: those with -inf, or those of large "
    "values.",
)


def _logsumexp_cases(large: bool) -> list[Case]:
    # "hot" and "cold" values make exp(x) overflow or underflow in float32 unless the max is subtracted;
    # masked logits are -inf.
    extreme = [(1000, "hot"), (3, "hot"), (5000, "cold"), (2**15 + 9, "hot")]
    masked = [(1, "all -inf"), (5000, "all -inf"), (50_000, "-inf first"), (12288, "-inf, then near -1000")]
    # more than 64 partials at any tile up to 4,096 (257 at 1,024): a combine that reads a fixed few fails;
    # its last 3 values 30, so that a combine that leaves out even the last partial (256 of 257) fails too
    many = values(2**18 + 3, "mixed", seed=750)
    many[-3:] = 30.0
    many_tiles = Case(describe(many.numel(), "mixed, the last 3 values 30"), (many,), (1,))
    # -inf for 40,000 values, then values: with 8 programs (notebook 06's persistent grid on a CPU) and tiles
    # of 4,096, a program's first two tiles are -inf, so a guard on the running max in its first tile alone
    # leaves exp(-inf - (-inf)) = NaN in the second
    long_run = values(70_000, "mixed", seed=770)
    long_run[:40_000] = -math.inf
    long_neg_inf = Case(describe(long_run.numel(), "-inf for 40000, then values"), (long_run,), (1,))
    return (
        vector_cases(large)
        + extra_cases(extreme, seed=600, traits={"extreme"})
        + extra_cases(masked, seed=700)
        + [many_tiles]
        + extra_cases([(16384, "falling by 100")], seed=760)
        + [long_neg_inf]
    )


_PROGRAM_COUNTS = sorted({2**k for k in range(11)} | {3, 5, 6, 7, 12, 24, 40, 80, 132, 264, 528, 1056})
_PERSISTENT_BLOCKS = [b for b in POWERS_OF_TWO if b >= 64]


def shifted(m):
    """The shift of a running max m (a float, an array or a tensor): m, or 0 where m is still -inf, as a
    right kernel shifts (exp(-inf - (-inf)) is NaN; exp(-inf - 0) is 0). The predictions shift the same
    way, so that a mistake's prediction still holds on a run of masked logits."""
    if isinstance(m, torch.Tensor):
        return torch.where(m == -math.inf, 0.0, m)
    return np.where(m == -math.inf, 0.0, m)


def as_rows(*alternatives) -> torch.Tensor:
    """Alternatives (numbers, or arrays shaped like out) as prediction rows."""
    return torch.from_numpy(np.array(alternatives, dtype=np.float64).reshape(len(alternatives), -1))


def by_program(per_tile: np.ndarray, programs: int, fill: float) -> np.ndarray:
    """Per-tile values laid out (rounds, programs), as a persistent grid of `programs` programs meets them:
    column p holds program p's tiles in the order it reduces them; places past the last tile hold `fill`."""
    count = len(per_tile)
    rounds = -(-count // programs)
    laid = np.full(rounds * programs, fill)
    laid[:count] = per_tile
    return laid.reshape(rounds, programs)


def grids(n: int, b: int):
    """(variant, programs) for each grid a kernel with tiles of b may run on: one tile per program
    (variant b), then each persistent grid (variant (b, G), on min(G, tiles) programs)."""
    count = -(-n // b)
    yield b, count
    if b in _PERSISTENT_BLOCKS:
        for programs in _PROGRAM_COUNTS:
            yield (b, programs), min(programs, count)


def _np_tiled(x: np.ndarray, b: int, fill: float) -> np.ndarray:
    """x in rows of b, the last row padded with `fill` (what masked lanes load)."""
    return np.concatenate([x, np.full(-len(x) % b, fill)]).reshape(-1, b)


def _logsumexp_combines(m_t: np.ndarray, s_t: np.ndarray, grid: int) -> dict[str, torch.Tensor]:
    """What the mistakes of combining programs' (max, sum) pairs give on `grid` programs, from each tile's
    max m_t and s_t = sum(exp(x - m_t)): {code: rows}. "store_race any order": every program's partial."""
    m, s = by_program(m_t, grid, -math.inf), by_program(s_t, grid, 0.0)
    m_p = m.max(0)  # each program's max, and its sum of exp(x - m_p) computed right
    s_p = (s * np.exp(m - shifted(m_p))).sum(0)
    top = m_p.max()
    out = {}
    if grid > 1:
        partials = m_p + np.log(s_p)  # each program's logsumexp
        out["unscaled_partial_sums"] = as_rows(top + np.log(s_p.sum()))  # sum(s_p), not sum(s_p exp(m_p - M))
        out["logs_added"] = as_rows(partials.sum())  # log(a) + log(b) for log(a + b)
        out["store_race"] = as_rows(partials[-1])  # the last program's store stays (the interpreter's order)
        if grid <= MAX_RACE_PROGRAMS:
            out["store_race any order"] = torch.from_numpy(partials.reshape(-1, 1))
    if len(m) > 1:  # a program met several tiles: s not rescaled as its running max grew
        running = np.maximum.accumulate(m, axis=0)
        s_run = np.where(s > 0, s * np.exp(m - running), 0.0).sum(0)
        out["running_sum_not_rescaled"] = as_rows(top + np.log((s_run * np.exp(m_p - shifted(top))).sum()))
    return out


def _logsumexp_program_predictions(x: torch.Tensor, out: Predictions) -> None:
    """The mistakes of a kernel whose programs each keep a (max, sum) pair: the sums combined without
    rescaling them to one max, a running sum not rescaled as the running max grows (a persistent kernel),
    the programs' logs added, a plain store."""
    xs = x.numpy()
    n = len(xs)
    with np.errstate(divide="ignore", invalid="ignore"):
        for b in POWERS_OF_TWO:
            if b >= n:  # one tile: one program, nothing to combine
                continue
            t = _np_tiled(xs, b, -math.inf)
            m_t = t.max(1)
            s_t = np.exp(t - shifted(m_t)[:, None]).sum(1)
            combined: dict[int, dict[str, torch.Tensor]] = {}
            for variant, grid in grids(n, b):
                if grid not in combined:
                    combined[grid] = _logsumexp_combines(m_t, s_t, grid)
                for code, rows in combined[grid].items():
                    if code.startswith("store_race"):
                        if variant == b:  # scalar_predictions has the race of one tile per program
                            continue
                        if code.endswith("any order"):
                            predict_each(out, "store_race", race(variant), rows)
                            continue
                    predict_each(out, code, variant, rows)


LOGSUMEXP_MESSAGES = {
    **MESSAGES,
    "max_met_zero": "the result is what a maximum of 0 gives where every value of x is below 0 (exp(x - 0) "
    "is 0 in float32 below about -103, where exp(x - max) is not): the maximum met a 0 that is not in x. "
    "A running maximum that started at 0 (start it at float('-inf')), or masked lanes loaded with "
    "other=0.0 into the max, do that.",
}


def _logsumexp_predictions(case: Case, on_gpu: bool) -> Predictions:
    x = case.inputs[0].double()
    out = scalar_predictions(case, "logsumexp")
    naive = torch.exp(x.float()).sum().log().double()  # exp(x) in float32, with no max subtracted
    predict(out, "exp_overflow", None, naive, math.inf, -math.inf)
    predict(out, "max_not_added_back", None, x.logsumexp(0) - shifted(x.max()))
    # The max taken as at least 0 (a running max that starts at 0, or masked lanes of 0.0 in the max pass
    # only): exp(x - 0) in float32 is 0 below about -103, so x whose values all lie there gives -inf
    floor = torch.clamp(x.max(), min=0.0)
    predict(out, "max_met_zero", None, floor + torch.exp(x.float() - floor.float()).double().sum().log())
    # A padding v in the exp pass only (the max pass padded right): each masked lane adds exp(v - m), which
    # float32 evaluates as inf once v - m > 88.7.
    m, n = x.max(), x.numel()
    shift = shifted(m)
    for b in POWERS_OF_TWO:
        for v in REDUCTIONS["logsumexp"].wrong_others if n % b else ():
            extra = (b - n % b) * torch.exp(torch.tensor(v - shift.item(), dtype=torch.float32)).double()
            predict(
                out, "wrong_sentinel", (b, "exp pass", v), m + torch.log(torch.exp(x - shift).sum() + extra)
            )
    _logsumexp_program_predictions(x, out)
    return out


def _logsumexp_tolerance(case: Case) -> tuple[float, float]:
    """log(S) + m: the sum S of exp(x - m) is in [1, N], so its rounding error is absolute in log(S)."""
    terms = case.n
    return 16 * FP32_EPS * math.sqrt(terms + 1), 16 * FP32_EPS


EXERCISES = [
    Exercise(
        id="logsumexp",
        signature="logsumexp(x, out)",
        description="out[0] = log(sum(exp(x))), without overflow: m + log(sum(exp(x - m))) with m = max(x)",
        hint='start from the two-pass logsumexp of "shift before you sum"; in one pass, watch the '
        "running sum: it was taken against the maximum so far, which can still grow. Keep one "
        "maximum per program: a lane that saw only masked lanes holds -inf, and -inf - (-inf) is "
        "NaN.",
        cases=_logsumexp_cases,
        reference=lambda x: x.logsumexp(0).reshape(1),
        compare="sum",
        predictions=_logsumexp_predictions,
        stale=lambda expected, garbage: torch.logaddexp(expected, torch.tensor(garbage, dtype=torch.float64)),
        mistakes=mistakes(LOGSUMEXP_MESSAGES, **_LOGSUMEXP),
        tolerance=_logsumexp_tolerance,
        trait_mistakes={"extreme": "exp_overflow"},
    ),
]
