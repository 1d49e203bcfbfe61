"""The course's exercises in one place: ids, signatures, test batteries, float64 references and diagnoses.

Every exercise is a host function in destination-passing style, `fn(*inputs, out) -> None`, that launches
the learner's kernel and writes the answer into `out`. `utils.check` runs it on the battery built here.

A diagnosis is judged by effects only: for a wrong result we compute what each common mistake *would*
have produced on that case (padding lanes with the wrong `other=`, forgetting `pid * BLOCK_SIZE`,
reducing only the first tile, squaring after the sum, ...) and name the mistakes whose prediction matches
every failing case. Nothing here looks at the learner's code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

FP32_EPS = torch.finfo(torch.float32).eps
# Block sizes a learner might have picked, 16 .. 65536, tried for every N: even N = 1 matters, since
# BLOCK_SIZE = 1024 leaves it 1023 masked lanes.
POWERS_OF_TWO = [2**k for k in range(4, 17)]


@dataclass(frozen=True)
class Case:
    """One test case: the input data (contiguous fp32 or fp16), how to lay it out, the shape of out."""

    name: str
    inputs: tuple[torch.Tensor, ...]
    out_shape: tuple[int, ...]
    layout: str = "contiguous"  # 2-D inputs only: "contiguous", "transposed" or "sliced"
    # What is special about this case ("fp16", "strided", "offset"): a mistake that shows only on the
    # cases with a trait is named by Exercise.trait_mistakes.
    traits: frozenset[str] = frozenset()

    @property
    def n(self) -> int:
        return self.inputs[0].numel()


@dataclass(frozen=True)
class Mistake:
    """A diagnosis: a stable code (tests use it) and the sentence the learner reads."""

    code: str
    message: str


def sum_tolerance(case: Case) -> tuple[float, float]:
    """(atol, rtol) for a float32 sum of the case's input: |got - exact| <= atol + rtol * |exact|.

    Every addition rounds its result by at most FP32_EPS / 2 of that result, so a sum's error scales with the
    magnitudes it adds up, sum(|x|), not with the answer |sum(x)|: its *relative* error scales with the
    condition number sum(|x|) / |sum(x)|. All-positive data has condition number 1 (the easy case); mixed
    signs that cancel are the hard one, and at sum(x) = 0 no relative tolerance can be met. Hence two terms,
    both growing like sqrt(terms) (independent rounding errors add up like a random walk):
    - rtol * |exact| covers well-conditioned data, where the partial sums are as large as the answer;
    - atol = grow * max|x| covers data that cancels: with signs in no particular order the partial sums grow
      only like sqrt(k) * max|x|, so the error stays near FP32_EPS * sqrt(terms) * max|x| even when the
      answer is near 0.
    Neither term bounds data that cancels in long same-sign runs at large N (a big positive half, then a big
    negative half): its partial sums grow like k * max|x|. The battery's sorted cases are of that kind but
    small; tests/test_check.py checks that even a float32 loop adding one element after another, the order
    whose error grows fastest, stays within this tolerance on every case.
    """
    x = case.inputs[0].double()
    terms = x.shape[-1] if x.dim() == 2 else x.numel()
    grow = 16 * FP32_EPS * math.sqrt(terms + 1)
    return grow * x.abs().max().item(), grow


@dataclass(frozen=True)
class Exercise:
    id: str
    signature: str
    description: str
    hint: str  # shown while the exercise is not attempted yet
    cases: Callable[[bool], list[Case]]  # argument: large (True on a GPU)
    reference: Callable[..., torch.Tensor]  # float64 inputs -> float64 result
    compare: str  # "elementwise", "sum" or "exact"
    predictions: Callable[[Case], dict[str, list[torch.Tensor]]] = field(default=lambda case: {})
    # What the host resets out to before atomics (0 for sums, -inf for a max); None: out is never reset,
    # so an element left unwritten still holds the garbage.
    identity: float | None = None
    repeats: int = 1  # > 1: also require bit-identical results across repeated runs (on the GPU)
    # What an accumulating kernel returns when out (or its scratch) still held `garbage`:
    stale: Callable[[torch.Tensor, float], torch.Tensor] = field(
        default=lambda expected, garbage: expected + garbage)
    mistakes: dict[str, Mistake] = field(default_factory=dict)
    # (atol, rtol) for compare="sum"; atol may be a tensor shaped like out (one tolerance per output).
    tolerance: Callable[[Case], tuple[float | torch.Tensor, float]] = sum_tolerance
    # trait -> mistake code, named when exactly the cases with that trait fail (see Case.traits).
    trait_mistakes: dict[str, str] = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------------
# Input data. A fixed seed per case keeps reports reproducible; values are chosen to expose mistakes:
# all-negative data catches a max padded with 0.0, ragged sizes catch a wrong `other=`, large magnitudes
# catch fp16 accumulation.

def _values(n: int, kind: str, seed: int, dtype=torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(n, generator=g, dtype=torch.float64)
    data = {
        "mixed": 2 * u - 1,
        "positive": u + 0.5,
        "negative": -(u + 1),
        "large": (2 * u - 1) * 1e20,
        "ones": torch.ones(n, dtype=torch.float64),
        "ascending": (2 * u - 1).sort().values,  # the maximum sits in the very last tile
        "descending": (2 * u - 1).sort(descending=True).values,  # and here the minimum
        # Zeros, negative zeros and other values, for counting non-zeros: -0.0 == 0, so it is not counted.
        "sparse": torch.where(u < 0.4, 0.0, torch.where(u < 0.6, -0.0, 4 * u - 3)),
        "hot": 100 + 200 * u,  # exp(x) overflows float32 from x = 88.7
        "cold": -200 - 200 * u,  # exp(x) is 0 in float32 below x = -103.3
        "offset": 1e4 + (2 * u - 1),  # a mean far larger than the spread: sum(x^2) - n mean^2 cancels
    }[kind]
    return data.to(dtype)


def _vector_sizes(large: bool) -> list[tuple[int, str]]:
    """(N, value kind): N = 1, below, equal to and past the common block sizes, and a big ragged N."""
    sizes = [(1, "mixed"), (3, "negative"), (100, "positive"), (128, "mixed"), (1000, "negative"),
             (1024, "mixed"), (1025, "positive"), (3000, "mixed"), (4096, "negative"), (8191, "large"),
             (2**15 + 3, "mixed"), (2**15 + 2000, "ascending"), (2**15 + 1000, "descending")]
    if large:
        sizes += [(2**20, "positive"), (2**22 + 7, "mixed")]
    return sizes


def _describe(n: int, kind: str) -> str:
    return f"N={n}, {kind}"


def _vector_cases(large: bool, arity: int = 1, out_like_input: bool = False) -> list[Case]:
    cases = []
    for i, (n, kind) in enumerate(_vector_sizes(large)):
        inputs = tuple(_values(n, kind, seed=100 * i + j) for j in range(arity))
        cases.append(Case(_describe(n, kind), inputs, (n,) if out_like_input else (1,)))
    return cases


def _max_single_tile_cases(large: bool) -> list[Case]:
    # One program holds the whole array, so N stops at 65536 (2**16 lanes).
    sizes = [(n, k) for n, k in _vector_sizes(False)] + [(50000, "negative"), (2**16, "positive")]
    return [Case(_describe(n, k), (_values(n, k, seed=7 + i),), (1,)) for i, (n, k) in enumerate(sizes)]


def _scaled_cases(large: bool) -> list[Case]:
    """The vector cases with "large" at 1e15, not 1e20: squares of 1e20 overflow float32 (3.4e38)."""
    return [Case(c.name.replace("large", "large (1e15)"), (c.inputs[0] * 1e-5,), c.out_shape)
            if "large" in c.name else c for c in _vector_cases(large)]


def _extra_cases(kinds: list[tuple[int, str]], seed: int, traits=frozenset(), out_shape=(1,)) -> list[Case]:
    return [Case(_describe(n, kind), (_values(n, kind, seed=seed + i),), out_shape, traits=frozenset(traits))
            for i, (n, kind) in enumerate(kinds)]


def _count_cases(large: bool) -> list[Case]:
    sparse = [(1, "sparse"), (5, "sparse"), (1000, "sparse"), (4097, "sparse"), (2**15 + 5, "sparse")]
    if large:
        sparse.append((2**22 + 3, "sparse"))
    return _vector_cases(large) + _extra_cases(sparse, seed=500)


def _logsumexp_cases(large: bool) -> list[Case]:
    # "hot" and "cold" values make exp(x) overflow or underflow in float32 unless the max is subtracted.
    extreme = [(1000, "hot"), (3, "hot"), (5000, "cold"), (2**15 + 9, "hot")]
    return _vector_cases(large) + _extra_cases(extreme, seed=600, traits={"extreme"})


def _mean_var_cases(large: bool) -> list[Case]:
    # N >= 2 (a variance of one value is 0 either way); "offset" values sit at 1e4 with a spread of 1.
    # In sorted inputs the tiles' means differ, so a merge that drops the spread between them shows.
    cases = [Case(c.name, c.inputs, (2,), traits=frozenset({"sorted"} if c.name.endswith("scending") else ()))
             for c in _scaled_cases(large) if c.n > 1]
    return cases + _extra_cases([(1000, "offset"), (4096, "offset"), (2**15 + 3, "offset")], seed=700,
                                traits={"offset"}, out_shape=(2,))


def _row_cases(large: bool) -> list[Case]:
    """2-D inputs, including views that are not contiguous, and fp16 that overflows if summed in fp16."""
    shapes = [  # rows, cols, kind, dtype, layout
        (1, 1, "mixed", torch.float32, "contiguous"),
        (2, 3, "ones", torch.float32, "contiguous"),
        (7, 1000, "mixed", torch.float32, "contiguous"),
        (64, 3, "negative", torch.float32, "contiguous"),
        (16, 1024, "mixed", torch.float16, "contiguous"),
        (33, 515, "positive", torch.float32, "transposed"),
        (20, 700, "mixed", torch.float16, "sliced"),
        (5, 4099, "positive", torch.float32, "sliced"),
        (4, 4096, "overflow", torch.float16, "contiguous"),  # each row sums to 245760 > fp16 max 65504
    ]
    if large:
        shapes += [(4096, 4096, "mixed", torch.float16, "contiguous"),
                   (64, 65536 + 3, "positive", torch.float32, "sliced")]
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(shapes):
        if kind == "overflow":
            x = torch.full((rows, cols), 60.0, dtype=dtype)
        else:
            x = _values(rows * cols, kind, seed=300 + i, dtype=dtype).view(rows, cols)
        name = f"{rows}x{cols} {str(dtype).removeprefix('torch.')} {kind}, {layout}"
        traits = {"fp16"} if dtype == torch.float16 else set()
        traits |= {"strided"} if layout != "contiguous" else set()
        cases.append(Case(name, (x,), (rows,), layout, frozenset(traits)))
    return cases


# ----------------------------------------------------------------------------------------------------
# What the common mistakes produce. Each returns, per mistake code, the list of results that mistake
# could have produced on this case (one per block size the learner might have used).

def _padded(x: torch.Tensor, block: int, value: float) -> torch.Tensor:
    pad = -x.numel() % block
    return torch.cat([x, torch.full((pad,), value, dtype=x.dtype)])


def _tiles(x: torch.Tensor, block: int, value: float) -> torch.Tensor:
    return _padded(x, block, value).view(-1, block)


@dataclass(frozen=True)
class _Reduction:
    """How a whole-array reduction behaves, for predicting its mistakes."""

    reduce: Callable[[torch.Tensor], torch.Tensor]  # 1-D float64 -> 0-d
    identity: float  # what a masked lane must load
    wrong_others: tuple[float, ...]  # paddings a learner might use instead
    # The result of `grid` programs that all reduced the first tile; None: the same as one program.
    repeated: Callable[[torch.Tensor, int], torch.Tensor] | None = None


REDUCTIONS = {
    "sum": _Reduction(lambda t: t.sum(), 0.0, (-math.inf, math.inf, 1.0), lambda r, grid: grid * r),
    "max": _Reduction(lambda t: t.max(), -math.inf, (0.0, math.inf)),
    "min": _Reduction(lambda t: t.min(), math.inf, (0.0, -math.inf)),
    "logsumexp": _Reduction(lambda t: t.logsumexp(0), -math.inf, (0.0, 1.0),
                            lambda r, grid: r + math.log(grid)),
}


def _scalar_predictions(case: Case, op: str) -> dict[str, list[torch.Tensor]]:
    """Predictions for whole-array reductions to one scalar (op: a key of REDUCTIONS)."""
    x = case.inputs[0].double()
    n = x.numel()
    how = REDUCTIONS[op]
    out: dict[str, list[torch.Tensor]] = {k: [] for k in
                                          ("wrong_sentinel", "missing_program_offset", "first_tile_only",
                                           "tail_not_processed")}
    for b in POWERS_OF_TWO:
        grid = -(-n // b)
        first = x[: min(b, n)]
        out["wrong_sentinel"] += [how.reduce(_padded(x, b, v)) for v in how.wrong_others if n % b]
        if grid > 1:
            if how.repeated:
                out["missing_program_offset"].append(how.repeated(how.reduce(first), grid))
            out["first_tile_only"].append(how.reduce(first))
        if n % b:  # grid n // b; when n < b no program runs: out stays as it was (NaN: unwritten),
            kept = (n // b) * b  # or a second stage reduces zero partials to the identity
            out["tail_not_processed"] += [how.reduce(x[:kept])] if kept else [torch.tensor(math.nan),
                                                                              torch.tensor(how.identity)]
        # A two-stage kernel whose stage 2 reads only its first block of partials.
        for b2 in POWERS_OF_TWO:
            if b2 < grid:
                out["first_tile_only"].append(how.reduce(x[: b * b2]))
    if not how.repeated:  # an offset-less program sees exactly the first tile: one diagnosis
        del out["missing_program_offset"]
    return out


def _transformed_predictions(case: Case, transform, finish=lambda s: s) -> dict[str, list[torch.Tensor]]:
    """A sum of transform(x) (then `finish` on the host): the sum's mistakes, and the transform's."""
    x = case.inputs[0].double()
    fx = transform(x)
    out = {code: [finish(v) for v in vals]
           for code, vals in _scalar_predictions(Case(case.name, (fx,), (1,)), "sum").items()}
    out["missing_finish"] = [fx.sum()]  # e.g. the sum of squares, without the sqrt
    out["transform_after_reduce"] = [finish(transform(x.sum()))]
    out["finish_before_combine"] = []
    for b in POWERS_OF_TWO:
        tiles = _tiles(x, b, 0.0)
        after = transform(tiles.sum(dim=1)).sum()  # per program: transform of the tile's sum
        out["transform_after_reduce"] += [finish(after), after]
        early = finish(transform(tiles).sum(dim=1)).sum()  # per program: finished before the combine
        out["finish_before_combine"] += [early, finish(early)]
    return out


def _l2_predictions(case: Case) -> dict[str, list[torch.Tensor]]:
    return _transformed_predictions(case, lambda t: t * t, torch.sqrt)


def _l1_predictions(case: Case) -> dict[str, list[torch.Tensor]]:
    out = _transformed_predictions(case, torch.abs)
    for code in ("missing_finish", "finish_before_combine"):  # an L1 norm has no final step
        del out[code]
    return out


def _count_predictions(case: Case) -> dict[str, list[torch.Tensor]]:
    x = case.inputs[0].double()
    out = _scalar_predictions(Case(case.name, ((x != 0).double(),), (1,)), "sum")
    out["wrong_predicate"] = [(x > 0).sum().double(), (x < 0).sum().double(), (x == 0).sum().double()]
    return out


def _logsumexp_predictions(case: Case) -> dict[str, list[torch.Tensor]]:
    x = case.inputs[0].double()
    out = _scalar_predictions(case, "logsumexp")
    naive = torch.exp(x.float()).sum().log().double()  # exp(x) in float32, with no max subtracted
    out["exp_overflow"] = [naive, torch.tensor(math.inf), torch.tensor(-math.inf)]
    out["max_not_added_back"] = [x.logsumexp(0) - x.max()]
    # A padding v in the exp pass only (the max pass padded right): each masked lane adds exp(v - m), which
    # float32 evaluates as inf once v - m > 88.7.
    m, n = x.max(), x.numel()
    for b in POWERS_OF_TWO:
        for v in REDUCTIONS["logsumexp"].wrong_others if n % b else ():
            extra = (b - n % b) * torch.exp(torch.tensor(v - m.item(), dtype=torch.float32)).double()
            out["wrong_sentinel"].append(m + torch.log(torch.exp(x - m).sum() + extra))
    return out


def _mean_var(x: torch.Tensor) -> torch.Tensor:
    return torch.stack([x.mean(), x.var(correction=0)])


def _mean_var_predictions(case: Case) -> dict[str, list[torch.Tensor]]:
    x = case.inputs[0].double()
    n = x.numel()
    mean, var = _mean_var(x)
    return {"unbiased_variance": [torch.stack([mean, var * n / (n - 1)])],
            "std_instead_of_variance": [torch.stack([mean, var.sqrt()])],
            "outputs_swapped": [torch.stack([var, mean])],
            "counted_masked_lanes": [_mean_var(_padded(x, b, 0.0)) for b in POWERS_OF_TWO if n % b]}


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
    return torch.tensor([grow * x.abs().max().item(), grow * spread**2 + 64 * FP32_EPS * abs(mean) * spread],
                        dtype=torch.float64), grow


def _elementwise_predictions(case: Case, op: Callable[..., torch.Tensor]) -> dict[str, list[torch.Tensor]]:
    """Elementwise kernels: which prefix of out got written (NaN marks 'left untouched')."""
    n = case.n
    full = op(*(x.double() for x in case.inputs))
    out: dict[str, list[torch.Tensor]] = {"missing_program_offset": [], "tail_not_processed": []}
    for b in POWERS_OF_TWO:
        if b < n:
            out["missing_program_offset"].append(_prefix_written(full, b))
        if n % b:
            out["tail_not_processed"].append(_prefix_written(full, (n // b) * b))
    return out


def _prefix_written(full: torch.Tensor, k: int) -> torch.Tensor:
    result = torch.full_like(full, math.nan)
    result[:k] = full[:k]
    return result


def _row_predictions(case: Case) -> dict[str, list[torch.Tensor]]:
    x = case.inputs[0].double()
    rows, cols = x.shape
    out: dict[str, list[torch.Tensor]] = {"first_tile_only": [], "missing_row_offset": []}
    for b in POWERS_OF_TWO:
        if b < cols:
            out["first_tile_only"].append(x[:, :b].sum(dim=1))
    if rows > 1:
        out["missing_row_offset"].append(x[0].sum().expand(rows))  # every program read row 0
        total = torch.full((rows,), math.nan, dtype=x.dtype)  # every row added into out[0]
        total[0] = x.sum()
        out["missing_row_offset"].append(total)
        for r in range(rows):  # every row stored into out[0]; the last one written wins
            last = torch.full((rows,), math.nan, dtype=x.dtype)
            last[0] = x[r].sum()
            out["missing_row_offset"].append(last)
    return out


# ----------------------------------------------------------------------------------------------------
# The sentences the learner reads. {identity} is filled in per exercise.

MISTAKES = {
    "not_written": "out was never written: the kernel has no tl.store (or atomic) into out, or it was "
                   "never launched.",
    "returned_instead_of_out": "your function returned a value but left out untouched: exercises write "
                               "their answer into out (destination-passing style), e.g. with "
                               "tl.store(out_ptr + offsets, ...).",
    "out_of_bounds_write": "the kernel wrote outside out: a tl.store (or atomic) without mask=offsets < n, "
                           "or output offsets that run past the end.",
    "out_of_bounds_read": "the result depends on memory beyond the end of the input: a tl.load without "
                          "mask=offsets < n (or offsets that run past the end).",
    "stale_out": "the answer includes whatever out held before the launch: atomics add onto the old "
                 "contents, so reset out first ({reset}).",
    "wrong_sentinel": "the masked lanes past the end changed the result: other= must be the identity of "
                      "the operation ({identity}).",
    "missing_program_offset": "every program worked on the first tile: the offsets are missing "
                              "pid * BLOCK_SIZE (pid = tl.program_id(0)).",
    "first_tile_only": "only the first tile (a power-of-two prefix of the input) was reduced: a grid of one "
                       "program without a loop, offsets missing pid * BLOCK_SIZE, or a second stage that "
                       "reads only its first block of partials.",
    "tail_not_processed": "the last, partial tile was skipped: the grid must be triton.cdiv(n, BLOCK_SIZE), "
                          "not n // BLOCK_SIZE.",
    "missing_row_offset": "rows landed in the wrong place: the row index is missing from the input offset "
                          "(x_ptr + row * stride_row) or from the output (out_ptr + row).",
    "ignores_strides": "contiguous inputs pass but transposed or sliced views fail: pass x.stride(0) and "
                       "x.stride(1) to the kernel and use both in the offsets (don't assume stride 1).",
    "fp16_accumulation": "the fp16 cases fail: the sum was accumulated in fp16, which loses precision and "
                         "overflows past 65504; convert each tile with .to(tl.float32) before adding.",
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
    "produced_nan": "the result is NaN: {nan_hint}",
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
    "not_deterministic": "repeated runs on the same input gave different bits: the combine order depends "
                         "on timing (atomics). Write partials to scratch and combine them in one program.",
    "input_modified": "your kernel wrote into an input tensor: store into out_ptr, and only read x_ptr.",
    "wrong_values": "the values are wrong, and none of the common mistakes explains them: compare your "
                    "kernel line by line with the pattern in the notebook.",
}


_FILL = dict(transform="the transform", fused="tl.sum(f(x), axis=0)", finish="the final step",
             finish_rule="the final step of a sum is not the sum of the final steps",
             nan_hint="look for 0/0, inf - inf or 0 * inf, or the sqrt or log of a negative number.")


def _mistakes(**fill: str) -> dict[str, Mistake]:
    return {code: Mistake(code, text.format(**{**_FILL, **fill})) for code, text in MISTAKES.items()}


_SUM = dict(identity="other=0.0 for a sum", reset="out.zero_() before the launch")
_MAX = dict(identity="other=float('-inf') for a max", reset="out.fill_(float('-inf')) before tl.atomic_max")
_MIN = dict(identity="other=float('inf') for a min", reset="out.fill_(float('inf')) before tl.atomic_min")
_L2 = dict(_SUM, transform="the square", fused="tl.sum(x * x, axis=0)", finish="the sqrt",
           finish_rule="sqrt(a) + sqrt(b) != sqrt(a + b)")
_L1 = dict(_SUM, transform="the absolute value", fused="tl.sum(tl.abs(x), axis=0)")
_COUNT = dict(_SUM, identity="other=0.0, so that a masked lane counts as zero")
_LOGSUMEXP = dict(identity="other=float('-inf'): exp(-inf) = 0 adds nothing", reset="",
                  nan_hint="exp(-inf - (-inf)) is NaN. A lane (or program) whose running max is still -inf "
                           "because it has seen only masked lanes must not subtract it from itself: take one "
                           "scalar max per tile, or guard with tl.where(m == float('-inf'), ...).")
_MEAN_VAR = dict(_SUM, identity="other=0.0, and count only the unmasked lanes",
                 reset="zero the scratch before the launch",
                 nan_hint="a count of 0 in a division (a program or tile with no elements), or 0/0 in "
                          "combining two partials.")


def _elementwise(id, signature, description, hint, op, arity=1) -> Exercise:
    return Exercise(
        id=id, signature=signature, description=description, hint=hint,
        cases=lambda large: _vector_cases(large, arity=arity, out_like_input=True),
        reference=op, compare="elementwise",
        predictions=lambda case: _elementwise_predictions(case, op), mistakes=_mistakes(**_SUM))


def _total(id, signature, description, hint, op, **options) -> Exercise:
    """An exercise that reduces the whole input to out[0] with `op` ("sum", "max" or "min")."""
    stale = {"sum": lambda expected, garbage: expected + garbage,  # what atomics onto a stale out give
             "max": lambda expected, garbage: expected.clamp(min=garbage),
             "min": lambda expected, garbage: expected.clamp(max=garbage)}[op]
    return Exercise(
        id=id, signature=signature, description=description, hint=hint,
        cases=options.pop("cases", _vector_cases), reference=lambda x: REDUCTIONS[op].reduce(x).reshape(1),
        compare="sum" if op == "sum" else "exact",
        predictions=lambda case: _scalar_predictions(case, op), stale=stale, identity=REDUCTIONS[op].identity,
        mistakes=_mistakes(**{"sum": _SUM, "max": _MAX, "min": _MIN}[op]), **options)


def _rows(id, signature, description, hint, identity=None) -> Exercise:
    return Exercise(
        id=id, signature=signature, description=description, hint=hint, cases=_row_cases,
        reference=lambda x: x.sum(dim=1), compare="sum", predictions=_row_predictions, identity=identity,
        mistakes=_mistakes(**_SUM),
        trait_mistakes={"fp16": "fp16_accumulation", "strided": "ignores_strides"})


EXERCISES: dict[str, Exercise] = {exercise.id: exercise for exercise in [
    _elementwise(
        "copy", "copy(x, out)", "out = x: the worked example of notebook 01",
        "load a tile with a mask and store it to the same offsets of out.",
        op=lambda x: x.clone()),
    _elementwise(
        "vector_add", "vector_add(x, y, out)", "out = x + y, one element per lane, any N",
        "write the kernel body (offsets, mask, load, add, store) and launch it on a grid of "
        "triton.cdiv(n, BLOCK_SIZE) programs.",
        op=lambda x, y: x + y, arity=2),
    _elementwise(
        "relu", "relu(x, out)", "out = max(x, 0) elementwise, any N",
        "like vector add with one input: load, tl.maximum(x, 0.0), store.",
        op=lambda x: x.clamp(min=0)),
    _total(
        "sum_atomic", "sum_atomic(x, out)", "out[0] = sum(x): tl.sum per program, one tl.atomic_add each",
        "each program loads its tile with other=0.0, reduces it with tl.sum, and does one tl.atomic_add "
        "into out; zero out on the host first.", op="sum"),
    _total(
        "sum_two_stage", "sum_two_stage(x, out)",
        "out[0] = sum(x) without atomics: partials to scratch, one program combines them; bit-identical",
        "stage 1 stores one partial per program into a scratch tensor; stage 2 is one program that loops "
        "over the partials in a fixed order and stores the total.", op="sum", repeats=5),
    _total(
        "max_single_tile", "max_single_tile(x, out)",
        "out[0] = max(x) with one program holding the whole array (N <= 65536)",
        "one program, BLOCK_SIZE = triton.next_power_of_2(n), other=float('-inf'), tl.max, tl.store.",
        op="max", cases=_max_single_tile_cases),
    _total(
        "max_two_stage", "max_two_stage(x, out)",
        "out[0] = max(x) for any N: partial maxima, then one program",
        "stage 1 stores each program's tl.max into scratch; stage 2, one program, reduces the partials.",
        op="max"),
    _total(
        "min_two_stage", "min_two_stage(x, out)",
        "out[0] = min(x) for any N: partial minima, then one program",
        "the two-stage max with tl.min, and the identity of a min, other=float('inf'), for masked lanes.",
        op="min"),
    Exercise(
        id="l2_norm", signature="l2_norm(x, out)",
        description="out[0] = sqrt(sum(x * x)): square inside the reduction, sqrt after the combine",
        hint="square inside the reduction (tl.sum(x * x)), atomically add the partials into zeroed "
             "scratch, then take the sqrt once on the host.",
        cases=_scaled_cases, reference=lambda x: (x * x).sum().sqrt().reshape(1), compare="sum",
        predictions=_l2_predictions, stale=lambda expected, garbage: (expected**2 + garbage).sqrt(),
        identity=0.0, mistakes=_mistakes(**_L2)),
    Exercise(
        id="l1_norm", signature="l1_norm(x, out)",
        description="out[0] = sum(|x|): the L2 norm's shape with tl.abs as the transform and no final step",
        hint="tl.sum(tl.abs(x), axis=0) per program, one tl.atomic_add each into zeroed out.",
        cases=_vector_cases, reference=lambda x: x.abs().sum().reshape(1), compare="sum",
        predictions=_l1_predictions, identity=0.0, mistakes=_mistakes(**_L1)),
    Exercise(
        id="count_nonzero", signature="count_nonzero(x, out)",
        description="out[0] = the number of elements of x that are not 0 (as a float32, exact below 2^24)",
        hint="sum the predicate, tl.sum((x != 0).to(tl.float32), axis=0), with other=0.0 so that masked "
             "lanes count as zero.",
        cases=_count_cases, reference=lambda x: (x != 0).sum().double().reshape(1), compare="exact",
        predictions=_count_predictions, identity=0.0, mistakes=_mistakes(**_COUNT)),
    Exercise(
        id="logsumexp", signature="logsumexp(x, out)",
        description="out[0] = log(sum(exp(x))), without overflow: m + log(sum(exp(x - m))) with m = max(x)",
        hint="two passes (the max, then the sum of exp(x - max)), or one pass where each program keeps a "
             "running max m and sum s, rescaling s by exp(m_old - m_new) when m grows.",
        cases=_logsumexp_cases, reference=lambda x: x.logsumexp(0).reshape(1), compare="sum",
        predictions=_logsumexp_predictions, stale=lambda expected, garbage: torch.logaddexp(
            expected, torch.tensor(garbage, dtype=torch.float64)),
        mistakes=_mistakes(**_LOGSUMEXP), tolerance=_logsumexp_tolerance,
        trait_mistakes={"extreme": "exp_overflow"}),
    Exercise(
        id="mean_var", signature="mean_var(x, out)",
        description="out[0] = mean(x), out[1] = var(x) (divided by n) for N >= 2, accurate even when the "
                    "mean is much larger than the spread",
        hint="each program keeps the count, mean and M2 = sum((x - mean)^2) of its tiles, merging tile "
             "after tile with Chan's rule, and stores them; one program combines the programs' triples "
             "the same way. Or accumulate sums of (x - shift) with shift = x[0].",
        cases=_mean_var_cases, reference=_mean_var, compare="sum", predictions=_mean_var_predictions,
        mistakes=_mistakes(**_MEAN_VAR), tolerance=_mean_var_tolerance,
        trait_mistakes={"offset": "cancellation", "sorted": "spread_between_tiles"}),
    _rows(
        "row_sum", "row_sum(x, out)",
        "out[r] = sum(x[r, :]) in fp32 for 2-D x of any strides, fp16 or fp32; one program per row",
        "one program per row: loop over the columns in tiles, accumulate .to(tl.float32) into a vector, "
        "tl.sum after the loop, tl.store(out_ptr + row, ...); pass both strides."),
    _rows(
        "row_sum_atomic", "row_sum_atomic(x, out)",
        "row_sum with one program per row that ends in one scalar tl.atomic_add instead of a store",
        "reduce acc with tl.sum first, then tl.atomic_add(out_ptr + row, row_total): a scalar pointer with "
        "a scalar value; zero out on the host before the launch.", identity=0.0),
    _rows(
        "row_sum_split", "row_sum_split(x, out)",
        "row_sum with several programs per row, each adding its partial with one scalar tl.atomic_add",
        "a 2-D grid (rows, splits): each program sums its chunk of the row, then one "
        "tl.atomic_add(out_ptr + row, partial); zero out on the host first.", identity=0.0),
]}

