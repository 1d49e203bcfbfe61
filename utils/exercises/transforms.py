"""The transforms family (notebooks 04 and 06): a reduction of f(x), sometimes with a final step.

The L2 norm (square, then the sqrt of the sum), the L1 norm (abs), the count of non-zeros (a
predicate), logsumexp (exp after subtracting the max) and the mean and variance (counts, means and
squared deviations, merged). Their mistakes are the sum's (utils.exercises.totals), plus the
transform's: applied after the reduction, the final step taken per program, the max never subtracted,
a variance that cancels.
"""

from __future__ import annotations

import math

import torch

from utils.exercises.core import (
    FP32_EPS,
    POWERS_OF_TWO,
    SUM_WORDS,
    TILE_MESSAGES,
    Case,
    Exercise,
    Predictions,
    extra_cases,
    mistakes,
    padded,
    predict,
    tiles,
    vector_cases,
)
from utils.exercises.totals import REDUCTIONS, scalar_predictions

MESSAGES = {
    **TILE_MESSAGES,
    "transform_after_reduce": "{transform} was applied after the reduction: apply it to each element inside "
    "the reduction operand, {fused}.",
    "finish_before_combine": "{finish} was taken per program before the combine, but {finish_rule}: combine "
    "the programs' sums first, then take {finish} once (on the host).",
    "missing_finish": "out holds the combined sum: take {finish} once, after the combine (on the host).",
    "wrong_predicate": "the count is of the wrong elements: count x != 0 (negative values are non-zero; "
    "-0.0 == 0 is zero).",
    "exp_overflow": "exp(x) overflowed (x > 88.7) or underflowed (x < -103) in float32: subtract the maximum "
    "m first and compute m + log(sum(exp(x - m))).",
    "max_not_added_back": "the maximum m was subtracted but not added back: logsumexp(x) = m + "
    "log(sum(exp(x - m))).",
    "unbiased_variance": "the variance was divided by n - 1: this exercise wants the population variance, "
    "divided by n (torch.var(x, correction=0)).",
    "std_instead_of_variance": "out[1] holds the standard deviation: store the variance (no sqrt).",
    "outputs_swapped": "out[0] and out[1] are swapped: out[0] is the mean, out[1] the variance.",
    "counted_masked_lanes": "masked lanes were counted as elements: count only offsets < n (for example "
    "tl.sum(mask.to(tl.float32))), or divide by n.",
    "cancellation": "the variance is wrong only where the mean is large next to the spread: sum(x^2)/n - "
    "mean^2 subtracts two nearly equal large numbers and float32 keeps too few digits. "
    "Accumulate deviations instead: Welford / Chan's combine, or sums of x - shift with "
    "shift close to the mean (x[0] will do).",
    "spread_between_tiles": "the variance is too small only where the tiles' means differ (sorted input): "
    "merging two partials must add the spread between their means, "
    "M2 = M2_a + M2_b + delta^2 * n_a * n_b / (n_a + n_b) with delta = mean_b - "
    "mean_a, not just M2_a + M2_b.",
}
_WORDS = dict(
    transform="the transform",
    fused="tl.sum(f(x), axis=0)",
    finish="the final step",
    finish_rule="the final step of a sum is not the sum of the final steps",
)
_L2 = dict(
    SUM_WORDS,
    transform="the square",
    fused="tl.sum(x * x, axis=0)",
    finish="the sqrt",
    finish_rule="sqrt(a) + sqrt(b) != sqrt(a + b)",
)
_L1 = dict({**SUM_WORDS, **_WORDS}, transform="the absolute value", fused="tl.sum(tl.abs(x), axis=0)")
_COUNT = dict({**SUM_WORDS, **_WORDS}, identity="other=0.0, so that a masked lane counts as zero")
_LOGSUMEXP = dict(
    _WORDS,
    identity="other=float('-inf'): exp(-inf) = 0 adds nothing",
    reset="",
    nan_hint="exp(-inf - (-inf)) is NaN. A lane (or program) whose running max is still -inf "
    "because it has seen only masked lanes must not subtract it from itself: take one "
    "scalar max per tile, or guard with tl.where(m == float('-inf'), ...).",
)
_MEAN_VAR = dict(
    {**SUM_WORDS, **_WORDS},
    identity="other=0.0, and count only the unmasked lanes",
    reset="zero the scratch before the launch",
    nan_hint="a count of 0 in a division (a program or tile with no elements), or 0/0 in "
    "combining two partials.",
)


def _scaled_cases(large: bool) -> list[Case]:
    """The vector cases with "large" at 1e15, not 1e20: squares of 1e20 overflow float32 (3.4e38)."""
    return [
        Case(c.name.replace("large", "large (1e15)"), (c.inputs[0] * 1e-5,), c.out_shape)
        if "large" in c.name
        else c
        for c in vector_cases(large)
    ]


def _count_cases(large: bool) -> list[Case]:
    sparse = [(1, "sparse"), (5, "sparse"), (1000, "sparse"), (4097, "sparse"), (2**15 + 5, "sparse")]
    if large:
        sparse.append((2**22 + 3, "sparse"))
    return vector_cases(large) + extra_cases(sparse, seed=500)


def _logsumexp_cases(large: bool) -> list[Case]:
    # "hot" and "cold" values make exp(x) overflow or underflow in float32 unless the max is subtracted.
    extreme = [(1000, "hot"), (3, "hot"), (5000, "cold"), (2**15 + 9, "hot")]
    return vector_cases(large) + extra_cases(extreme, seed=600, traits={"extreme"})


def _mean_var_cases(large: bool) -> list[Case]:
    # N >= 2 (a variance of one value is 0 either way); "offset" values sit at 1e4 with a spread of 1.
    # In sorted inputs the tiles' means differ, so a merge that drops the spread between them shows.
    cases = [
        Case(c.name, c.inputs, (2,), traits=frozenset({"sorted"} if c.name.endswith("scending") else ()))
        for c in _scaled_cases(large)
        if c.n > 1
    ]
    return cases + extra_cases(
        [(1000, "offset"), (4096, "offset"), (2**15 + 3, "offset")],
        seed=700,
        traits={"offset"},
        out_shape=(2,),
    )


def _transformed_predictions(case: Case, transform, finish=lambda s: s) -> Predictions:
    """A sum of transform(x) (then `finish` on the host): the sum's mistakes, and the transform's."""
    x = case.inputs[0].double()
    fx = transform(x)
    out = {
        code: {variant: finish(results) for variant, results in variants.items()}
        for code, variants in scalar_predictions(Case(case.name, (fx,), (1,)), "sum").items()
    }
    predict(out, "missing_finish", None, fx.sum())  # e.g. the sum of squares, without the sqrt
    predict(out, "transform_after_reduce", None, finish(transform(x.sum())))  # on the host, after
    for b in POWERS_OF_TWO[1:]:  # with one element per tile, the transform of a tile's sum is right
        tiled = tiles(x, b, 0.0)
        after = transform(tiled.sum(dim=1)).sum()  # per program: transform of the tile's sum
        predict(out, "transform_after_reduce", b, finish(after), after)
        early = finish(transform(tiled).sum(dim=1)).sum()  # per program: finished before the combine
        predict(out, "finish_before_combine", b, early, finish(early))
    return out


def _l2_predictions(case: Case) -> Predictions:
    return _transformed_predictions(case, lambda t: t * t, torch.sqrt)


def _l1_predictions(case: Case) -> Predictions:
    out = _transformed_predictions(case, torch.abs)
    for code in ("missing_finish", "finish_before_combine"):  # an L1 norm has no final step
        del out[code]
    return out


def _count_predictions(case: Case) -> Predictions:
    x = case.inputs[0].double()
    out = scalar_predictions(Case(case.name, ((x != 0).double(),), (1,)), "sum")
    for name, chosen in (("> 0", x > 0), ("< 0", x < 0), ("== 0", x == 0)):
        predict(out, "wrong_predicate", name, chosen.sum())
    return out


def _logsumexp_predictions(case: Case) -> Predictions:
    x = case.inputs[0].double()
    out = scalar_predictions(case, "logsumexp")
    naive = torch.exp(x.float()).sum().log().double()  # exp(x) in float32, with no max subtracted
    predict(out, "exp_overflow", None, naive, math.inf, -math.inf)
    predict(out, "max_not_added_back", None, x.logsumexp(0) - x.max())
    # A padding v in the exp pass only (the max pass padded right): each masked lane adds exp(v - m), which
    # float32 evaluates as inf once v - m > 88.7.
    m, n = x.max(), x.numel()
    for b in POWERS_OF_TWO:
        for v in REDUCTIONS["logsumexp"].wrong_others if n % b else ():
            extra = (b - n % b) * torch.exp(torch.tensor(v - m.item(), dtype=torch.float32)).double()
            predict(out, "wrong_sentinel", (b, "exp pass", v), m + torch.log(torch.exp(x - m).sum() + extra))
    return out


def _mean_var(x: torch.Tensor) -> torch.Tensor:
    return torch.stack([x.mean(), x.var(correction=0)])


def _mean_var_predictions(case: Case) -> Predictions:
    x = case.inputs[0].double()
    n = x.numel()
    mean, var = _mean_var(x)
    out: Predictions = {}
    predict(out, "unbiased_variance", None, torch.stack([mean, var * n / (n - 1)]))
    predict(out, "std_instead_of_variance", None, torch.stack([mean, var.sqrt()]))
    predict(out, "outputs_swapped", None, torch.stack([var, mean]))
    for b in POWERS_OF_TWO:
        if n % b:
            predict(out, "counted_masked_lanes", b, _mean_var(padded(x, b, 0.0)))
    return out


def _logsumexp_tolerance(case: Case) -> tuple[float, float]:
    """log(S) + m: the sum S of exp(x - m) is in [1, N], so its rounding error is absolute in log(S)."""
    terms = case.n
    return 16 * FP32_EPS * math.sqrt(terms + 1), 16 * FP32_EPS


def _mean_var_tolerance(case: Case) -> tuple[torch.Tensor, float]:
    """The mean as a sum; the variance scaled by the spread (x - mean), not by x itself.

    A stable method (Welford, or sums of x - shift) loses about eps * |mean| * spread; the two-sum form
    sum(x^2)/n - mean^2 loses about eps * mean^2, which is what the "offset" cases expose.
    """
    x = case.inputs[0].double()
    mean = x.mean().item()
    spread = (x - mean).abs().max().item()
    grow = 16 * FP32_EPS * math.sqrt(x.numel() + 1)
    return torch.tensor(
        [grow * x.abs().max().item(), grow * spread**2 + 64 * FP32_EPS * abs(mean) * spread],
        dtype=torch.float64,
    ), grow


EXERCISES = [
    Exercise(
        id="l2_norm",
        signature="l2_norm(x, out)",
        description="out[0] = sqrt(sum(x * x)): square inside the reduction, sqrt after the combine",
        hint="square inside the reduction (tl.sum(x * x)), atomically add the partials into zeroed "
        "scratch, then take the sqrt once on the host.",
        cases=_scaled_cases,
        reference=lambda x: (x * x).sum().sqrt().reshape(1),
        compare="sum",
        predictions=_l2_predictions,
        stale=lambda expected, garbage: (expected**2 + garbage).sqrt(),
        identity=0.0,
        mistakes=mistakes(MESSAGES, **_L2),
    ),
    Exercise(
        id="l1_norm",
        signature="l1_norm(x, out)",
        description="out[0] = sum(|x|): the L2 norm's shape with tl.abs as the transform and no final step",
        hint="tl.sum(tl.abs(x), axis=0) per program, one tl.atomic_add each into zeroed out.",
        cases=vector_cases,
        reference=lambda x: x.abs().sum().reshape(1),
        compare="sum",
        predictions=_l1_predictions,
        identity=0.0,
        mistakes=mistakes(MESSAGES, **_L1),
    ),
    Exercise(
        id="count_nonzero",
        signature="count_nonzero(x, out)",
        description="out[0] = the number of elements of x that are not 0 (as a float32, exact below 2^24)",
        hint="sum the predicate, tl.sum((x != 0).to(tl.float32), axis=0), with other=0.0 so that masked "
        "lanes count as zero.",
        cases=_count_cases,
        reference=lambda x: (x != 0).sum().double().reshape(1),
        compare="exact",
        predictions=_count_predictions,
        identity=0.0,
        mistakes=mistakes(MESSAGES, **_COUNT),
    ),
    Exercise(
        id="logsumexp",
        signature="logsumexp(x, out)",
        description="out[0] = log(sum(exp(x))), without overflow: m + log(sum(exp(x - m))) with m = max(x)",
        hint="two passes (the max, then the sum of exp(x - max)), or one pass where each program keeps a "
        "running max m and sum s, rescaling s by exp(m_old - m_new) when m grows.",
        cases=_logsumexp_cases,
        reference=lambda x: x.logsumexp(0).reshape(1),
        compare="sum",
        predictions=_logsumexp_predictions,
        stale=lambda expected, garbage: torch.logaddexp(expected, torch.tensor(garbage, dtype=torch.float64)),
        mistakes=mistakes(MESSAGES, **_LOGSUMEXP),
        tolerance=_logsumexp_tolerance,
        trait_mistakes={"extreme": "exp_overflow"},
    ),
    Exercise(
        id="mean_var",
        signature="mean_var(x, out)",
        description="out[0] = mean(x), out[1] = var(x) (divided by n) for N >= 2, accurate even when the "
        "mean is much larger than the spread",
        hint="each program keeps the count, mean and M2 = sum((x - mean)^2) of its tiles, merging tile "
        "after tile with Chan's rule, and stores them; one program combines the programs' triples "
        "the same way. Or accumulate sums of (x - shift) with shift = x[0].",
        cases=_mean_var_cases,
        reference=_mean_var,
        compare="sum",
        predictions=_mean_var_predictions,
        mistakes=mistakes(MESSAGES, **_MEAN_VAR),
        tolerance=_mean_var_tolerance,
        trait_mistakes={"offset": "cancellation", "sorted": "spread_between_tiles"},
    ),
]
