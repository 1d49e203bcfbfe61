"""The transforms family (notebooks 04 and 06): a reduction of f(x), sometimes with a final step.

The L2 norm (square, then the sqrt of the sum), the L1 norm (abs), the count of non-zeros (a
predicate), logsumexp (exp after subtracting the max) and the mean and variance (counts, means and
squared deviations, merged). Their mistakes are the sum's (utils.checker.families.reductions), plus the
transform's: applied after the reduction, the final step taken per program, the max never subtracted,
a variance that cancels. The norms and the count also lose what they sum: through float16, an integer
cast, a sample of x, or its last element.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from utils.checker.data import (
    describe,
    extra_cases,
    float16_exact,
    values,
    vector_cases,
    vector_sizes,
)
from utils.checker.families.lossy import (
    Scalars,
    l1_truncation_predictions,
    lossy_predictions,
    persistent_predictions,
    sums_of_tiles,
)
from utils.checker.families.reductions import SCALAR_MESSAGES, scalar_predictions
from utils.checker.messages import ONE_LAUNCH_MESSAGES, SUM_WORDS, TILE_MESSAGES
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict

MESSAGES = {
    **TILE_MESSAGES,
    **SCALAR_MESSAGES,
    "transform_after_reduce": "{transform} was applied after the reduction: apply it to each element inside "
    "the reduction operand, {fused}.",
    "finish_before_combine": "{finish} was taken per program before the combine, but {finish_rule}: combine "
    "the programs' sums first, then take {finish} once ({finish_where}).",
    "missing_finish": "out holds the combined sum: take {finish} once, after the combine ({finish_where}).",
    "wrong_predicate": "the count is of the wrong elements: count x != 0 (negative values are non-zero; "
    "-0.0 == 0 is zero).",
    "nan_not_counted": "every non-zero was counted but the NaNs: NaN is not 0, and x != 0 is True for it, "
    "but a test such as (x > 0) | (x < 0), or tl.abs(x) > 0, is False for NaN. Count x != 0.",
    "missing_transform": "the values were not squared: out is the sqrt of the plain sum of x (NaN where "
    "that sum is negative). The L2 norm squares each element inside the reduction, "
    "tl.sum(x * x, axis=0), then takes the sqrt once.",
    "summed_values": "out holds a sum of the values, not a count: add 1 for each non-zero element, "
    "tl.sum((x != 0).to(tl.float32), axis=0), not x itself (tl.where(x != 0, x, 0.0) still adds x).",
    "missing_abs": "negative values cancelled positive ones: the L1 norm adds magnitudes, so take tl.abs(x) "
    "inside the reduction, tl.sum(tl.abs(x), axis=0).",
    "squares_instead_of_abs": "the values were squared, not taken in absolute value: x * x is positive "
    "too, but it belongs to the L2 norm; the L1 norm adds |x|, tl.sum(tl.abs(x), axis=0).",
    "fp16_accumulation": "the sum went through float16 (a float16 accumulator, x or a tile converted "
    "with .to(tl.float16), or a float16 scratch or out): float16 keeps 11 significant bits, so large "
    "sums round off (a count past 2048 skips odd numbers), and past 65504 it is inf. Load, "
    "accumulate and combine in float32.",
    "sampled_input": "out is an estimate from part of x, scaled up (every k-th element times k, or one "
    "tile times n / BLOCK_SIZE): every element must be reduced, once. If you did not mean to "
    "sample, check the offsets: pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE), with no factor.",
    "integer_truncation": "a value went through an integer, which truncates toward zero: x.to(tl.int32), "
    "or an int32 accumulator, partial, scratch or out, drops every fractional part (and x.to(tl.int32) "
    "!= 0 misses the values between -1 and 1). Keep the values and their sums in float32; only a "
    "count of x != 0 may be added up in integers.",
    "exp_overflow": "exp(x) overflowed (x > 88.7) or underflowed (x < -103) in float32: subtract the maximum "
    "m first and compute m + log(sum(exp(x - m))), in every stage: a combine of the partials (m_p, s_p) "
    "rescales each by exp(m_p - M), M the largest m_p, not by exp(m_p).",
    "max_not_added_back": "the maximum m was subtracted but not added back: logsumexp(x) = m + "
    "log(sum(exp(x - m))).",
    "unbiased_variance": "the variance was divided by n - 1: this exercise wants the population variance, "
    "divided by n (torch.var(x, correction=0)).",
    "std_instead_of_variance": "out[1] holds the standard deviation: store the variance (no sqrt).",
    "outputs_swapped": "out[0] and out[1] are swapped: out[0] is the mean, out[1] the variance.",
    "counted_masked_lanes": "masked lanes were counted as elements: count only offsets < n (for example "
    "tl.sum(mask.to(tl.float32))), or divide by n.",
    "cancellation": "the variance is wrong only where the mean is large next to the spread: float32 keeps "
    "about 7 digits, and a step that squares, multiplies or subtracts values the size of the mean before "
    "taking deviations from it loses the spread's. The usual one is sum(x^2)/n - mean^2, of a whole input "
    "or of one tile (whatever combines the tiles); squares rounded to float32 before a float64 sum, or an "
    "update from a mean still far from the data, do the same. Accumulate deviations instead: Welford / "
    "Chan's combine, from each tile's own deviations (x - the tile's mean), or sums of x - shift with "
    "shift close to the mean (x[0] will do).",
    "spread_between_tiles": "the variance is too small, most where the partials' means differ (sorted "
    "input): merging two partials (two tiles, or two programs' results in the combine) must add the "
    "spread between their means, "
    "M2 = M2_a + M2_b + delta^2 * n_a * n_b / (n_a + n_b) with delta = mean_b - "
    "mean_a, not just M2_a + M2_b.",
    "masked_lanes_in_m2": "the variance is wrong where the last tile is partial: its masked lanes loaded "
    "0.0, and their deviations, (0 - mean)^2 (or 0 - shift, in sums of x - shift), were added in. Zero "
    "them first: tl.where(mask, x - mean, 0.0).",
    "both_stored_to_out0": "out[1] was never written: the mean and the variance were both stored to out[0] "
    "(the later store stays). Store the variance to out_ptr + 1.",
    "shift_correction_missing": "the variance is too large by (mean - shift)^2: the mean of (x - shift)^2 is "
    "not the variance until mean_d^2 is subtracted, var = sum(d^2) / n - (sum(d) / n)^2 with "
    "d = x - shift.",
    "unscaled_partial_sums": "the programs' sums of exp(x - m_p) were added as if every program had the same "
    "max: rescale each to the overall max M first, S = sum(s_p * exp(m_p - M)), then out = M + log(S).",
    "running_sum_not_rescaled": "the running sum was not rescaled when the running max grew: each tile's "
    "exp(x - m_new) was added to a sum of exp(x - m_old). Rescale first: "
    "s = s * exp(m_old - m_new) + tl.sum(tl.exp(x - m_new), axis=0).",
    "logs_added": "each program's logsumexp was taken, then the programs' logs added: log(a) + log(b) is "
    "log(a * b), not log(a + b). Combine the programs' (m_p, s_p) pairs first, M = max(m_p), "
    "S = sum(s_p * exp(m_p - M)), and take M + log(S) once.",
}
TRANSFORM_WORDS = dict(
    transform="the transform",
    fused="tl.sum(f(x), axis=0)",
    finish="the final step",
    finish_rule="the final step of a sum is not the sum of the final steps",
    finish_where="on the host",
)
_L2 = dict(
    SUM_WORDS,
    transform="the square",
    fused="tl.sum(x * x, axis=0)",
    finish="the sqrt",
    finish_rule="sqrt(a) + sqrt(b) != sqrt(a + b)",
    finish_where="on the host",
)
_L1 = dict(
    {**SUM_WORDS, **TRANSFORM_WORDS}, transform="the absolute value", fused="tl.sum(tl.abs(x), axis=0)"
)
_COUNT = dict({**SUM_WORDS, **TRANSFORM_WORDS}, identity="other=0.0, so that a masked lane counts as zero")


def scaled_cases(large: bool) -> list[Case]:
    """The vector cases with "large" at 1e15, not 1e20: squares of 1e20 overflow float32 (3.4e38)."""
    return [
        Case(c.name.replace("large", "large (1e15)"), (c.inputs[0] * 1e-5,), c.out_shape)
        if "large" in c.name
        else c
        for c in vector_cases(large)
    ]


def _halves(n: int, seed: int) -> torch.Tensor:
    """Mostly zeros, and about 2.5% of +-0.5, x[n - 1] among them: every sum of |x| (a count, too) stays
    a multiple of 0.5 below 1024, which float16 holds exactly whatever the order of the additions."""
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(n, generator=g, dtype=torch.float64)
    sign = torch.where(torch.rand(n, generator=g) < 0.5, -0.5, 0.5).double()
    x = torch.where(u < 0.025, sign, 0.0)
    x[-1] = 0.5
    return x.float()


# Float16 holds every partial sum of this case exactly, in any order: only a float16 mistake passes it
# and fails others, and it is named by that (trait "fp16_inexact" on the others), on a GPU too, where
# the float16 tile sums and atomics come in an order that the predictions cannot follow. N is odd and
# over 32768, so that every other mistake changes it too: each block below 65536 leaves a masked lane and
# two tiles or more, the last one holding x[n - 1], and the values have fractions and both signs.
_FP16_EXACT = (32769, "+-0.5 among zeros")


def _fp16_exact_case() -> Case:
    n, kind = _FP16_EXACT
    return Case(describe(n, kind), (_halves(n, seed=4100),), (1,))


def _l1_cases(large: bool) -> list[Case]:
    """The vector cases, with two changes, and a case that float16 holds exactly (see _FP16_EXACT):
    - N = 65536 is "mixed", not "negative": its sum of |x| stays below 65504, so that a float16 out added
      into by atomics rounds instead of overflowing. For a finite float16 atomic sum past 65504 Triton's
      interpreter raises OverflowError (a GPU gives inf): the learner would see that, not the diagnosis.
    - "large" is 1e5, not 1e20: past float16's 65504 still, but every value, tile sum and total stays
      inside int32, where a cast to int32 truncates the same way on every machine (past it x86 gives
      INT32_MIN, a GPU saturates) and an int32 sum never wraps, whatever the block or grid."""
    cases = []
    for i, (n, kind) in enumerate(vector_sizes(large)):
        kind = "mixed" if n == 2**16 else kind
        x = values(n, kind, seed=100 * i)
        if kind == "large":
            x, kind = x * 1e-15, "large (1e5)"
        cases.append(Case(describe(n, kind), (x,), (1,), traits=frozenset({"fp16_inexact"})))
    return cases + [_fp16_exact_case()]


def _on_a_grid(x: torch.Tensor) -> torch.Tensor:
    """x (|x| <= 2) rounded to multiples of 2^-k, k as large as lets every partial sum of N such values be
    exact in float32 (2 * N * 2^k <= 2^24): a sum of x in any order is then one number, so a count that
    summed the values instead of the predicate is predicted exactly. The fractions stay (k = 7 up to
    N = 65536), for the mistakes that truncate them."""
    k = max(0, 23 - math.ceil(math.log2(x.numel())))
    return torch.round(x * 2**k) / 2**k


def _count_cases(large: bool) -> list[Case]:
    # As the vector cases, but "large" (1e20) is "sparse" here: no sum of values that large is exact. And
    # N = 65536 is "sparse" too, so that no count passes 65504 (see _l1_cases; on a GPU, 2^20 does).
    sizes = [(n, "sparse" if kind == "large" or n == 2**16 else kind) for n, kind in vector_sizes(large)]
    sizes += [(1, "sparse"), (5, "sparse"), (1000, "sparse"), (4097, "sparse"), (2**15 + 5, "sparse")]
    if large:
        sizes.append((2**22 + 3, "sparse"))
    cases = []
    for i, (n, kind) in enumerate(sizes):
        x = _on_a_grid(values(n, kind, seed=500 + i))
        # Counts up to 2048 are exact in float16; past it, only even counts up to 4096, and so on.
        traits = frozenset({"fp16_inexact"} if (x != 0).sum() > 2048 else ())
        cases.append(Case(describe(n, kind), (x,), (1,), traits=traits))
    # Off the grid: NaN, and values too small for a square, a float16 or a threshold to keep non-zero
    kind = "zeros, tiny and nan"
    near_zero = [Case(describe(n, kind), (values(n, kind, seed=590 + n),), (1,)) for n in (7, 3001)]
    return cases + [_fp16_exact_case()] + near_zero


def _transformed_predictions(case: Case, on_gpu: bool, transform, finish=lambda s: s) -> Predictions:
    """A sum of transform(x) (then `finish` on the host): the sum's mistakes, and the transform's."""
    x = case.inputs[0].double()
    fx = transform(x)
    out = {
        code: {variant: results.then(finish) for variant, results in variants.items()}
        for code, variants in scalar_predictions(Case(case.name, (fx,), (1,)), "sum").items()
    }
    predict(out, "missing_finish", None, fx.sum())  # e.g. the sum of squares, without the sqrt
    predict(out, "transform_after_reduce", None, finish(transform(x.sum())))  # on the host, after
    x_tiles, fx_tiles = sums_of_tiles(x), sums_of_tiles(fx)
    for b in POWERS_OF_TWO[1:]:  # with one element per tile, the transform of a tile's sum is right
        after = transform(x_tiles(b)).sum()  # per program: transform of the tile's sum
        predict(out, "transform_after_reduce", b, finish(after), after)
        early = finish(fx_tiles(b)).sum()  # per program: finished before the combine
        predict(out, "finish_before_combine", b, early, finish(early))
    put = Scalars()
    persistent_predictions(fx, finish, put, on_gpu)
    put.into(out)
    return out


def _l2_predictions(case: Case, on_gpu: bool) -> Predictions:
    out = _transformed_predictions(case, on_gpu, lambda t: t * t, torch.sqrt)
    total = case.inputs[0].double().sum()
    if total != case.inputs[0].double().square().sum():
        predict(out, "missing_transform", None, total.sqrt())  # sqrt(sum(x)): NaN below 0
    put = Scalars()
    lossy_predictions(case.inputs[0], lambda t: t * t, put, count=False)  # then the sqrt, on the host
    put.into(out, finish=torch.sqrt)
    return out


def _l1_predictions(case: Case, on_gpu: bool) -> Predictions:
    out = _transformed_predictions(case, on_gpu, torch.abs)
    for code in ("missing_finish", "finish_before_combine"):  # an L1 norm has no final step
        del out[code]
    x = case.inputs[0]
    predict(out, "missing_abs", None, x.double().sum())
    squares = (x * x).double()  # squared in float32, as the kernel does: inf past 1.8e19
    predict(out, "squares_instead_of_abs", "x * x", squares.sum())
    predict(out, "squares_instead_of_abs", "sqrt(sum(x * x))", squares.sum().sqrt())
    put = Scalars()
    lossy_predictions(x, torch.abs, put, count=False)
    l1_truncation_predictions(x, put)
    put.into(out)
    return out


def _count_predictions(case: Case, on_gpu: bool) -> Predictions:
    x = case.inputs[0].double()
    out = scalar_predictions(Case(case.name, ((x != 0).double(),), (1,)), "sum")
    for name, chosen in (("> 0", x > 0), ("< 0", x < 0), ("== 0", x == 0)):
        predict(out, "wrong_predicate", name, chosen.sum())
    if x.isnan().any():  # (x > 0) | (x < 0), or |x| > 0: False for NaN, which is not 0
        predict(out, "nan_not_counted", None, ((x != 0) & ~x.isnan()).sum())
    predict(out, "summed_values", "x", x.sum())  # exact in float32: the count's battery is on a grid
    predict(out, "summed_values", "|x|", x.abs().sum())
    put = Scalars()
    persistent_predictions((x != 0).double(), None, put, on_gpu)
    lossy_predictions(case.inputs[0], lambda t: (t != 0).to(t.dtype), put, count=True)
    put.into(out)
    # x.to(tl.int32) != 0: truncated toward zero, every value between -1 and 1 counts as zero. A NaN becomes
    # 0 on a GPU (cvt.rzi) and the smallest int32 in the interpreter (numpy): either may be counted.
    truncated = (x.abs() >= 1).sum()
    predict(out, "integer_truncation", "x", truncated, truncated + x.isnan().sum())
    return out


_L2_NORM = Exercise(
    id="l2_norm",
    signature="l2_norm(x, out)",
    description="out[0] = sqrt(sum(x * x)): square inside the reduction, sqrt after the combine",
    hint="start from notebook 02's atomic sum; watch where the two non-linear steps go (\"The "
    'non-linearity pitfalls, live"): each element squared before the sum, the root taken once, '
    "of the total.",
    # and one negative value alone: its norm is |x|, not x (the vector cases' zeros: s * rsqrt(s) is NaN);
    # 20,000 zeros: a scaled norm (notebook 06) that guards a maximum of 0 in its first tile only gives NaN
    cases=lambda large: scaled_cases(large) + extra_cases([(1, "negative"), (20_000, "zeros")], seed=420),
    reference=lambda x: (x * x).sum().sqrt().reshape(1),
    compare="sum",
    predictions=_l2_predictions,
    stale=lambda expected, garbage: (expected**2 + garbage).sqrt(),
    identity=0.0,
    never_negative=True,
    mistakes=mistakes(MESSAGES, **_L2),
)

EXERCISES = [
    _L2_NORM,
    Exercise(
        id="l1_norm",
        signature="l1_norm(x, out)",
        description="out[0] = sum(|x|): the L2 norm's shape with tl.abs as the transform and no final step",
        hint="the family's shape with its own transform and no square root; watch that out is zeroed "
        "before the atomics add into it.",
        cases=_l1_cases,
        reference=lambda x: x.abs().sum().reshape(1),
        compare="sum",
        predictions=_l1_predictions,
        identity=0.0,
        never_negative=True,
        trait_mistakes={"fp16_inexact": "fp16_accumulation"},
        trait_probes={"fp16_inexact": float16_exact},
        mistakes=mistakes(MESSAGES, **_L1),
    ),
    Exercise(
        id="count_nonzero",
        signature="count_nonzero(x, out)",
        description="out[0] = the number of elements of x that are not 0 (as a float32, exact below 2^24)",
        hint="the family's shape, summing a condition instead of a value; watch what the masked lanes "
        "load: a value that meets the condition counts them.",
        cases=_count_cases,
        reference=lambda x: (x != 0).sum().double().reshape(1),
        compare="exact",
        predictions=_count_predictions,
        identity=0.0,
        never_negative=True,
        trait_mistakes={"fp16_inexact": "fp16_accumulation"},
        trait_probes={"fp16_inexact": float16_exact},
        mistakes=mistakes(MESSAGES, **_COUNT),
    ),
    replace(
        _L2_NORM,
        id="l2_norm_one_launch",
        signature="l2_norm_one_launch(x, out)",
        description="out[0] = sqrt(sum(x * x)) in one launch: the ticket's last program combines the "
        "partials in order and takes the sqrt itself; bit-identical, right when called twice",
        hint="start from your sum_one_launch, with the square of notebook 04; watch where the square "
        "root goes: once, in the program that draws the last ticket, neither per partial nor on "
        "the host (a second launch).",
        identity=None,  # nothing is reset on the host: an unwritten out still holds its garbage
        repeats=5,
        one_launch=True,
        mistakes=mistakes(
            {**MESSAGES, **ONE_LAUNCH_MESSAGES},
            **{**_L2, "finish_where": "in the program that draws the last ticket, not on the host"},
        ),
    ),
]
