"""The checker's types: Case, Exercise and Mistake.

An exercise is a host function in destination-passing style, `fn(*inputs, out, **case.kwargs) -> None`;
utils.checker.runner runs it on the exercise's battery of Cases. A family module (elementwise, totals,
transforms, rows) owns its cases, its predictions of each mistake (utils.checker.predictions), its
messages and its registry entries; this module holds only what several families share.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

import torch

from utils.checker.messages import ENGINE_MISTAKES
from utils.checker.predictions import Form, Predictions, block_variants, predict_each
from utils.checker.rounding import MESSAGES as ROUNDING_MESSAGES
from utils.checker.rounding import NARROW, rounded
from utils.checker.rounding import YIELDS as ROUNDING_YIELDS
from utils.checker.tolerance import sum_tolerance

# How a case's 2-D inputs are laid out in memory; "mixed": each its own way, by its place among the inputs
# (input_layout), so that one input's strides used for another's show
Layout = Literal["contiguous", "transposed", "sliced", "mixed"]
Compare = Literal["elementwise", "sum", "exact"]  # how a result is judged against the reference


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
    # Keyword arguments of the call, after out (the norms' eps), as (name, value) pairs; the reference and
    # the predictions take them too
    keywords: tuple[tuple[str, float], ...] = ()
    # True: a function with no parameter for one of the keywords skips the case, a tiling it need not offer
    # (notebook 09's looped norms take no BLOCK_ROWS); False: such a function fails it, told to add one
    optional: bool = False

    def __post_init__(self):
        if self.layout not in get_args(Layout):
            raise ValueError(
                f"case {self.name!r}: layout must be one of {get_args(Layout)}, not {self.layout!r}"
            )

    @property
    def n(self) -> int:
        return self.inputs[0].numel()

    @property
    def kwargs(self) -> dict[str, float]:
        return dict(self.keywords)

    def skipped_by(self, fn) -> bool:
        """Whether `fn` skips this case: it is optional, and fn has no parameter for one of its keywords."""
        if not self.optional:
            return False
        try:
            parameters = inspect.signature(fn).parameters
        except (TypeError, ValueError):  # no signature to read: call it
            return False
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            return False
        return any(name not in parameters for name in self.kwargs)


MIXED = ("transposed", "sliced", "contiguous")  # a "mixed" case's layouts, input by input, round and round


def input_layout(layout: str, index: int) -> str:
    """The layout of a case's input number `index`: the case's own, or for "mixed" one of MIXED in turn."""
    return MIXED[index % len(MIXED)] if layout == "mixed" else layout


def out_layout(exercise: Exercise, case: Case) -> str:
    """out's layout in `case`: contiguous, or for an exercise with strided_out the case's own; in a "mixed"
    case the first of MIXED that no 2-D input has, so that out's strides differ from every input's."""
    if not exercise.strided_out or len(case.out_shape) != 2:
        return "contiguous"
    if case.layout != "mixed":
        return case.layout
    taken = {input_layout("mixed", i) for i, x in enumerate(case.inputs) if x.dim() == 2}
    return next((layout for layout in MIXED if layout not in taken), "sliced")


def row_case(
    inputs: tuple[torch.Tensor, ...],
    out_shape: tuple[int, ...],
    kind: str,
    layout: Layout,
    traits: frozenset[str] = frozenset(),
    out_dtype: torch.dtype = torch.float32,
) -> Case:
    """A case of the row batteries (rows, softmax, norms, backward), named after its first input, a
    (rows, cols) matrix: "{rows}x{cols} {dtype} {kind}, {layout}"; with the traits its dtype and layout
    give ("fp16", "strided") beside the battery's own."""
    rows, cols = inputs[0].shape
    dtype = inputs[0].dtype
    given = {"fp16"} if dtype == torch.float16 else set()
    given |= {"strided"} if layout != "contiguous" else set()
    name = f"{rows}x{cols} {str(dtype).removeprefix('torch.')} {kind}, {layout}"
    return Case(name, inputs, out_shape, layout, frozenset(given) | traits, out_dtype)


def laid_out_contiguously(case: Case) -> Case:
    """The "strided" trait's probe: a failing case with the same values, laid out contiguously, where a
    mistake in the strides does no harm. A kernel that fails there too has another mistake (one float16
    sliced case failing for its float16 named the strides before this probe)."""
    name = f"{case.name.rsplit(', ', 1)[0]}, contiguous (the same values)"
    return replace(case, name=name, layout="contiguous", traits=case.traits - {"strided"})


# The checker's probes for the traits every row battery shares (see Exercise.trait_probe).
DEFAULT_TRAIT_PROBES: dict[str, Callable[[Case], Case]] = {"strided": laid_out_contiguously}


def scaled_and_shifted(t: torch.Tensor) -> torch.Tensor:
    """t times -1.5, plus 0.25, in t's dtype."""
    return (t.double() * -1.5 + 0.25).to(t.dtype)


def every_input_scaled(inputs: tuple[torch.Tensor, ...]) -> tuple[tuple[torch.Tensor, ...], str]:
    """The probes' other values for a case's inputs (see Exercise.other_values): each scaled and shifted."""
    return tuple(map(scaled_and_shifted, inputs)), "A times -1.5, plus 0.25"


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
    description: str  # one line, listed by `python -m utils.checker` (the catalogue in CONTRIBUTING.md)
    hint: str  # shown while the exercise is not attempted yet
    cases: Callable[[bool], list[Case]]  # argument: large (True on a GPU)
    reference: Callable[..., torch.Tensor]  # float64 inputs -> float64 result
    compare: Compare
    # Every code a prediction, a trait or the engine can name, with its sentence (see `mistakes()`).
    mistakes: Mapping[str, Mistake]
    # (case, on_gpu) -> what each mistake would give; on_gpu: the checker runs on a GPU, where programs
    # that race may finish in any order and the battery is larger
    predictions: Callable[[Case, bool], Predictions] = field(default=lambda case, on_gpu: {})
    # What the host resets out to before atomics (0 for sums, -inf for a max); None: out is never reset,
    # so an element left unwritten still holds the garbage.
    identity: float | None = None
    # True: out is a sum of terms that are never negative (a count, a norm): rounding, float16's included,
    # keeps it at 0 or above, so a negative result rules the rounding codes out (utils.checker.diagnose).
    never_negative: bool = False
    repeats: int = 1  # > 1: also require bit-identical results across repeated runs (on the GPU)
    # What an accumulating kernel returns when out (or its scratch) still held `garbage`:
    stale: Callable[[torch.Tensor, float], torch.Tensor] = field(
        default=lambda expected, garbage: expected + garbage
    )
    # (atol, rtol) for compare="sum"; atol may be a tensor shaped like out (one tolerance per output).
    tolerance: Callable[[Case], tuple[float | torch.Tensor, float]] = sum_tolerance
    # trait -> mistake code, named when exactly the cases with that trait fail (see Case.traits) and
    # the effects agree (utils.checker.diagnose._traits).
    trait_mistakes: Mapping[str, str] = field(default_factory=dict)
    # trait -> probe: from a failing case, a case of the same shape and layout on which that trait's
    # mistake does no harm (values float16 sums exactly, for "fp16"). The mistake is named only if the
    # learner's function passes the probe (utils.checker.runner); a mistake of another kind fails it.
    trait_probes: Mapping[str, Callable[[Case], Case]] = field(default_factory=dict)
    # True: a call must launch exactly one Triton kernel and run no torch operation on the device, and
    # two calls in a row must both be right (the checker's first step; see ONE_LAUNCH_MESSAGES).
    one_launch: bool = False
    # True: the combine is the learner's Triton kernel, so a call that asks torch to reduce on the device
    # (a stage 2 done with partials.sum()) fails, `combined_by_torch` (utils.checker.probes)
    combine_in_triton: bool = False
    # True: out is laid out as the case's 2-D inputs are (in a "mixed" case, unlike any of them), for an
    # exercise whose text promises out's strides: a kernel that writes out as if it were contiguous then
    # fails the strided cases. False: out is contiguous.
    strided_out: bool = False
    # case -> how many atomic lanes a right call sends, for an exercise whose text sets it (one scalar atomic
    # per row); judged in the interpreter only (utils.checker.races). None: any number.
    atomic_lanes: Callable[[Case], int] | None = None
    # code -> codes that describe the same failures more closely: when one of them is named too, this code
    # is left out (every exercise: the rounding codes yield to a family's own float16 codes).
    yields: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # inputs -> (inputs of the same shapes and dtypes with other values, how B was made from A), for the
    # probes' call B (utils.checker.probes): an exercise whose inputs derive from one another (a softmax's
    # y, a forward's saved statistics) derives them again, so that B is an input the exercise allows.
    other_values: Callable[[tuple[torch.Tensor, ...]], tuple[tuple[torch.Tensor, ...], str]] = (
        every_input_scaled
    )
    # names of out's rows where each is a result of its own (layer_norm_dw_db: dW, db), for the report's
    # "wrong in out[0] (dW)"; empty: rows are rows
    out_rows: tuple[str, ...] = ()

    def trait_probe(self, trait: str) -> Callable[[Case], Case] | None:
        """The probe for `trait`: the exercise's own, else the checker's (DEFAULT_TRAIT_PROBES), else None."""
        return self.trait_probes.get(trait) or DEFAULT_TRAIT_PROBES.get(trait)

    @property
    def input_names(self) -> list[str]:
        """The inputs' names in the signature, those before out: ["x", "weight", "bias"] for
        "layer_norm(x, weight, bias, out, eps=1e-5)"."""
        params = self.signature.split("(", 1)[1].rstrip(")").split(", ")
        return params[: params.index("out")] if "out" in params else params[:-1]

    def without_broader(self, codes: list[str]) -> list[str]:
        """`codes` without those that yield to another code in `codes` (see `yields`)."""
        named = set(codes)
        yields = {**ROUNDING_YIELDS, **self.yields}
        return [code for code in codes if not yields.get(code, frozenset()) & named]

    def predict(self, case: Case, on_gpu: bool) -> Predictions:
        """What each mistake would give on `case`, by variant (see utils.checker.predictions), on a GPU or in
        the interpreter."""
        predictions = block_variants(self.predictions(case, on_gpu), case.inputs[0].shape[-1])
        expected = self.reference(*(x.double() for x in case.inputs), **case.kwargs)
        for code, narrow in NARROW.items():  # every exercise: the result rounded through a narrower float
            form = Form(str(narrow), each_element=True)
            predict_each(predictions, code, form, rounded(expected, narrow))
        return predictions

    def __post_init__(self):
        if self.compare not in get_args(Compare):
            raise ValueError(
                f"exercise {self.id!r}: compare must be one of {get_args(Compare)}, not {self.compare!r}"
            )
        unknown = set(self.trait_mistakes.values()) - set(self.mistakes)
        if unknown:
            raise ValueError(f"exercise {self.id!r}: trait_mistakes name codes with no message: {unknown}")
        unknown = set(self.yields).union(*self.yields.values()) - set(self.mistakes)
        if unknown:
            raise ValueError(f"exercise {self.id!r}: yields names codes with no message: {unknown}")


_FILL = dict(
    out="out",
    nan_hint="look for 0/0, inf - inf or 0 * inf (x / x or x - x on an infinite x, say), a NaN of x carried "
    "into the result, or the sqrt or log of a negative number.",
)


def mistakes(messages: Mapping[str, str], **fill: str) -> dict[str, Mistake]:
    """An exercise's mistakes: the checker's own (utils.checker.messages.ENGINE_MISTAKES) and its family's
    `messages`, each with the exercise's words filled in ({identity}, {reset}, {nan_hint}, ...)."""
    words = {**_FILL, **fill}
    templates = {**ENGINE_MISTAKES, **ROUNDING_MESSAGES, **messages}
    return {code: Mistake(code, text.format(**words)) for code, text in templates.items()}


def registry(*exercises: Exercise) -> dict[str, Exercise]:
    """Exercises by id; an id given twice is an error, not a silent replacement."""
    ids = [exercise.id for exercise in exercises]
    twice = {i for i in ids if ids.count(i) > 1}
    if twice:
        raise ValueError(f"exercise ids registered twice: {sorted(twice)}")
    return {exercise.id: exercise for exercise in exercises}
