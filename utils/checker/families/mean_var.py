"""The mean and variance in one pass (notebook 06): its cases, the merges a learner may get wrong, its
tolerance and its entry. Its messages are the transforms family's (utils.checker.families.transforms)."""

from __future__ import annotations

import math

import numpy as np
import torch

from utils.checker.data import (
    describe,
    extra_cases,
    padded,
    values,
)
from utils.checker.families.logsumexp import as_rows, by_program, grids
from utils.checker.families.reductions import MAX_RACE_PROGRAMS
from utils.checker.families.transforms import MESSAGES, TRANSFORM_WORDS, scaled_cases
from utils.checker.messages import SUM_WORDS
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import (
    NOTHING_WRITTEN,
    POWERS_OF_TWO,
    Predictions,
    predict,
    predict_each,
    race,
    too_large_to_predict,
)
from utils.checker.tolerance import FP32_EPS

_MEAN_VAR = dict(
    {**SUM_WORDS, **TRANSFORM_WORDS},
    identity="other=0.0, and count only the unmasked lanes",
    reset="zero the scratch before the launch",
    nan_hint="a count of 0 in a division (a program or tile with no elements), or 0/0 in "
    "combining two partials.",
)


def _mean_var_cases(large: bool) -> list[Case]:
    # N >= 2 (a variance of one value is 0 either way); "offset" values sit at 1e4 with a spread of 1.
    # In sorted inputs the tiles' means differ, so a merge that drops the spread between them shows.
    cases = [
        Case(c.name, c.inputs, (2,), traits=frozenset({"sorted"} if c.name.endswith("scending") else ()))
        for c in scaled_cases(large)
        if c.n > 1
    ]
    # A loud tail: mixed values whose last 1500 are 10 times larger. Leaving out the end of x (a grid
    # rounded down, a stage 2 that reads too few partials) shows here as it does on the sorted cases,
    # while the spread between tiles' means barely does: only the sorted cases failing is that spread.
    loud = values(2**15 + 1500, "mixed", seed=710)
    loud[-1500:] *= 10
    # the same past 2^18: more than 64 partials at any tile up to 4,096, so a combine that reads a fixed
    # few leaves the loud tail out
    loud_many = values(2**18 + 1500, "mixed", seed=711)
    loud_many[-1500:] *= 10
    return (
        cases
        + [Case(describe(n.numel(), "mixed, the last 1500 x10"), (n,), (2,)) for n in (loud, loud_many)]
        + extra_cases(
            [(1000, "offset"), (4096, "offset"), (2**15 + 3, "offset")],
            seed=700,
            traits={"offset"},
            out_shape=(2,),
        )
    )


def mean_and_variance(x: torch.Tensor) -> torch.Tensor:
    return torch.stack([x.mean(), x.var(correction=0)])


def _mean_var_programs(c_t: np.ndarray, mean_t: np.ndarray, m2_t: np.ndarray, grid: int):
    """Chan's merge of each program's tiles (program p: tiles p, p + grid, ...): (n_p, mean_p, M2_p), and
    each program's M2 without the spread of its tiles' means (the sum of its tiles' M2)."""
    c, mu = by_program(c_t, grid, 0.0), by_program(mean_t, grid, 0.0)
    n_p = c.sum(0)
    mean_p = (c * mu).sum(0) / n_p
    m2_tiles = by_program(m2_t, grid, 0.0).sum(0)
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
            if kept:
                predict_each(out, "tail_not_processed", b, as_rows(prefix(kept)))
            else:  # no tile: a stage 2 merging no partials computes 0/0; a host that skips it writes nothing
                predict(out, "tail_not_processed", b, NOTHING_WRITTEN, [math.nan, math.nan])
            # Each masked lane's deviation 0 - mean_t added to M2: the last tile's M2 grows by pad * mean_t^2.
            predict_each(out, "masked_lanes_in_m2", b, as_rows([mean, var + pad * mean_t[-1] ** 2 / n]))
            # BLOCK_SIZE as every tile's count, the masked lanes' deviations left out of M2.
            mean_b = mean_t * c_t / b
            m2_b = m2_t + c_t * (mean_t - mean_b) ** 2
            padded_mean = mean * n / (count * b)
            m2 = m2_b.sum() + b * ((mean_b - padded_mean) ** 2).sum()
            predict_each(
                out,
                "counted_masked_lanes",
                (b, "deviations masked"),
                as_rows([padded_mean, m2 / (count * b)]),
            )
        if count > 1:
            # first_tile_only, and offsets missing pid * BLOCK_SIZE
            predict_each(out, "first_tile_only", b, as_rows(prefix(b)))
            for b2 in POWERS_OF_TWO:
                if b2 < count:
                    predict_each(out, "first_tile_only", (b, b2), as_rows(prefix(b * b2)))
            predict_each(out, "store_race", b, as_rows([mean_t[-1], m2_t[-1] / c_t[-1]]))
            if count <= MAX_RACE_PROGRAMS:  # out[0] and out[1] are two stores: each its own winner
                races = np.stack([mean_t, m2_t / c_t], 1)
                predict_each(out, "store_race", race(b, each_element=True), races)
            predict_each(out, "spread_between_tiles", b, as_rows([mean, m2_t.sum() / n]))
            merged: dict[int, dict[str, torch.Tensor]] = {}
            for variant, grid in grids(n, b):
                if variant == b:
                    continue
                if grid not in merged:
                    merged[grid] = _mean_var_merges(c_t, mean_t, m2_t, grid, mean, n)
                for code, rows in merged[grid].items():
                    if code == "store_race any order":
                        predict_each(out, "store_race", race(variant, each_element=True), rows)
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
                predict_each(out, "tail_not_processed", variant, as_rows(tail))
                if name == "shift x[0]":  # other=0.0 and no tl.where: a masked lane's d is -shift
                    wrong = from_sums(shift, sh1 - pad * shift, sh2 + pad * shift**2)
                    predict_each(out, "masked_lanes_in_m2", variant, as_rows(wrong))
                    # BLOCK_SIZE counted for every tile, d masked: the variance of x padded with the shift
                    predict_each(
                        out, "counted_masked_lanes", variant, as_rows(from_sums(shift, sh1, sh2, count * b))
                    )
            if count > 1:
                predict_each(out, "first_tile_only", variant, as_rows(from_sums(shift, sh1_t[0], sh2_t[0])))
                if b > 1:  # with b = 1, n copies of x[0] give [x[0], 0]: the first tile's result
                    offsetless = from_sums(shift, count * sh1_t[0], count * sh2_t[0])
                    predict_each(out, "missing_program_offset", variant, as_rows(offsetless))
                predict_each(out, "store_race", variant, as_rows(from_sums(shift, sh1_t[-1], sh2_t[-1])))
                # The two sums are two stores, each its own winner (program i's sum of d, program j's
                # of d^2), and the host combines them: count^2 pairs, predicted while that stays small.
                if count <= _SUMS_RACE_PROGRAMS:
                    mean_i = shift + sh1_t / n
                    pairs = np.stack(
                        np.broadcast_arrays(mean_i[:, None], sh2_t[None, :] / n - (sh1_t / n)[:, None] ** 2),
                        -1,
                    )
                    predict_each(out, "store_race", race(variant), torch.from_numpy(pairs.reshape(-1, 2)))
                else:
                    too_large_to_predict(out, "store_race", race(variant), 2)


# A race of the two sums' stores is predicted as every pair of winners up to this many programs.
_SUMS_RACE_PROGRAMS = 128


def _mean_var_merges(c_t, mean_t, m2_t, grid: int, mean: float, n: int) -> dict[str, torch.Tensor]:
    """What a persistent kernel's merges give on `grid` programs: {code: rows}."""
    n_p, mean_p, m2_p, m2_tiles = _mean_var_programs(c_t, mean_t, m2_t, grid)
    out = {}
    if grid > 1:  # the programs' partials merged without the spread between their means
        out["spread_between_tiles: between programs"] = as_rows([mean, m2_p.sum() / n])
        out["store_race"] = as_rows([mean_p[-1], m2_p[-1] / n_p[-1]])
        if grid <= MAX_RACE_PROGRAMS:
            out["store_race any order"] = torch.from_numpy(np.stack([mean_p, m2_p / n_p], 1))
    if grid < len(c_t):  # a program merged several tiles without the spread between them
        m2 = m2_tiles.sum() + (n_p * (mean_p - mean) ** 2).sum()
        out["spread_between_tiles: within programs"] = as_rows([mean, m2 / n])
    return out


def _mean_var_predictions(case: Case, on_gpu: bool) -> Predictions:
    x = case.inputs[0].double()
    n = x.numel()
    mean, var = mean_and_variance(x)
    out: Predictions = {}
    predict(out, "unbiased_variance", None, torch.stack([mean, var * n / (n - 1)]))
    predict(out, "std_instead_of_variance", None, torch.stack([mean, var.sqrt()]))
    predict(out, "outputs_swapped", None, torch.stack([var, mean]))
    # Both results stored to out[0]: the later store stays there, and out[1] is never written.
    predict(out, "both_stored_to_out0", "variance stored last", [var, 0.0], written=[True, False])
    predict(out, "both_stored_to_out0", "mean stored last", [mean, 0.0], written=[True, False])
    # Sums of d = x - shift, and sum(d^2) / n taken as the variance: that is var + (mean - shift)^2.
    for name, shift in (("shift x[0]", x[0]), ("shift 0", 0.0)):
        predict(out, "shift_correction_missing", name, [mean, var + (mean - shift) ** 2])
    for b in POWERS_OF_TWO:
        if n % b:
            predict(out, "counted_masked_lanes", b, mean_and_variance(padded(x, b, 0.0)))
    _mean_var_tile_predictions(x, out)
    return out


def _mean_var_tolerance(case: Case) -> tuple[torch.Tensor, float]:
    """The mean as a sum; the variance scaled by the spread (x - mean), not by x itself.

    A stable method (Welford, or sums of x - shift) loses about eps * |mean| * spread; the two-sum form
    sum(x^2)/n - mean^2 loses about eps * mean^2, which is what the "offset" cases expose. The variance's
    bound allows 8 times the first: 19 right submissions (the course's tests and five rounds of unseen
    ones, measured in the interpreter) used at most 0.002 of it on the offset cases, and 0.12 on offset
    data sorted (a per-lane Welford); 64 times let squares rounded in float32, summed in float64, pass.
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
        [grow * x.abs().max().item(), grow * spread**2 + 8 * FP32_EPS * abs(mean) * spread],
        dtype=torch.float64,
    )
    if len(_MEAN_VAR_TOLERANCES) >= 256:  # a battery's worth or more: start again
        _MEAN_VAR_TOLERANCES.clear()
    _MEAN_VAR_TOLERANCES[id(data)] = (data, (atol, grow))  # holding data keeps its id from being reused
    return atol, grow


# id(input) -> (input, tolerance): see _mean_var_tolerance.
_MEAN_VAR_TOLERANCES: dict[int, tuple[torch.Tensor, tuple[torch.Tensor, float]]] = {}


EXERCISES = [
    Exercise(
        id="mean_var",
        signature="mean_var(x, out)",
        description="out[0] = mean(x), out[1] = var(x) (divided by n) for N >= 2, accurate even when the "
        "mean is much larger than the spread",
        hint='start from "Mean and variance in one pass, and the caveat"; watch cancellation: sums of '
        "x and x^2 lose the variance of data far from 0, and merging two parts must add the "
        "spread between their means.",
        cases=_mean_var_cases,
        reference=mean_and_variance,
        compare="sum",
        predictions=_mean_var_predictions,
        mistakes=mistakes(MESSAGES, **_MEAN_VAR),
        tolerance=_mean_var_tolerance,
        trait_mistakes={"offset": "cancellation", "sorted": "spread_between_tiles"},
    ),
]
