"""The L1 norm's and the count's lossy mistakes: what is summed loses something on the way (float16,
an integer cast, a sample of x, its last element), predicted for the transforms family."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from utils.checker.data import (
    vector_sizes,
)
from utils.checker.judge import PREDICTED_UP_TO
from utils.checker.predictions import NOTHING_WRITTEN, POWERS_OF_TWO, Predictions, predict_each, race

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


class Scalars:
    """Scalar predictions (numbers, 0-d tensors, arrays or NOTHING_WRITTEN) gathered as floats and made into
    tensors all at once: `predict` for each of the hundreds of variants below would cost more than
    computing them."""

    def __init__(self):
        self.rows: list[tuple[str, object, list[float], list[bool]]] = []

    def __call__(self, code: str, variant, *results) -> None:
        written = [r is not NOTHING_WRITTEN for r in results]
        values = [float(r) if w else 0.0 for r, w in zip(results, written)]
        self.rows.append((code, variant, values, written))

    def into(self, out: Predictions, finish=None) -> None:
        """Into `out`, each result first through `finish` (the sqrt of an L2 norm) if there is one."""
        flat = torch.tensor([r for _, _, results, _ in self.rows for r in results], dtype=torch.float64)
        flat = flat if finish is None else finish(flat)
        start = 0
        for code, variant, results, written in self.rows:
            values = flat[start : start + len(results)].view(-1, 1)
            predict_each(
                out, code, variant, values, None if all(written) else torch.tensor(written).view(-1, 1)
            )
            start += len(results)


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


def sums_of_tiles(v: torch.Tensor):
    """b -> the sum of each tile of b elements of v (float64), all from one running sum."""
    running = torch.cat([v.new_zeros(1), v.cumsum(0)])

    def sums(b: int) -> torch.Tensor:
        if b == 1:
            return v
        starts = torch.arange(0, len(v), b)
        return running[(starts + b).clamp(max=len(v))] - running[starts]

    return sums


def _fp16_predictions(fx: torch.Tensor, fx16: np.ndarray, put: Scalars) -> None:
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
    half_tiles, fx_tiles = sums_of_tiles(halves), sums_of_tiles(fx)
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


def persistent_predictions(fx: torch.Tensor, finish, put: Scalars, on_gpu: bool) -> None:
    """A persistent kernel (program p sums tiles p, p + P, ... of fx) whose programs store with a plain
    tl.store: the last program's partial stays in the interpreter, which runs them in order, and any
    program's on a GPU. With P >= tiles: the last tile's partial (a grid of min(P, tiles)), or on a fixed
    grid of P > tiles programs 0.0 from an idle last program; a grid whose last program idles on every case
    of the battery would give 0.0 everywhere, which is no race's effect: not predicted. And with a
    `finish` (None: there is none): each program's partial finished before the combine."""
    largest = max(n for n, _ in vector_sizes(on_gpu) if n <= PREDICTED_UP_TO)  # the largest predicted
    tile_sums = sums_of_tiles(fx)
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
                put("store_race", race((b, p, "persistent")), *same(programs))


def lossy_predictions(x: torch.Tensor, transform, put: Scalars, count: bool) -> None:
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
    # x[n - 1] left out when n is odd (pairs of elements, n // 2 pairs); with n = 1 nothing is summed: out
    # stays as it was (reset, or the garbage). Always left out: utils.checker.families.reductions.
    if n % 2:
        put("last_element_dropped", "when n is odd", fx[:-1].sum() if n > 1 else NOTHING_WRITTEN)


def l1_truncation_predictions(x: torch.Tensor, put: Scalars) -> None:
    """Integers in an L1 norm, truncated toward zero: x cast before tl.abs (or an int32 accumulator of
    tl.abs(x).to(tl.int32)), each partial (int32 partials, scratch or out), or the total. The battery keeps
    every value and sum inside int32 (see _l1_cases), so no cast saturates or wraps."""
    code = "integer_truncation"
    magnitudes = x.double().abs()
    put(code, "x", torch.trunc(magnitudes).sum())
    put(code, "the total", torch.trunc(magnitudes.sum()))
    tile_sums = sums_of_tiles(magnitudes)
    for b in POWERS_OF_TWO:
        put(code, (b, "partials"), torch.trunc(tile_sums(b).float().double()).sum())
