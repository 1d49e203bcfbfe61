"""What every exercise family builds on: the Case and Exercise types, input data, and shared predictions.

An exercise is a host function in destination-passing style, `fn(*inputs, out) -> None`; `utils.check`
runs it on the exercise's battery of Cases. A family module (elementwise, totals, transforms, rows) owns
its cases, its predictions of each mistake, its messages and its registry entries; this module holds
only what several families share.

A prediction is what a mistake *would* have produced on a case, computed in float64 from the case's
inputs. An element that the mistake never writes is marked `UNWRITTEN`: the checker then expects it to
still hold out's initial garbage (or the exercise's identity, where the host resets out first).

Predictions are keyed by variant: the form the mistake takes in one learner's code (a block size, a
block size and a padding value, a grid of programs). A learner's kernel makes its mistake the same way on
every case, so utils.diagnose names a mistake only when one variant explains every failing case and
contradicts no passing one. A variant missing from a case's predictions means: in that form, the
mistake leaves that case right (a wrong `other=` changes nothing when no lane is masked).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

import torch

from utils.diagnose import ENGINE_MISTAKES
from utils.exercises.tolerance import FP32_EPS as FP32_EPS  # re-exported: the exercises read it here
from utils.exercises.tolerance import sum_tolerance

# Block sizes a learner might have picked, 1 .. 65536, tried for every N: even N = 1 matters, since
# BLOCK_SIZE = 1024 leaves it 1023 masked lanes.
POWERS_OF_TWO = [2**k for k in range(17)]
# In a prediction: "this element was never written".
UNWRITTEN = math.nan

Layout = Literal["contiguous", "transposed", "sliced"]  # how a 2-D input is laid out in memory
Compare = Literal["elementwise", "sum", "exact"]  # how a result is judged against the reference
Variant = Hashable  # the form a mistake takes: a block size, (block size, padding), a name, None
# mistake code -> variant -> what it produces: a tensor of shape (alternatives, out.numel()), float64. A
# variant may give several alternatives on one case, e.g. which program's store survived a race.
Predictions = dict[str, dict[Variant, torch.Tensor]]


# Marks a variant that only a GPU produces: programs that race finish in any order there, while the
# interpreter runs them one after another (the last program's store is the one that stays).
ANY_ORDER = "programs in any order (GPU)"


# With ANY_ORDER: each element of out may come from a different alternative (each row's race has its own
# winner), not the whole of out from one.
EACH_ELEMENT = "each element its own alternative"
# Marks a variant that only Triton's interpreter produces (it runs Python's max() on a tile as Python
# does, say, where the GPU compiler turns it into tl.maximum).
INTERPRETER_ONLY = "in Triton's interpreter only"


def shows_on(variant: Variant, on_gpu: bool) -> bool:
    """Can this form of a mistake happen on this device (ANY_ORDER: a GPU; INTERPRETER_ONLY: the CPU)?"""
    marks = variant if isinstance(variant, tuple) else ()
    return not (ANY_ORDER in marks and not on_gpu) and not (INTERPRETER_ONLY in marks and on_gpu)


def block_variants(predictions: Predictions, length: int) -> Predictions:
    """Predictions made for a block size b (variant b, or a tuple (b, ...)) under both ways a learner sets
    BLOCK_SIZE: a constant b, or triton.next_power_of_2(length) capped at some power of two (the only
    way for a single tile). `length` is what the block tiles: N, or the number of columns."""
    fitted = 1 << max(length - 1, 0).bit_length()  # triton.next_power_of_2(length)
    out: Predictions = {}
    for code, variants in predictions.items():
        out[code] = {}
        for variant, results in variants.items():
            if isinstance(variant, int):
                variant = (variant,)
            if not (isinstance(variant, tuple) and variant and isinstance(variant[0], int)):
                out[code][variant] = results  # not a block size
                continue
            b, rest = variant[0], variant[1:]
            fixed = ("BLOCK_SIZE", b, *rest)
            out[code][fixed] = results
            # min(fitted, cap) == b: the cap b itself below `fitted`, every cap from `fitted` up at it
            caps = [b] if b < fitted else [c for c in POWERS_OF_TWO if c >= b] if b == fitted else []
            for cap in caps:
                capped = ("BLOCK_SIZE = min(next_power_of_2(n), cap)", cap, *rest)
                out[code][capped] = results
    return out


def predict(predictions: Predictions, code: str, variant: Variant, *results) -> None:
    """Record that mistake `code`, in form `variant`, may produce any of `results` (tensors or numbers)."""
    rows = torch.stack([torch.as_tensor(r, dtype=torch.float64).reshape(-1) for r in results])
    predict_each(predictions, code, variant, rows)


def predict_each(predictions: Predictions, code: str, variant: Variant, alternatives) -> None:
    """`predict` for many alternatives at once: `alternatives[i]` is one possible result (shaped like out),
    a tensor or a numpy array. A float64 one is stored without a copy, so several codes and variants may
    share it (the engine only reads predictions)."""
    alternatives = torch.as_tensor(alternatives, dtype=torch.float64)
    rows = alternatives.reshape(len(alternatives), -1)
    earlier = predictions.setdefault(code, {}).get(variant)
    predictions[code][variant] = rows if earlier is None else torch.cat([earlier, rows])


def too_large_to_predict(predictions: Predictions, code: str, variant: Variant, numel: int) -> None:
    """Record that mistake `code`, in form `variant`, is not predicted on this case: its alternatives
    would not fit in memory. The engine counts such a case neither for the form nor against it
    (utils.diagnose), and names the form only if it explains the failing cases it does predict."""
    predictions.setdefault(code, {})[variant] = torch.empty(0, numel, dtype=torch.float64)


# The race of every row into out's first row has one alternative per row, each as large as out: it is
# predicted only where rows * rows * cols stays under this (a (4096, 1024) case would need 128 GiB); the
# GPU's larger cases leave it unpredicted (too_large_to_predict), and the smaller ones decide.
MAX_RACE_ELEMENTS = 1 << 22


def predict_missing_row_offset(
    predictions: Predictions, reference: torch.Tensor, first: torch.Tensor
) -> None:
    """missing_row_offset for a kernel of one program per row (or per tile of rows), from the right rows
    `reference` and `first`, what every row would hold had each program read row 0; both float64,
    shaped like out. Either the row is missing from the input's offset (every row of out is `first`), or
    from out's (every program stores into out's first row, and the other rows stay unwritten)."""
    rows, cols = reference.shape
    predict(predictions, "missing_row_offset", "every program read row 0", first)
    last = torch.full((rows, cols), UNWRITTEN, dtype=torch.float64)
    last[0] = reference[-1]  # the programs run in order in the interpreter: the last row's store stays
    predict(predictions, "missing_row_offset", "every row stored into out's first row", last.reshape(-1))
    # On a GPU any row's store may be the one that stays, and a different one for each element: the warps
    # of different programs store their parts of the row at different times.
    raced = ("every row stored into out's first row", ANY_ORDER, EACH_ELEMENT)
    if rows * rows * cols <= MAX_RACE_ELEMENTS:
        stored = torch.full((rows, rows, cols), UNWRITTEN, dtype=torch.float64)
        stored[:, 0] = reference
        predict_each(predictions, "missing_row_offset", raced, stored.reshape(rows, -1))
    else:
        too_large_to_predict(predictions, "missing_row_offset", raced, rows * cols)


# In a prediction: "this element is NaN" (NaN itself means UNWRITTEN). A float64 value no float32 result
# can hold, so it matches nothing but a NaN.
PRODUCES_NAN = 2.0**1000


def nan_as_predicted(result: torch.Tensor) -> torch.Tensor:
    """A computed result for a prediction: its NaNs become PRODUCES_NAN, so that they are not UNWRITTEN."""
    return torch.where(result.isnan(), PRODUCES_NAN, result.double())


def predict_computed(predictions: Predictions, code: str, variant: Variant, result: torch.Tensor) -> None:
    """`predict` for a result the mistake computes in full (any float dtype): the NaNs it computes stay NaN
    results (nan_as_predicted), not elements left unwritten."""
    predict(predictions, code, variant, nan_as_predicted(result))


def unwritten(like: torch.Tensor) -> torch.Tensor:
    """A prediction with no element written, shaped like `like`."""
    return torch.full_like(like, UNWRITTEN)


def is_unwritten(prediction: torch.Tensor) -> torch.Tensor:
    """Which elements of a prediction are marked UNWRITTEN."""
    return prediction.isnan()


@dataclass(frozen=True)
class Case:
    """One test case: the input data (contiguous fp32 or fp16), how to lay it out, the shape of out."""

    name: str
    inputs: tuple[torch.Tensor, ...]
    out_shape: tuple[int, ...]
    layout: Layout = "contiguous"  # 2-D inputs only
    # What is special about this case ("fp16", "strided", "offset"): a mistake that shows only on the
    # cases with a trait is named by Exercise.trait_mistakes.
    traits: frozenset[str] = frozenset()
    out_dtype: torch.dtype = torch.float32  # the softmax writes the input's dtype; every other exercise fp32

    def __post_init__(self):
        if self.layout not in get_args(Layout):
            raise ValueError(
                f"case {self.name!r}: layout must be one of {get_args(Layout)}, not {self.layout!r}"
            )

    @property
    def n(self) -> int:
        return self.inputs[0].numel()


@dataclass(frozen=True)
class Mistake:
    """A diagnosis: a stable code (tests use it) and the sentence the learner reads."""

    code: str
    message: str


@dataclass(frozen=True)
class Exercise:
    """One exercise id: its battery, its float64 reference, how to judge a result and what to diagnose."""

    id: str
    signature: str
    description: str  # one line, listed by `python -m utils.exercises` (the catalogue in CONTRIBUTING.md)
    hint: str  # shown while the exercise is not attempted yet
    cases: Callable[[bool], list[Case]]  # argument: large (True on a GPU)
    reference: Callable[..., torch.Tensor]  # float64 inputs -> float64 result
    compare: Compare
    # Every code a prediction, a trait or the engine can name, with its sentence (see `mistakes()`).
    mistakes: Mapping[str, Mistake]
    predictions: Callable[[Case], Predictions] = field(default=lambda case: {})
    # What the host resets out to before atomics (0 for sums, -inf for a max); None: out is never reset,
    # so an element left unwritten still holds the garbage.
    identity: float | None = None
    repeats: int = 1  # > 1: also require bit-identical results across repeated runs (on the GPU)
    # What an accumulating kernel returns when out (or its scratch) still held `garbage`:
    stale: Callable[[torch.Tensor, float], torch.Tensor] = field(
        default=lambda expected, garbage: expected + garbage
    )
    # (atol, rtol) for compare="sum"; atol may be a tensor shaped like out (one tolerance per output).
    tolerance: Callable[[Case], tuple[float | torch.Tensor, float]] = sum_tolerance
    # trait -> mistake code, named when exactly the cases with that trait fail (see Case.traits) and
    # the effects agree (utils.diagnose._traits).
    trait_mistakes: Mapping[str, str] = field(default_factory=dict)
    # trait -> probe: from a failing case, a case of the same shape and layout on which that trait's
    # mistake does no harm (values float16 sums exactly, for "fp16"). The mistake is named only if the
    # learner's function passes the probe (utils.check); a mistake of another kind fails it.
    trait_probes: Mapping[str, Callable[[Case], Case]] = field(default_factory=dict)
    # True: a call must launch exactly one Triton kernel and run no torch operation on the device, and
    # two calls in a row must both be right (the checker's first step; see ONE_LAUNCH_MESSAGES).
    one_launch: bool = False

    def predict(self, case: Case) -> Predictions:
        """What each mistake would give on `case`, by variant (see utils.exercises.core)."""
        return block_variants(self.predictions(case), case.inputs[0].shape[-1])

    def __post_init__(self):
        if self.compare not in get_args(Compare):
            raise ValueError(
                f"exercise {self.id!r}: compare must be one of {get_args(Compare)}, not {self.compare!r}"
            )
        unknown = set(self.trait_mistakes.values()) - set(self.mistakes)
        if unknown:
            raise ValueError(f"exercise {self.id!r}: trait_mistakes name codes with no message: {unknown}")


_FILL = dict(nan_hint="look for 0/0, inf - inf or 0 * inf, or the sqrt or log of a negative number.")


def mistakes(messages: Mapping[str, str], **fill: str) -> dict[str, Mistake]:
    """An exercise's mistakes: the checker's own (utils.diagnose.ENGINE_MISTAKES) and its family's
    `messages`, each with the exercise's words filled in ({identity}, {reset}, {nan_hint}, ...)."""
    words = {**_FILL, **fill}
    templates = {**ENGINE_MISTAKES, **messages}
    return {code: Mistake(code, text.format(**words)) for code, text in templates.items()}


def registry(*exercises: Exercise) -> dict[str, Exercise]:
    """Exercises by id; an id given twice is an error, not a silent replacement."""
    ids = [exercise.id for exercise in exercises]
    twice = {i for i in ids if ids.count(i) > 1}
    if twice:
        raise ValueError(f"exercise ids registered twice: {sorted(twice)}")
    return {exercise.id: exercise for exercise in exercises}


def float16_exact(case: Case, zero_mean: bool = False) -> Case:
    """A probe for the float16 traits: `case` with values whose every sum float16 holds exactly, in any
    order. Each row (the whole input, for a 1-D one) is zero but for 16 entries spread over it, of
    magnitude 0.5, 1, 1.5 or 2: partial sums of them, and of their squares, are multiples of 1/4 below
    32, which float16 holds exactly. A float16 accumulator then gives the right answer, and a mistake of
    another kind does not. Rows differ (the entries shift by one column a row, and their signs
    alternate), so a row mixed up with another shows. `zero_mean`: the entries come in pairs +v, -v, so
    a row's mean is exactly 0 and x - mean is x (for a norm, whose centring would round otherwise)."""
    x = case.inputs[0]
    rows, n = (x.shape[0], x.shape[1]) if x.dim() == 2 else (1, x.numel())
    positions = torch.linspace(0, n - 1, min(n, 16)).round().long().unique()
    k = torch.arange(len(positions), dtype=torch.float64)
    if zero_mean:
        values = (k // 2 % 4 + 1) * 0.5 * (1 - 2 * (k % 2))
        if len(values) % 2:  # an odd count (n < 16): the unpaired last entry would move the mean
            values[-1] = 0.0
    else:
        values = (k % 4 + 1) * 0.5 * torch.where(k % 3 == 2, -1.0, 1.0)
    data = torch.zeros(rows, n, dtype=torch.float64)
    for r in range(rows):
        data[r, (positions + r) % n] = values * (1 - 2 * (r % 2)) if not zero_mean else values
    probe = (data.reshape(x.shape).to(x.dtype),)
    return Case(
        f"{case.name}, values float16 sums exactly",
        probe + case.inputs[1:],
        case.out_shape,
        case.layout,
        frozenset(),
        case.out_dtype,
    )


# ----------------------------------------------------------------------------------------------------
# Input data. A fixed seed per case keeps reports reproducible; values are chosen to expose mistakes:
# all-negative data catches a max padded with 0.0, ragged sizes catch a wrong `other=`, large magnitudes
# catch fp16 accumulation.


def values(n: int, kind: str, seed: int, dtype=torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(n, generator=g, dtype=torch.float64)
    data = {  # functions, so that only the kind asked for is computed
        "mixed": lambda: 2 * u - 1,
        "positive": lambda: u + 0.5,
        "negative": lambda: -(u + 1),
        "large": lambda: (2 * u - 1) * 1e20,
        "ones": lambda: torch.ones(n, dtype=torch.float64),
        "ascending": lambda: (2 * u - 1).sort().values,  # the maximum sits in the very last tile
        "descending": lambda: (2 * u - 1).sort(descending=True).values,  # and here the minimum
        # For the argmax: all negative, on a grid of 1/16, so the maximum -1.0 occurs many times, in many
        # tiles; and mixed values with two NaNs, a third and two thirds of the way in.
        "ties": lambda: -1 - torch.floor(16 * u) / 16,
        # The maximum 1.0 once in each stretch of 4,096, at offset 4,095 - k in the k-th: for every tile
        # of a power of two up to 4,096 the first maximum sits in the latest lane of all, so a combine
        # that breaks ties by lane, by program or by slot order picks another one.
        "ties across tiles": lambda: _ties(u, offsets=lambda k: 4095 - k),
        # The maximum 1.0 at lane 7 of every stretch of 4,096: one lane sees it in tile after tile, and
        # must keep the first.
        "ties in one lane": lambda: _ties(u, offsets=lambda k: 7 + 0 * k),
        "nan": lambda: torch.where(_nan_positions(n), math.nan, 2 * u - 1),
        # Zeros, negative zeros and other values, for counting non-zeros: -0.0 == 0, so it is not counted.
        "sparse": lambda: torch.where(u < 0.4, 0.0, torch.where(u < 0.6, -0.0, 4 * u - 3)),
        "hot": lambda: 100 + 200 * u,  # exp(x) overflows float32 from x = 88.7
        "cold": lambda: -200 - 200 * u,  # exp(x) is 0 in float32 below x = -103.3
        "offset": lambda: 1e4 + (2 * u - 1),  # a mean far larger than the spread: sum(x^2) - n mean^2 cancels
    }[kind]()
    return data.to(dtype)


def _ties(u: torch.Tensor, offsets) -> torch.Tensor:
    """Negative values on a grid of 1/16, with the maximum 1.0 at k * 4096 + offsets(k) for each k that
    fits (and at 0 when none does)."""
    data = -1 - torch.floor(16 * u) / 16
    k = torch.arange(max(1, u.numel() // 4096))
    data[(k * 4096 + offsets(k)).clamp(max=u.numel() - 1)] = 1.0
    return data


def _nan_positions(n: int) -> torch.Tensor:
    """True at n // 3 and 2n // 3 (one position when n < 3): where the "nan" values hold a NaN."""
    where = torch.zeros(n, dtype=torch.bool)
    where[[n // 3, 2 * n // 3]] = True
    return where


def vector_sizes(large: bool) -> list[tuple[int, str]]:
    """(N, value kind): N = 1, below, equal to and past the common block sizes, and a big ragged N."""
    sizes = [
        (1, "mixed"),
        (3, "negative"),
        (100, "positive"),
        (128, "mixed"),
        (1000, "negative"),
        (1024, "mixed"),
        (1025, "positive"),
        (3000, "mixed"),
        (4096, "negative"),
        (8191, "large"),
        (2**15 + 3, "mixed"),
        (2**15 + 2000, "ascending"),
        (2**15 + 1000, "descending"),
        (6000, "negative"),  # a number of tiles that is not a power of two: a stage 2's lanes are masked
        (2**16, "negative"),  # a multiple of every block size: no lane is ever masked
    ]
    if large:
        sizes += [(2**20, "positive"), (2**22 + 7, "mixed"), (persistent_trips_size(), "mixed")]
    return sizes


H200_SMS = 132  # the reference GPU's streaming multiprocessors: the GPU battery's size without a GPU here


def persistent_trips_size(trips: int = 3, tile: int = 4096, programs_per_sm: int = 8) -> int:
    """N for the GPU battery's largest case: `trips` trips of a persistent grid's loop on this GPU (the
    grid of notebooks 06 and 07, 8 programs per SM over tiles of 4096), plus a ragged tail of 7. With a
    fixed N, a kernel with no grid-stride loop at all passed every case on a GPU with many SMs (132 SMs
    cover 4.3 M elements in one trip). Without a GPU, the H200's SM count: the tests build the GPU
    battery on the CPU too."""
    sms = H200_SMS
    if torch.cuda.is_available():
        sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return trips * programs_per_sm * sms * tile + 7


def describe(n: int, kind: str) -> str:
    return f"N={n}, {kind}"


def vector_cases(large: bool, arity: int = 1, out_like_input: bool = False) -> list[Case]:
    cases = []
    for i, (n, kind) in enumerate(vector_sizes(large)):
        inputs = tuple(values(n, kind, seed=100 * i + j) for j in range(arity))
        cases.append(Case(describe(n, kind), inputs, (n,) if out_like_input else (1,)))
    return cases


def extra_cases(kinds: list[tuple[int, str]], seed: int, traits=frozenset(), out_shape=(1,)) -> list[Case]:
    return [
        Case(describe(n, kind), (values(n, kind, seed=seed + i),), out_shape, traits=frozenset(traits))
        for i, (n, kind) in enumerate(kinds)
    ]


def padded(x: torch.Tensor, block: int, value: float) -> torch.Tensor:
    pad = -x.numel() % block
    return torch.cat([x, torch.full((pad,), value, dtype=x.dtype)])


def tiles(x: torch.Tensor, block: int, value: float) -> torch.Tensor:
    return padded(x, block, value).view(-1, block)


# The mistakes of tiling a 1-D input, shared by the elementwise, total and transform families.
TILE_MESSAGES = {
    "wrong_sentinel": "the masked lanes past the end changed the result: other= must be the identity of "
    "the operation ({identity}).",
    "missing_program_offset": "every program worked on the first tile (or on a window that pid alone "
    "shifts): the offsets are missing pid * BLOCK_SIZE (pid = tl.program_id(0)).",
    "first_tile_only": "only the first tile (a power-of-two prefix of the input) was reduced: a grid of one "
    "program without a loop, offsets missing pid * BLOCK_SIZE, or a second stage that "
    "reads only its first block of partials.",
    "tail_not_processed": "the last, partial tile was skipped: the grid must be triton.cdiv(n, BLOCK_SIZE), "
    "not n // BLOCK_SIZE.",
    "grid_block_mismatch": "the grid and the kernel disagree on BLOCK_SIZE: the launch made "
    "triton.cdiv(n, B) programs for a larger B than the kernel's tiles, so the end of x was never "
    "covered. Use one BLOCK_SIZE for both: kernel[(triton.cdiv(n, BLOCK_SIZE),)](..., "
    "BLOCK_SIZE=BLOCK_SIZE).",
    "store_race": "out holds one program's partial, not all of them combined: several programs wrote the "
    "same element with a plain tl.store, and only the last writer's value survives. Combine "
    "them with an atomic (into an out reset before the launch), or store one partial per "
    "program to scratch and reduce the partials in a second stage.",
}
# Words shared by the exercises that reduce to a sum: what a masked lane loads, how out is reset.
SUM_WORDS = dict(identity="other=0.0 for a sum", reset="out.zero_() before the launch")


# The mistakes of a one-launch reduction (notebook 07), judged before the battery by utils.check: the
# launches of one call (utils.launches), and four calls in a row on inputs A, A, B, A (the state probe).
ONE_LAUNCH_MESSAGES = {
    "extra_launches": "a call did more than one launch: a one-launch reduction runs one Triton kernel "
    "and no other work on the device. No out.zero_() or torch.zeros for the ticket on each call, no second "
    "kernel, no finish on the host ({finish}) after it: keep the partials and the ticket in a workspace "
    "allocated once, and let the last program combine, finish, store and reset the ticket.",
    "state_not_reset": "a call left something behind that the next one trips over (the ticket did not "
    "return to where it was, or a right call was followed by a wrong one on the same input). The last "
    "program must put the ticket back to 0 once it has combined (tl.atomic_xchg(ticket_ptr, 0) or "
    "tl.store(ticket_ptr, 0)), and nothing in the workspace may keep adding up from one call to the next.",
    "not_written": "out was never written: no program stored into out, or none passed the test for the "
    "last ticket. tl.atomic_add returns the value before its add, so the last of P programs draws P - 1: "
    "test ticket == tl.num_programs(0) - 1.",
    "stale_partials": "right only when the call before had the same input: the combine read partials "
    "left in the workspace by the call before. Each program must store its partial before it takes its "
    "ticket (the atomic with sem='acq_rel' publishes the stores made before it), and only the program "
    "that drew the last ticket may read the partials.",
}
