"""The transforms family (notebooks 04 and 06): a reduction of f(x), sometimes with a final step.

The L2 norm (square, then the sqrt of the sum), the L1 norm (abs), the count of non-zeros (a
predicate), logsumexp (exp after subtracting the max) and the mean and variance (counts, means and
squared deviations, merged). Their mistakes are the sum's (utils.exercises.totals), plus the
transform's: applied after the reduction, the final step taken per program, the max never subtracted,
a variance that cancels. The norms and the count also lose what they sum: through float16, an integer
cast, a sample of x, or its last element.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from utils.diagnose import PREDICTED_UP_TO
from utils.exercises.core import (
    ANY_ORDER,
    EACH_ELEMENT,
    FP32_EPS,
    ONE_LAUNCH_MESSAGES,
    POWERS_OF_TWO,
    SUM_WORDS,
    TILE_MESSAGES,
    UNWRITTEN,
    Case,
    Exercise,
    Predictions,
    describe,
    extra_cases,
    float16_exact,
    mistakes,
    padded,
    predict,
    predict_computed,
    predict_each,
    too_large_to_predict,
    values,
    vector_cases,
    vector_sizes,
)
from utils.exercises.totals import MAX_RACE_PROGRAMS, REDUCTIONS, scalar_predictions
from utils.setup import runs_on_gpu

MESSAGES = {
    **TILE_MESSAGES,
    "transform_after_reduce": "{transform} was applied after the reduction: apply it to each element inside "
    "the reduction operand, {fused}.",
    "finish_before_combine": "{finish} was taken per program before the combine, but {finish_rule}: combine "
    "the programs' sums first, then take {finish} once (on the host).",
    "missing_finish": "out holds the combined sum: take {finish} once, after the combine (on the host).",
    "wrong_predicate": "the count is of the wrong elements: count x != 0 (negative values are non-zero; "
    "-0.0 == 0 is zero).",
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
    "last_element_dropped": "x[n - 1] was left out (always, or where n is odd): a mask of offsets < n - 1, "
    "or elements taken in pairs, n // 2 of them, which leave the last one out when n is odd. Mask "
    "with offsets < n; for pairs, launch for cdiv(n, 2) pairs and mask each element on its own.",
    "integer_truncation": "a value went through an integer, which truncates toward zero: x.to(tl.int32), "
    "or an int32 accumulator, partial, scratch or out, drops every fractional part (and x.to(tl.int32) "
    "!= 0 misses the values between -1 and 1). Keep the values and their sums in float32; only a "
    "count of x != 0 may be added up in integers.",
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
    return cases + [_fp16_exact_case()]


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
    # A loud tail: mixed values whose last 1500 are 10 times larger. Leaving out the end of x (a grid
    # rounded down, a stage 2 that reads too few partials) shows here as it does on the sorted cases,
    # while the spread between tiles' means barely does: only the sorted cases failing is that spread.
    loud = values(2**15 + 1500, "mixed", seed=710)
    loud[-1500:] *= 10
    return (
        cases
        + [Case(describe(loud.numel(), "mixed, the last 1500 x10"), (loud,), (2,))]
        + extra_cases(
            [(1000, "offset"), (4096, "offset"), (2**15 + 3, "offset")],
            seed=700,
            traits={"offset"},
            out_shape=(2,),
        )
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
    x_tiles, fx_tiles = _tile_sums(x), _tile_sums(fx)
    for b in POWERS_OF_TWO[1:]:  # with one element per tile, the transform of a tile's sum is right
        after = transform(x_tiles(b)).sum()  # per program: transform of the tile's sum
        predict(out, "transform_after_reduce", b, finish(after), after)
        early = finish(fx_tiles(b)).sum()  # per program: finished before the combine
        predict(out, "finish_before_combine", b, early, finish(early))
    put = _Scalars()
    _persistent_predictions(fx, finish, put)
    put.into(out)
    return out


def _l2_predictions(case: Case) -> Predictions:
    out = _transformed_predictions(case, lambda t: t * t, torch.sqrt)
    total = case.inputs[0].double().sum()
    if total != case.inputs[0].double().square().sum():
        predict_computed(out, "missing_transform", None, total.sqrt())  # sqrt(sum(x)): NaN below 0
    put = _Scalars()
    _lossy_predictions(case.inputs[0], lambda t: t * t, put, count=False)  # then the sqrt, on the host
    put.into(out, finish=torch.sqrt)
    return out


def _l1_predictions(case: Case) -> Predictions:
    out = _transformed_predictions(case, torch.abs)
    for code in ("missing_finish", "finish_before_combine"):  # an L1 norm has no final step
        del out[code]
    x = case.inputs[0]
    predict(out, "missing_abs", None, x.double().sum())
    squares = (x * x).double()  # squared in float32, as the kernel does: inf past 1.8e19
    predict(out, "squares_instead_of_abs", "x * x", squares.sum())
    predict(out, "squares_instead_of_abs", "sqrt(sum(x * x))", squares.sum().sqrt())
    put = _Scalars()
    _lossy_predictions(x, torch.abs, put, count=False)
    _l1_truncation_predictions(x, put)
    put.into(out)
    return out


def _count_predictions(case: Case) -> Predictions:
    x = case.inputs[0].double()
    out = scalar_predictions(Case(case.name, ((x != 0).double(),), (1,)), "sum")
    for name, chosen in (("> 0", x > 0), ("< 0", x < 0), ("== 0", x == 0)):
        predict(out, "wrong_predicate", name, chosen.sum())
    predict(out, "summed_values", "x", x.sum())  # exact in float32: the count's battery is on a grid
    predict(out, "summed_values", "|x|", x.abs().sum())
    put = _Scalars()
    _persistent_predictions((x != 0).double(), None, put)
    _lossy_predictions(case.inputs[0], lambda t: (t != 0).to(t.dtype), put, count=True)
    put.into(out)
    # x.to(tl.int32) != 0: truncated toward zero, every value between -1 and 1 counts as zero.
    predict(out, "integer_truncation", "x", (x.abs() >= 1).sum())
    return out


# ----------------------------------------------------------------------------------------------------
# The L1 norm and the count: what is summed loses something. Float16 (11 significant bits, inf past
# 65504), integers (truncated toward zero), a sample of x scaled up, or x[n - 1] left out. Float16 and
# int32 arithmetic is emulated as Triton's interpreter does it: tl.sum of a float16 tile adds in float32
# (numpy's pairwise sum) and rounds once, while a GPU adds in float16 along its own tree, so there the
# float16 tile sums may not match (the report then shows the smallest failing case instead).

_SAMPLE_STRIDES = (*range(2, 17), 32, 64, 128, 256, 512, 1024)  # every k-th element, times k
# Grids a persistent kernel with float16 accumulators may run on (program p adds tiles p, p + P, ...):
# fixed counts, and one program per SM of an A100 (108) or an H100/H200 (132). Each round of tiles costs
# one float16 addition of a tile here: predicted from BLOCK_SIZE = _FP16_LOOP_BLOCK up, and up to
# _FP16_ROUNDS rounds (which leaves out only the fewest programs on small tiles, on the GPU's 4M elements).
_FP16_PROGRAMS = (1, 2, 4, 8, 12, 16, 24, 32, 64, 108, 128, 132, 256)
_FP16_LOOP_BLOCK = 128
_FP16_ROUNDS = 8192
_FP16_OUT_PROGRAMS = 512  # a float16 out that the programs add into in turn: predicted up to this grid


class _Scalars:
    """Scalar predictions (numbers, 0-d tensors or arrays) gathered as floats and made into tensors all at
    once: `predict` for each of the hundreds of variants below would cost more than computing them."""

    def __init__(self):
        self.rows: list[tuple[str, object, list[float]]] = []

    def __call__(self, code: str, variant, *results) -> None:
        self.rows.append((code, variant, [float(r) for r in results]))

    def into(self, out: Predictions, finish=None) -> None:
        """Into `out`, each result first through `finish` (the sqrt of an L2 norm) if there is one."""
        flat = torch.tensor([r for *_, results in self.rows for r in results], dtype=torch.float64)
        flat = flat if finish is None else finish(flat)
        start = 0
        for code, variant, results in self.rows:
            rows = flat[start : start + len(results)].view(-1, 1)
            start += len(results)
            earlier = out.setdefault(code, {}).get(variant)
            out[code][variant] = rows if earlier is None else torch.cat([earlier, rows])


def _half(values) -> np.ndarray:
    """Values rounded to float32 and then to float16, as .to(tl.float16) does: to nearest, inf past 65504."""
    with np.errstate(over="ignore"):
        return np.asarray(torch.as_tensor(values).float().numpy()).astype(np.float16)


def _half_sum(t16: np.ndarray) -> np.ndarray:
    """tl.sum of float16 tiles along the last axis, as the interpreter does it (numpy's add.reduce)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.reduce(t16, axis=-1)


def _np_tiles(v: np.ndarray, b: int) -> np.ndarray:
    """A 1-D array in rows of b, zero-padded (masked lanes load other=0.0)."""
    return np.concatenate([v, np.zeros(-len(v) % b, dtype=v.dtype)]).reshape(-1, b)


def _tile_sums(v: torch.Tensor):
    """b -> the sum of each tile of b elements of v (float64), all from one running sum."""
    running = torch.cat([v.new_zeros(1), v.cumsum(0)])

    def sums(b: int) -> torch.Tensor:
        if b == 1:
            return v
        starts = torch.arange(0, len(v), b)
        return running[(starts + b).clamp(max=len(v))] - running[starts]

    return sums


def _fp16_predictions(fx: torch.Tensor, fx16: np.ndarray, put: _Scalars) -> None:
    """A float16 accumulator somewhere in a sum of fx (float32): the elements cast (fx16 = f(x) in float16),
    each tile's tl.sum in float16, each partial rounded, a float16 out that the atomics add into, or a
    persistent kernel's per-lane float16 accumulators."""
    code = "fp16_accumulation"
    fx = fx.double()
    halves = torch.from_numpy(fx16.astype(np.float64))
    put(code, ("float16", "elements"), halves.sum())
    put(code, ("float16", "total"), float(_half(fx.sum())))
    # Whole numbers (a count's 0 and 1) add up exactly in numpy's float32 sums, and in float16 up to 2048:
    # then every float16 sum below is its exact sum rounded once, with no need to add tile after tile.
    peak = float(halves.abs().max()) if len(halves) else 0.0
    whole = bool((halves == halves.trunc()).all()) and peak * len(halves) < 2**24
    half_tiles, fx_tiles = _tile_sums(halves), _tile_sums(fx)
    into_out = {}
    for b in POWERS_OF_TWO:
        per_tile: Any = half_tiles(b) if whole else None
        t16: Any = None if whole else _np_tiles(fx16, b)
        count = -(-len(fx16) // b)
        sums16 = _half(per_tile) if whole else _half_sum(t16)  # each tile added up in float16
        tiles16 = sums16.astype(np.float64).sum()
        put(code, (b, "float16 tiles"), tiles16)
        partials16 = _half(fx_tiles(b))  # float32 tile sums, stored as float16
        two_ways = partials16.astype(np.float64).sum(), float(_half_sum(partials16))  # combined in fp32, fp16
        put(code, (b, "float16 partials"), *two_ways)
        if count <= _FP16_OUT_PROGRAMS:
            into_out[b] = partials16
        if b < _FP16_LOOP_BLOCK:
            continue
        for programs in _FP16_PROGRAMS:  # acc += f(x).to(tl.float16) in a grid-stride loop
            if programs >= count:  # one tile per program: its float16 tl.sum
                put(code, (b, programs, "float16 accumulator"), tiles16)
                continue
            rounds = -(-count // programs)
            if rounds > _FP16_ROUNDS:
                continue
            if whole and rounds * peak <= 2048:  # every lane's sum is exact in float16
                per_program = torch.cat([per_tile, per_tile.new_zeros(rounds * programs - count)])
                result = _half(per_program.view(rounds, programs).sum(0)).astype(np.float64).sum()
            else:
                t16 = _np_tiles(fx16, b) if t16 is None else t16
                padded_lanes = np.concatenate([t16, np.zeros((rounds * programs - count, b), np.float16)])
                lanes = torch.from_numpy(padded_lanes).view(rounds, programs, b)
                acc = lanes[0].clone()
                for r in range(1, rounds):  # torch's float16 addition rounds as numpy's does
                    acc += lanes[r]
                result = _half_sum(acc.numpy()).astype(np.float64).sum()
            put(code, (b, programs, "float16 accumulator"), result)
    # A float16 out (or scratch): each program's float32 partial rounded and added in float16, in program
    # order (the interpreter's; a GPU's atomics land in any order).
    blocks = list(into_out)
    pending = torch.zeros(len(blocks), max(len(p) for p in into_out.values()), dtype=torch.float16)
    for i, b in enumerate(blocks):
        pending[i, : len(into_out[b])] = torch.from_numpy(into_out[b])
    acc = torch.zeros(len(blocks), dtype=torch.float16)
    for step in range(pending.shape[1]):
        acc += pending[:, step]
    for b, total in zip(blocks, acc.double()):
        put(code, (b, "float16 out"), total)


# Grids a persistent kernel may run on whose programs each tl.store their partial (a race): fixed counts,
# and one or two programs per SM of an A100 (108) or an H100/H200 (132); from BLOCK_SIZE = 16 up.
_PERSISTENT_GRIDS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 108, 128, 132, 256, 264)
_PERSISTENT_BLOCK = 16


def _persistent_predictions(fx: torch.Tensor, finish, put: _Scalars) -> None:
    """A persistent kernel (program p sums tiles p, p + P, ... of fx) whose programs store with a plain
    tl.store: the last program's partial stays in the interpreter, which runs them in order, and any
    program's on a GPU. With P >= tiles: the last tile's partial (a grid of min(P, tiles)), or on a fixed
    grid of P > tiles programs 0.0 from an idle last program; a grid whose last program idles on every case
    of the battery would give 0.0 everywhere, which is no race's effect: not predicted. And with a
    `finish` (None: there is none): each program's partial finished before the combine."""
    on_gpu = runs_on_gpu()  # the any-order alternatives count only there (utils.diagnose)
    largest = max(n for n, _ in vector_sizes(on_gpu) if n <= PREDICTED_UP_TO)  # the largest predicted
    tile_sums = _tile_sums(fx)
    same = finish or (lambda s: s)
    for b in POWERS_OF_TWO:
        if b < _PERSISTENT_BLOCK:
            continue
        sums = tile_sums(b)
        grid = len(sums)
        for p in _PERSISTENT_GRIDS:
            programs = torch.cat([sums, sums.new_zeros(-grid % p)]).view(-1, p).sum(0)  # program p's sum
            if finish is not None:
                early = finish(programs).sum()
                put("finish_before_combine", (b, p, "persistent"), early, finish(early))
            if (p - 1) * b >= largest:
                continue
            if p < grid:
                results = [programs[-1]]
            else:
                results = [sums[-1]] + ([sums.new_zeros(())] if p > grid else [])
            put("store_race", (b, p, "persistent"), *(same(r) for r in results))
            if on_gpu:  # any program's partial (an idle one's 0.0 among them)
                put("store_race", (b, p, "persistent", ANY_ORDER), *same(programs))


def _lossy_predictions(x: torch.Tensor, transform, put: _Scalars, count: bool) -> None:
    """The mistakes that lose part of a sum of transform(x) (x float32): float16, a sample, x[n - 1].
    `count`: out must be an exact integer, so no prediction with a fractional scale."""
    fx = transform(x).double()
    n = x.numel()
    _fp16_predictions(transform(x), _half(transform(torch.from_numpy(_half(x)).float())), put)
    code = "sampled_input"
    for k in _SAMPLE_STRIDES:  # every k-th element, scaled by k or by n / (the number sampled)
        sample = fx[::k].sum()
        put(code, ("every k-th", k, "times k"), k * sample)
        if not count:
            put(code, ("every k-th", k, "times n / samples"), sample * n / len(fx[::k]))
    # One tile scaled by the number of tiles is not predicted here: it is what every program reducing the
    # first tile adds up to, which missing_program_offset names with its fix.
    for b in POWERS_OF_TWO:  # one tile, scaled by n / BLOCK_SIZE
        first = fx[:b].sum()
        if not count:
            put(code, (b, "first tile times n / BLOCK_SIZE"), first * n / b)
    # x[n - 1] left out: always (mask=offsets < n - 1), or when n is odd (pairs of elements, n // 2 pairs).
    # With n = 1 nothing is summed: out stays as it was (reset, or the garbage).
    dropped = fx[:-1].sum() if n > 1 else UNWRITTEN
    put("last_element_dropped", "always", dropped)
    if n % 2:
        put("last_element_dropped", "when n is odd", dropped)


def _l1_truncation_predictions(x: torch.Tensor, put: _Scalars) -> None:
    """Integers in an L1 norm, truncated toward zero: x cast before tl.abs (or an int32 accumulator of
    tl.abs(x).to(tl.int32)), each partial (int32 partials, scratch or out), or the total. The battery keeps
    every value and sum inside int32 (see _l1_cases), so no cast saturates or wraps."""
    code = "integer_truncation"
    magnitudes = x.double().abs()
    put(code, "x", torch.trunc(magnitudes).sum())
    put(code, "the total", torch.trunc(magnitudes.sum()))
    tile_sums = _tile_sums(magnitudes)
    for b in POWERS_OF_TWO:
        put(code, (b, "partials"), torch.trunc(tile_sums(b).float().double()).sum())


# How many programs a persistent kernel may launch: it takes grid = min(programs, tiles), and program p
# reduces tiles p, p + grid, p + 2 * grid, ... (a grid-stride loop). Powers of two, and multiples of the
# 132 SMs of an H100 or H200 (notebook 06 launches 8 per SM; 8 in all on the CPU), and the small counts a
# learner picks by hand (3, 5, 6, ...). Tried for blocks of 64 and more: a persistent kernel with smaller
# tiles is not one a learner writes.
_PROGRAM_COUNTS = sorted({2**k for k in range(11)} | {3, 5, 6, 7, 12, 24, 40, 80, 132, 264, 528, 1056})
_PERSISTENT_BLOCKS = [b for b in POWERS_OF_TWO if b >= 64]


def _rows(*alternatives) -> torch.Tensor:
    """Alternatives (numbers, or arrays shaped like out) as prediction rows."""
    return torch.from_numpy(np.array(alternatives, dtype=np.float64).reshape(len(alternatives), -1))


def _by_program(per_tile: np.ndarray, programs: int, fill: float) -> np.ndarray:
    """Per-tile values laid out (rounds, programs), as a persistent grid of `programs` programs meets them:
    column p holds program p's tiles in the order it reduces them; places past the last tile hold `fill`."""
    count = len(per_tile)
    rounds = -(-count // programs)
    laid = np.full(rounds * programs, fill)
    laid[:count] = per_tile
    return laid.reshape(rounds, programs)


def _grids(n: int, b: int):
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
    m, s = _by_program(m_t, grid, -math.inf), _by_program(s_t, grid, 0.0)
    m_p = m.max(0)  # each program's max, and its sum of exp(x - m_p) computed right
    s_p = (s * np.exp(m - m_p)).sum(0)
    top = m_p.max()
    out = {}
    if grid > 1:
        partials = m_p + np.log(s_p)  # each program's logsumexp
        out["unscaled_partial_sums"] = _rows(top + np.log(s_p.sum()))  # sum(s_p), not sum(s_p exp(m_p - M))
        out["logs_added"] = _rows(partials.sum())  # log(a) + log(b) for log(a + b)
        out["store_race"] = _rows(partials[-1])  # the last program's store stays (the interpreter's order)
        if grid <= MAX_RACE_PROGRAMS:
            out["store_race any order"] = torch.from_numpy(partials.reshape(-1, 1))
    if len(m) > 1:  # a program met several tiles: s not rescaled as its running max grew
        running = np.maximum.accumulate(m, axis=0)
        s_run = np.where(s > 0, s * np.exp(m - running), 0.0).sum(0)
        out["running_sum_not_rescaled"] = _rows(top + np.log((s_run * np.exp(m_p - top)).sum()))
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
            s_t = np.exp(t - m_t[:, None]).sum(1)
            combined: dict[int, dict[str, torch.Tensor]] = {}
            for variant, grid in _grids(n, b):
                if grid not in combined:
                    combined[grid] = _logsumexp_combines(m_t, s_t, grid)
                for code, rows in combined[grid].items():
                    if code.startswith("store_race"):
                        if variant == b:  # scalar_predictions has the race of one tile per program
                            continue
                        if code.endswith("any order"):
                            predict_each(out, "store_race", (*variant, ANY_ORDER), rows)
                            continue
                    predict_each(out, code, variant, rows)


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
    _logsumexp_program_predictions(x, out)
    return out


def _mean_var(x: torch.Tensor) -> torch.Tensor:
    return torch.stack([x.mean(), x.var(correction=0)])


def _mean_var_programs(c_t: np.ndarray, mean_t: np.ndarray, m2_t: np.ndarray, grid: int):
    """Chan's merge of each program's tiles (program p: tiles p, p + grid, ...): (n_p, mean_p, M2_p), and
    each program's M2 without the spread of its tiles' means (the sum of its tiles' M2)."""
    c, mu = _by_program(c_t, grid, 0.0), _by_program(mean_t, grid, 0.0)
    n_p = c.sum(0)
    mean_p = (c * mu).sum(0) / n_p
    m2_tiles = _by_program(m2_t, grid, 0.0).sum(0)
    return n_p, mean_p, m2_tiles + (c * (mu - mean_p) ** 2).sum(0), m2_tiles


def _mean_var_tile_predictions(x: torch.Tensor, out: Predictions) -> None:
    """The mistakes of tiling. Chan's merge of (count, mean, M2) triples: a merge that drops the spread
    between tiles or between programs, masked lanes in the count or in M2, a plain store, a grid rounded
    down, the first tile only. The sums form (atomics add sums of d = x - shift and of d^2, the host
    divides by n): the same tile mistakes. Every tile's sums come from running sums of x's deviations
    from its mean (float64), so a block size costs one pass over its tiles, not over x."""
    xs = x.numpy()
    n = len(xs)
    mean = xs.mean()
    d = xs - mean
    p1, p2 = np.concatenate([[0.0], np.cumsum(d)]), np.concatenate([[0.0], np.cumsum(d * d)])
    var = p2[-1] / n - (p1[-1] / n) ** 2

    def prefix(k: int) -> np.ndarray:  # the mean and variance of x[:k]
        mean_d = p1[k] / k
        return np.array([mean + mean_d, p2[k] / k - mean_d * mean_d])

    def from_sums(shift, s1, s2, count=n):  # the host's finish of the sums form
        mean_d = s1 / count
        return np.array([shift + mean_d, s2 / count - mean_d * mean_d])

    shifts = {"shift x[0]": xs[0], "shift 0": 0.0}
    for b in POWERS_OF_TWO:
        count = -(-n // b)
        ends = np.minimum(np.arange(1, count + 1) * b, n)
        starts = ends - b
        starts[-1] = (count - 1) * b
        c_t = (ends - starts).astype(np.float64)
        s1_t, s2_t = p1[ends] - p1[starts], p2[ends] - p2[starts]  # tile sums of d and of d^2
        mean_t = mean + s1_t / c_t
        m2_t = np.maximum(s2_t - s1_t * s1_t / c_t, 0.0)
        pad = count * b - n
        if pad:
            kept = n - n % b  # grid n // b: the partial tile is never read
            # No tile at all: a second stage that merges no partials gives 0/0, NaN, which no prediction
            # can hold (NaN is UNWRITTEN), and a host that skips it leaves out unwritten.
            predict_each(
                out, "tail_not_processed", b, _rows(prefix(kept) if kept else [UNWRITTEN, UNWRITTEN])
            )
            # Each masked lane's deviation 0 - mean_t added to M2: the last tile's M2 grows by pad * mean_t^2.
            predict_each(out, "masked_lanes_in_m2", b, _rows([mean, var + pad * mean_t[-1] ** 2 / n]))
            # BLOCK_SIZE as every tile's count, the masked lanes' deviations left out of M2.
            mean_b = mean_t * c_t / b
            m2_b = m2_t + c_t * (mean_t - mean_b) ** 2
            padded_mean = mean * n / (count * b)
            m2 = m2_b.sum() + b * ((mean_b - padded_mean) ** 2).sum()
            predict_each(
                out, "counted_masked_lanes", (b, "deviations masked"), _rows([padded_mean, m2 / (count * b)])
            )
        if count > 1:
            predict_each(out, "first_tile_only", b, _rows(prefix(b)))  # and: offsets missing pid * BLOCK_SIZE
            for b2 in POWERS_OF_TWO:
                if b2 < count:
                    predict_each(out, "first_tile_only", (b, b2), _rows(prefix(b * b2)))
            predict_each(out, "store_race", b, _rows([mean_t[-1], m2_t[-1] / c_t[-1]]))
            if count <= MAX_RACE_PROGRAMS:  # out[0] and out[1] are two stores: each its own winner
                races = np.stack([mean_t, m2_t / c_t], 1)
                predict_each(out, "store_race", (b, ANY_ORDER, EACH_ELEMENT), races)
            predict_each(out, "spread_between_tiles", b, _rows([mean, m2_t.sum() / n]))
            merged: dict[int, dict[str, torch.Tensor]] = {}
            for variant, grid in _grids(n, b):
                if variant == b:
                    continue
                if grid not in merged:
                    merged[grid] = _mean_var_merges(c_t, mean_t, m2_t, grid, mean, n)
                for code, rows in merged[grid].items():
                    if code == "store_race any order":
                        predict_each(out, "store_race", (*variant, ANY_ORDER, EACH_ELEMENT), rows)
                    elif code.startswith("spread_between_tiles"):
                        predict_each(out, "spread_between_tiles", (*variant, code.split(": ")[1]), rows)
                    else:
                        predict_each(out, code, variant, rows)
        # The sums form: atomics add each tile's sums of d = x - shift and of d^2; the host divides by n.
        for name, shift in shifts.items():
            e = mean - shift  # x - shift = d + e
            sh1_t, sh2_t = s1_t + c_t * e, s2_t + 2 * e * s1_t + c_t * e * e
            sh1, sh2 = sh1_t.sum(), sh2_t.sum()
            variant = (b, "sums", name)
            if pad:
                tail = from_sums(shift, sh1 - sh1_t[-1], sh2 - sh2_t[-1])
                predict_each(out, "tail_not_processed", variant, _rows(tail))
                if name == "shift x[0]":  # other=0.0 and no tl.where: a masked lane's d is -shift
                    wrong = from_sums(shift, sh1 - pad * shift, sh2 + pad * shift**2)
                    predict_each(out, "masked_lanes_in_m2", variant, _rows(wrong))
                    # BLOCK_SIZE counted for every tile, d masked: the variance of x padded with the shift
                    predict_each(
                        out, "counted_masked_lanes", variant, _rows(from_sums(shift, sh1, sh2, count * b))
                    )
            if count > 1:
                predict_each(out, "first_tile_only", variant, _rows(from_sums(shift, sh1_t[0], sh2_t[0])))
                if b > 1:  # with b = 1, n copies of x[0] give [x[0], 0]: the first tile's result
                    offsetless = from_sums(shift, count * sh1_t[0], count * sh2_t[0])
                    predict_each(out, "missing_program_offset", variant, _rows(offsetless))
                predict_each(out, "store_race", variant, _rows(from_sums(shift, sh1_t[-1], sh2_t[-1])))
                # The two sums are two stores, each its own winner (program i's sum of d, program j's
                # of d^2), and the host combines them: count^2 pairs, predicted while that stays small.
                if count <= _SUMS_RACE_PROGRAMS:
                    mean_i = shift + sh1_t / n
                    pairs = np.stack(
                        np.broadcast_arrays(mean_i[:, None], sh2_t[None, :] / n - (sh1_t / n)[:, None] ** 2),
                        -1,
                    )
                    predict_each(
                        out, "store_race", (*variant, ANY_ORDER), torch.from_numpy(pairs.reshape(-1, 2))
                    )
                else:
                    too_large_to_predict(out, "store_race", (*variant, ANY_ORDER), 2)


# A race of the two sums' stores is predicted as every pair of winners up to this many programs.
_SUMS_RACE_PROGRAMS = 128


def _mean_var_merges(c_t, mean_t, m2_t, grid: int, mean: float, n: int) -> dict[str, torch.Tensor]:
    """What a persistent kernel's merges give on `grid` programs: {code: rows}."""
    n_p, mean_p, m2_p, m2_tiles = _mean_var_programs(c_t, mean_t, m2_t, grid)
    out = {}
    if grid > 1:  # the programs' partials merged without the spread between their means
        out["spread_between_tiles: between programs"] = _rows([mean, m2_p.sum() / n])
        out["store_race"] = _rows([mean_p[-1], m2_p[-1] / n_p[-1]])
        if grid <= MAX_RACE_PROGRAMS:
            out["store_race any order"] = torch.from_numpy(np.stack([mean_p, m2_p / n_p], 1))
    if grid < len(c_t):  # a program merged several tiles without the spread between them
        m2 = m2_tiles.sum() + (n_p * (mean_p - mean) ** 2).sum()
        out["spread_between_tiles: within programs"] = _rows([mean, m2 / n])
    return out


def _mean_var_predictions(case: Case) -> Predictions:
    x = case.inputs[0].double()
    n = x.numel()
    mean, var = _mean_var(x)
    out: Predictions = {}
    predict(out, "unbiased_variance", None, torch.stack([mean, var * n / (n - 1)]))
    predict(out, "std_instead_of_variance", None, torch.stack([mean, var.sqrt()]))
    predict(out, "outputs_swapped", None, torch.stack([var, mean]))
    # Both results stored to out[0]: the later store stays there, and out[1] is never written.
    predict(out, "both_stored_to_out0", "variance stored last", [var, UNWRITTEN])
    predict(out, "both_stored_to_out0", "mean stored last", [mean, UNWRITTEN])
    # Sums of d = x - shift, and sum(d^2) / n taken as the variance: that is var + (mean - shift)^2.
    for name, shift in (("shift x[0]", x[0]), ("shift 0", 0.0)):
        predict(out, "shift_correction_missing", name, [mean, var + (mean - shift) ** 2])
    for b in POWERS_OF_TWO:
        if n % b:
            predict(out, "counted_masked_lanes", b, _mean_var(padded(x, b, 0.0)))
    _mean_var_tile_predictions(x, out)
    return out


def _logsumexp_tolerance(case: Case) -> tuple[float, float]:
    """log(S) + m: the sum S of exp(x - m) is in [1, N], so its rounding error is absolute in log(S)."""
    terms = case.n
    return 16 * FP32_EPS * math.sqrt(terms + 1), 16 * FP32_EPS


def _mean_var_tolerance(case: Case) -> tuple[torch.Tensor, float]:
    """The mean as a sum; the variance scaled by the spread (x - mean), not by x itself.

    A stable method (Welford, or sums of x - shift) loses about eps * |mean| * spread; the two-sum form
    sum(x^2)/n - mean^2 loses about eps * mean^2, which is what the "offset" cases expose.
    Kept per input tensor: the checker asks once for every prediction it compares.
    """
    data = case.inputs[0]
    kept = _MEAN_VAR_TOLERANCES.get(id(data))
    if kept is not None and kept[0] is data:
        return kept[1]
    x = data.double()
    mean = x.mean().item()
    spread = (x - mean).abs().max().item()
    grow = 16 * FP32_EPS * math.sqrt(x.numel() + 1)
    atol = torch.tensor(
        [grow * x.abs().max().item(), grow * spread**2 + 64 * FP32_EPS * abs(mean) * spread],
        dtype=torch.float64,
    )
    if len(_MEAN_VAR_TOLERANCES) >= 256:  # a battery's worth or more: start again
        _MEAN_VAR_TOLERANCES.clear()
    _MEAN_VAR_TOLERANCES[id(data)] = (data, (atol, grow))  # holding data keeps its id from being reused
    return atol, grow


# id(input) -> (input, tolerance): see _mean_var_tolerance.
_MEAN_VAR_TOLERANCES: dict[int, tuple[torch.Tensor, tuple[torch.Tensor, float]]] = {}


_L2_NORM = Exercise(
    id="l2_norm",
    signature="l2_norm(x, out)",
    description="out[0] = sqrt(sum(x * x)): square inside the reduction, sqrt after the combine",
    hint="start from notebook 02's atomic sum; watch where the two non-linear steps go (\"The "
    'non-linearity pitfalls, live"): each element squared before the sum, the root taken once, '
    "of the total.",
    cases=_scaled_cases,
    reference=lambda x: (x * x).sum().sqrt().reshape(1),
    compare="sum",
    predictions=_l2_predictions,
    stale=lambda expected, garbage: (expected**2 + garbage).sqrt(),
    identity=0.0,
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
        trait_mistakes={"fp16_inexact": "fp16_accumulation"},
        trait_probes={"fp16_inexact": float16_exact},
        mistakes=mistakes(MESSAGES, **_COUNT),
    ),
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
        mistakes=mistakes(MESSAGES, **_LOGSUMEXP),
        tolerance=_logsumexp_tolerance,
        trait_mistakes={"extreme": "exp_overflow"},
    ),
    Exercise(
        id="mean_var",
        signature="mean_var(x, out)",
        description="out[0] = mean(x), out[1] = var(x) (divided by n) for N >= 2, accurate even when the "
        "mean is much larger than the spread",
        hint='start from "Mean and variance in one pass, and the caveat"; watch cancellation: sums of '
        "x and x^2 lose the variance of data far from 0, and merging two parts must add the "
        "spread between their means.",
        cases=_mean_var_cases,
        reference=_mean_var,
        compare="sum",
        predictions=_mean_var_predictions,
        mistakes=mistakes(MESSAGES, **_MEAN_VAR),
        tolerance=_mean_var_tolerance,
        trait_mistakes={"offset": "cancellation", "sorted": "spread_between_tiles"},
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
        mistakes=mistakes({**MESSAGES, **ONE_LAUNCH_MESSAGES}, **_L2),
    ),
]
