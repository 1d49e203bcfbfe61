"""The checker's types: Case, Exercise and Mistake, and predictions (what a mistake would have produced).

An exercise is a host function in destination-passing style, `fn(*inputs, out) -> None`; utils.checker.runner
runs it on the exercise's battery of Cases. A family module (elementwise, totals, transforms, rows) owns
its cases, its predictions of each mistake, its messages and its registry entries; this module holds
only what several families share.

A prediction is what a mistake *would* have produced on a case, computed in float64 from the case's
inputs. An element that the mistake never writes is marked `UNWRITTEN`: the checker then expects it to
still hold out's initial garbage (or the exercise's identity, where the host resets out first).

Predictions are keyed by variant: the form the mistake takes in one learner's code (a block size, a
block size and a padding value, a grid of programs). A learner's kernel makes its mistake the same way on
every case, so utils.checker.diagnose names a mistake only when one variant explains every failing case and
contradicts no passing one. A variant missing from a case's predictions means: in that form, the
mistake leaves that case right (a wrong `other=` changes nothing when no lane is masked).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

import torch

from utils.checker.messages import ENGINE_MISTAKES
from utils.checker.rounding import MESSAGES as ROUNDING_MESSAGES
from utils.checker.rounding import NARROW, rounded
from utils.checker.rounding import YIELDS as ROUNDING_YIELDS
from utils.checker.tolerance import sum_tolerance

# Block sizes a learner might have picked, 1 .. 65536, tried for every N: even N = 1 matters, since
# BLOCK_SIZE = 1024 leaves it 1023 masked lanes.
POWERS_OF_TWO = [2**k for k in range(17)]
# In a prediction: "this element was never written".
UNWRITTEN = math.nan

Layout = Literal["contiguous", "transposed", "sliced"]  # how a 2-D input is laid out in memory
Compare = Literal["elementwise", "sum", "exact"]  # how a result is judged against the reference
# mistake code -> form -> what it produces: a tensor of shape (alternatives, out.numel()), float64. A
# form may give several alternatives on one case, e.g. which program's store survived a race.
Predictions = dict[str, dict["Form", torch.Tensor]]


@dataclass(frozen=True)
class Form:
    """One form of a mistake, the key of its predictions: the setting that makes it (a block size, a tuple
    that starts with one, a name or None), where it can happen and how its alternatives are matched."""

    setting: Hashable = None
    # Only a GPU makes it: programs that race finish in any order there, while the interpreter runs them
    # one after another (the last program's store is the one that stays).
    any_order: bool = False
    # Each element of out may come from a different alternative (each row's race has its own winner), not
    # the whole of out from one.
    each_element: bool = False
    # Only Triton's interpreter makes it (it runs Python's max() on a tile as Python does, say, where the
    # GPU compiler turns it into tl.maximum).
    interpreter_only: bool = False

    def shows_on(self, on_gpu: bool) -> bool:
        """Can this form happen on this device?"""
        return not (self.any_order and not on_gpu) and not (self.interpreter_only and on_gpu)


Variant = Hashable  # what a family passes to predict: a Form, or a setting (as Form(setting))


def race(setting: Hashable, each_element: bool = False) -> Form:
    """The form of a race on a GPU: any program's store may be the one that stays (each element's own,
    with `each_element`)."""
    return Form(setting, any_order=True, each_element=each_element)


@functools.lru_cache(maxsize=1 << 16)  # the same settings come back on every case
def as_form(variant: Variant) -> Form:
    return variant if isinstance(variant, Form) else Form(variant)


@functools.lru_cache(maxsize=1 << 16)
def _as_blocks(form: Form, fitted: int) -> tuple[Form, ...]:
    """The forms that `form` stands for, where its setting starts with a block size b (see block_variants);
    cached: the same few hundred forms come back on every case."""
    setting = (form.setting,) if isinstance(form.setting, int) else form.setting
    if not (isinstance(setting, tuple) and setting and isinstance(setting[0], int)):
        return (form,)  # not a block size
    b, rest = setting[0], setting[1:]
    flags = (form.any_order, form.each_element, form.interpreter_only)
    forms = [Form(("BLOCK_SIZE", b, *rest), *flags)]
    # min(fitted, cap) == b: the cap b itself below `fitted`, every cap from `fitted` up at it
    caps = [b] if b < fitted else [c for c in POWERS_OF_TWO if c >= b] if b == fitted else []
    forms += [Form(("BLOCK_SIZE = min(next_power_of_2(n), cap)", cap, *rest), *flags) for cap in caps]
    return tuple(forms)


def block_variants(predictions: Predictions, length: int) -> Predictions:
    """Predictions made for a block size b (a form whose setting is b, or a tuple (b, ...)) under both ways
    a learner sets BLOCK_SIZE: a constant b, or triton.next_power_of_2(length) capped at some power of two
    (the only way for a single tile). `length` is what the block tiles: N, or the number of columns."""
    fitted = 1 << max(length - 1, 0).bit_length()  # triton.next_power_of_2(length)
    return {
        code: {
            block_form: results for form, results in forms.items() for block_form in _as_blocks(form, fitted)
        }
        for code, forms in predictions.items()
    }


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
    form = as_form(variant)
    earlier = predictions.setdefault(code, {}).get(form)
    predictions[code][form] = rows if earlier is None else torch.cat([earlier, rows])


def too_large_to_predict(predictions: Predictions, code: str, variant: Variant, numel: int) -> None:
    """Record that mistake `code`, in form `variant`, is not predicted on this case: its alternatives
    would not fit in memory. The engine counts such a case neither for the form nor against it
    (utils.checker.diagnose), and names the form only if it explains the failing cases it does predict."""
    predictions.setdefault(code, {})[as_form(variant)] = torch.empty(0, numel, dtype=torch.float64)


def indistinct(predictions: Predictions, code: str, variant: Variant, numel: int) -> None:
    """Record that on this case, mistake `code` in form `variant` has another mistake's effect, which
    that one names (every program's partial but the only one is no partial at all): like
    too_large_to_predict, the case counts neither for the form nor against it."""
    too_large_to_predict(predictions, code, variant, numel)


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
    raced = race("every row stored into out's first row", each_element=True)
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
    # code -> codes that describe the same failures more closely: when one of them is named too, this code
    # is left out (every exercise: the rounding codes yield to a family's own float16 codes).
    yields: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def without_broader(self, codes: list[str]) -> list[str]:
        """`codes` without those that yield to another code in `codes` (see `yields`)."""
        named = set(codes)
        yields = {**ROUNDING_YIELDS, **self.yields}
        return [code for code in codes if not yields.get(code, frozenset()) & named]

    def predict(self, case: Case, on_gpu: bool) -> Predictions:
        """What each mistake would give on `case`, by variant (see utils.checker.model), on a GPU or in
        the interpreter."""
        predictions = block_variants(self.predictions(case, on_gpu), case.inputs[0].shape[-1])
        expected = self.reference(*(x.double() for x in case.inputs))
        for code, narrow in NARROW.items():  # every exercise: the result rounded through a narrower float
            form = Form(str(narrow), each_element=True)
            predict_each(predictions, code, form, nan_as_predicted(rounded(expected, narrow)))
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


_FILL = dict(nan_hint="look for 0/0, inf - inf or 0 * inf, or the sqrt or log of a negative number.")


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
