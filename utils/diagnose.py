"""Judging a learner's results and naming the mistake: the checker's engine, the same for every exercise.

`utils.check` runs the learner's function on each case and hands the results here. A result is right
when it agrees with the float64 reference within the exercise's tolerance and nothing around `out` or
in the inputs changed. A wrong one is explained by effects only: each exercise predicts what its common
mistakes would have produced on that case, by variant (utils.exercises.core), and a mistake is named
when one variant explains every failing case and contradicts no passing one; a sharp explanation beats
a broad one (a race, where any program may win). The mistakes this module names itself, whatever the
exercise, are in ENGINE_MISTAKES; the exercises fill in their words ({reset}, {nan_hint}).

Nothing here reads the learner's code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from utils.exercises.core import Case, Exercise

SHARP = 2  # alternatives per case that a prediction may offer and still count as sharp (see diagnose)
PREDICTED_UP_TO = 1 << 23  # elements: a larger case is predicted only when no smaller one fails (diagnose)

ENGINE_MISTAKES = {
    "not_written": "out was never written: the kernel has no tl.store (or atomic) into out, or it was "
    "never launched.",
    "returned_instead_of_out": "your function returned a value but left out untouched: exercises write "
    "their answer into out (destination-passing style), e.g. with "
    "tl.store(out_ptr + offsets, ...).",
    "out_of_bounds_write": "the kernel wrote outside out: a tl.store (or atomic) without mask=offsets < n, "
    "or output offsets that run past the end.",
    "out_of_bounds_access": "a tl.load, tl.store or atomic with offsets that run far past a tensor: a "
    "missing mask (mask=offsets < n), a grid over the wrong axis (programs for "
    "columns where the kernel takes a row per program, or triton.cdiv with the "
    "wrong length), a wrong stride (a row stride used as a column stride, or one "
    "counted in bytes), or a scratch smaller than the grid (torch.empty(n // "
    "BLOCK_SIZE) for triton.cdiv(n, BLOCK_SIZE) programs).",
    "varies_between_runs": "the values are wrong and change from one run to the next on the same input: "
    "programs that race (several plain tl.store to one element, where an atomic or a "
    "second stage must combine them), memory read before anything wrote it (a "
    "torch.empty scratch read where no program stored), or state that one call leaves "
    "for the next (a ticket or a workspace that is never reset).",
    "out_of_bounds_read": "the result depends on memory beyond the end of the input: a tl.load without "
    "mask=offsets < n (or offsets that run past the end).",
    "stale_out": "the answer includes whatever out held before the launch: atomics add onto the old "
    "contents, so reset out first ({reset}).",
    "produced_nan": "the result is NaN: {nan_hint}",
    "not_deterministic": "repeated runs on the same input gave different bits: the combine order depends "
    "on timing (atomics). Write partials to scratch and combine them in one program.",
    "input_modified": "your kernel wrote into an input tensor: store into out_ptr, and only read x_ptr.",
    "wrong_values": "the values are wrong, and none of the common mistakes explains them: compare your "
    "kernel line by line with the pattern in the notebook.",
}


@dataclass
class Run:
    """One case run by the checker: what out held afterwards, and what else the call touched."""

    case: Case
    result: torch.Tensor  # out after the call, float64 on the CPU
    expected: torch.Tensor  # float64 reference
    garbage: float  # what out held before the call
    canaries_intact: bool
    inputs_intact: bool
    returned: object
    seed: int = 0  # the seed of its garbage and poison: a re-run with the same seed sees the same ones

    @property
    def untouched(self) -> bool:
        return bool((self.result == self.garbage).all())


def agree(exercise: Exercise, case: Case, got: torch.Tensor, want: torch.Tensor, equal_nan=False, slack=0.0):
    """Element by element: does `got` match `want` within the exercise's tolerance (plus `slack`)?"""
    if exercise.compare == "exact":
        close = (got == want) | ((got - want).abs() <= slack)
    elif exercise.compare == "elementwise":
        close = torch.isclose(got, want, rtol=2 * torch.finfo(torch.float32).eps, atol=slack)
    elif exercise.compare == "sum":
        atol, rtol = exercise.tolerance(case)  # atol: one number, or one per element of out
        atol = torch.as_tensor(atol, dtype=torch.float64).reshape(-1)
        atol = atol if atol.numel() > 1 else atol[0]  # one per element of out: out's last (only) axis
        close = (got - want).abs() <= atol + slack + rtol * want.abs()
    else:  # Exercise checks this when it is made; a new kind of comparison must be added here
        raise ValueError(f"exercise {exercise.id!r}: no comparison {exercise.compare!r}")
    close = close & want.isfinite()
    return close | (got == want) | (equal_nan & got.isnan() & want.isnan())  # == matches infinities


def close(
    exercise: Exercise, case: Case, got: torch.Tensor, want: torch.Tensor, equal_nan=False, slack=0.0
) -> bool:
    return got.shape == want.shape and bool(agree(exercise, case, got, want, equal_nan, slack).all())


def stale_slack(run: Run) -> float:
    """Rounding allowed when a result was accumulated in float32 on top of the garbage out held before."""
    return 16 * torch.finfo(torch.float32).eps * math.sqrt(run.case.n + 1) * abs(run.garbage)


def correct(exercise: Exercise, run: Run) -> bool:
    return close(exercise, run.case, run.result, run.expected) and run.canaries_intact and run.inputs_intact


def explains(
    exercise: Exercise, run: Run, prediction: torch.Tensor | None, slack=0.0, each_element=False
) -> bool:
    """Does a predicted wrong result match what the learner's kernel produced?

    `prediction` holds one or more alternatives, shape (alternatives, out.numel()) (utils.exercises.core);
    it matches when any of them does. Elements an alternative marks UNWRITTEN must still hold the
    garbage, or the exercise's identity where the host reset out first (0 for a sum, -inf for a max).
    None, no prediction, is the right answer: it explains no failing run. `each_element`: every element
    may match a different alternative (races with a winner per element, utils.exercises.core.EACH_ELEMENT);
    an element that no alternative writes must then be left as it was.
    """
    from utils.exercises.core import PRODUCES_NAN

    if prediction is None:
        return False
    result = run.result.reshape(-1)
    alternatives = prediction.double().reshape(-1, result.numel())
    unwritten = alternatives.isnan()  # UNWRITTEN is NaN (utils.exercises.core)
    left_as_garbage = ((result == run.garbage) | ~unwritten).all(dim=1)
    left_as_reset = ((result == exercise.identity) | ~unwritten).all(dim=1)
    left = left_as_garbage | (left_as_reset if exercise.identity is not None else False)
    written = agree(exercise, run.case, result.expand_as(alternatives), alternatives, slack=slack) | unwritten
    written |= (alternatives == PRODUCES_NAN) & result.isnan()  # a NaN the mistake computes
    if each_element:  # each element written by some alternative; one that none writes must be left alone
        never_written = unwritten.all(dim=0)
        untouched = result == run.garbage
        if exercise.identity is not None:
            untouched |= result == exercise.identity
        return bool(((written & ~unwritten).any(dim=0) | (never_written & untouched)).all())
    return bool((left & written.all(dim=1)).any())


def _traits(
    exercise: Exercise,
    failing: list[Run],
    passing: list[Run],
    wrong_values: list[Run],
    predictions: dict[int, dict],
    structural: bool,
    confirms: Callable[[str], bool],
) -> list[str]:
    """The codes a case trait names (exercise.trait_mistakes: e.g. only the float16 cases fail).

    That split alone proves little: any mistake that happens to spare the other cases makes it. So a trait
    names its code only when the effects agree with it too: not when the code has a prediction on a
    failing case and the trait has no probe (the prediction decides, in diagnose), not when an element
    was never written, and not when utils.describe found a structure that a mistake of that kind cannot
    make (`structural`: an exact relation such as a factor of n, or wrong elements laid out by blocks).
    Last, `confirms(trait)` runs
    the exercise's probe for the trait where it has one (utils.check: the failing case again, with values
    on which the mistake would do no harm): the mistake is named only if the probe then passes."""
    codes = []
    for trait, code in exercise.trait_mistakes.items():
        splits = (
            failing
            and all(trait in run.case.traits for run in failing)
            and any(trait not in run.case.traits for run in passing)
        )
        if not splits:
            continue
        # Where the exercise has a probe for the trait, the probe decides; where it has none, a
        # prediction of the code does (a trait alone named any mistake that spared the other cases).
        probed = trait in exercise.trait_probes
        predicted = not probed and any(code in predictions.get(id(run), {}) for run in wrong_values)
        unwritten = any(bool((run.result == run.garbage).any()) for run in wrong_values)
        if not (predicted or unwritten or structural) and confirms(trait):
            codes.append(code)
    return codes


def diagnose(
    exercise: Exercise,
    runs: list[Run],
    failing: list[Run],
    rerun: Callable[[Run, bool], Run],
    on_gpu: bool,
    structural: bool = False,
    confirms: Callable[[str], bool] = lambda trait: True,
) -> list[str]:
    """The mistake codes that explain the failing runs. `rerun(run, other_poison)` runs a case again, with
    the same poison around the input or another (a result that moves with the poison was read past the
    end; one that moves without it depends on timing or on memory nobody wrote).

    The consistency rule: a mistake is named only if one form of it (one variant: a learner's kernel
    makes its mistake the same way every time) explains every failing case and contradicts no passing
    one. A case on which a form was too large to predict counts neither way, but at least one failing
    case must predict it. Every mistake that passes is named; with none, the report shows the smallest
    failing case.
    `on_gpu`: the runs ran on a GPU, where programs that race may finish in any order.
    `structural`: utils.describe found an effect that rules out the mistakes a trait names (see _traits);
    `confirms(trait)`: whether the exercise's probe for that trait agrees (see _traits).
    """
    from utils.exercises.core import EACH_ELEMENT, shows_on

    def alternatives(prediction: torch.Tensor | None) -> int:
        return 0 if prediction is None else len(prediction)

    def each(variant) -> bool:
        return isinstance(variant, tuple) and EACH_ELEMENT in variant

    codes = [] if all(run.inputs_intact for run in runs) else ["input_modified"]  # the likely cause: first
    if all(run.untouched for run in runs):
        returned = any(run.returned is not None for run in runs)
        return [*codes, "returned_instead_of_out" if returned else "not_written"]
    if not all(run.canaries_intact for run in runs):
        codes.append("out_of_bounds_write")
    passing = [run for run in runs if run not in failing]
    wrong_values = [run for run in failing if not close(exercise, run.case, run.result, run.expected)]
    # A case past PREDICTED_UP_TO (the GPU battery's largest) costs seconds to predict on a GPU machine's
    # CPU: it counts neither way while a smaller failing case can decide, and is predicted only if none can.
    decides = any(run.case.n <= PREDICTED_UP_TO for run in wrong_values)
    unpredicted = {id(run) for run in wrong_values + passing if decides and run.case.n > PREDICTED_UP_TO}
    predictions = {  # none at all where no value is wrong (only canaries or inputs): nothing to explain
        id(run): {} if id(run) in unpredicted else exercise.predict(run.case)
        for run in (wrong_values + passing if wrong_values else [])
    }
    codes += _traits(exercise, failing, passing, wrong_values, predictions, structural, confirms)
    if not wrong_values:
        return codes or ["wrong_values"]

    def stale(run: Run, results: torch.Tensor) -> torch.Tensor:
        return exercise.stale(results.double(), run.garbage)

    def as_prediction(run: Run, result: torch.Tensor) -> torch.Tensor:
        return result.double().reshape(1, -1)

    # Stale results may be NaN (the sqrt of a negative garbage plus a sum): compare them NaN for NaN.
    def stale_explains(run: Run, results: torch.Tensor) -> bool:
        stale_results = stale(run, results).reshape(-1, run.result.numel())
        return any(
            close(exercise, run.case, run.result.reshape(-1), r, equal_nan=True, slack=stale_slack(run))
            for r in stale_results
        )

    # Out not reset: every case, passing ones too, is what atomics onto the garbage give.
    stale_alone = all(stale_explains(run, as_prediction(run, run.expected)) for run in wrong_values + passing)
    if stale_alone:
        codes.append("stale_out")
    # How many alternatives a mistake needed, at most on one case (a race: any program's partial may win),
    # alone and on top of a stale out.
    breadth: dict[str, int] = {}
    breadth_with_stale: dict[str, int] = {}
    # Variants often share one prediction tensor (block sizes tried as constants and as capped powers of
    # two, persistent grids larger than the tiles): judge each (run, tensor) once.
    judged: dict[tuple[int, int, bool], bool] = {}

    def matches(run: Run, prediction: torch.Tensor | None, each_element: bool, passing: bool) -> bool:
        """Does the prediction explain the run? For a passing run: does it leave room for the mistake?"""
        if prediction is None:
            return passing  # the mistake would not have shown: consistent with a pass, explains no failure
        if not len(prediction):
            return True  # too large to predict on this case (core.too_large_to_predict): no evidence
        key = (id(run), id(prediction), each_element)
        if key not in judged:
            judged[key] = explains(exercise, run, prediction, each_element=each_element)
        return judged[key]

    for code in sorted({code for p in predictions.values() for code in p}):
        variants = {v for p in predictions.values() for v in p.get(code, {}) if shows_on(v, on_gpu)}

        def guess(run: Run, variant, code=code) -> torch.Tensor | None:
            if id(run) in unpredicted:  # no evidence either way (as core.too_large_to_predict)
                return torch.empty(0, run.result.numel(), dtype=torch.float64)
            return predictions[id(run)].get(code, {}).get(variant)

        alone = [
            v
            for v in variants
            if all(matches(run, guess(run, v), each(v), passing=False) for run in wrong_values)
            and all(matches(run, guess(run, v), each(v), passing=True) for run in passing)
            and any(alternatives(guess(run, v)) for run in wrong_values)  # evidence from one case at least
        ]
        if alone:
            breadth[code] = min(max(alternatives(guess(run, v)) for run in wrong_values) for v in alone)
            continue
        if stale_alone:
            continue

        def with_stale(run: Run, variant) -> bool:  # this mistake where it shows, on top of a stale out
            guesses = as_prediction(run, run.expected)
            mistaken = guess(run, variant)
            if mistaken is not None:
                guesses = torch.cat([guesses, mistaken])
            return stale_explains(run, guesses)

        together = [
            v
            for v in variants
            if all(with_stale(run, v) for run in wrong_values) and all(with_stale(run, v) for run in passing)
        ]
        if together:
            # Two mistakes at once: this one (where it shows), plus out not reset before the atomics.
            breadth_with_stale[code] = min(
                max(max(alternatives(guess(run, v)), 1) for run in wrong_values) for v in together
            )
    # A sharp explanation (one or two possible results per case) beats a broad one: a kernel that always
    # gives the first tile's partial also "explains" a race in which that program happened to win.
    sharpest = min(breadth.values(), default=0)
    codes += [code for code, n in breadth.items() if n <= max(sharpest, SHARP) and code not in codes]
    if not breadth and breadth_with_stale:
        sharpest = min(breadth_with_stale.values())
        for code, n in breadth_with_stale.items():
            if n <= max(sharpest, SHARP):
                codes += [c for c in ("stale_out", code) if c not in codes]
    if not codes:
        first = wrong_values[0]

        def same_as_first(other_poison: bool) -> bool:
            return close(
                exercise, first.case, first.result, rerun(first, other_poison).result, equal_nan=True
            )

        if not same_as_first(False):
            codes.append("varies_between_runs")  # the same poison, another result: timing, not a read
        elif not same_as_first(True):
            # Moved with the poison. Back to the first poison, it must come back too: a result that
            # changes from call to call (state a call leaves behind) is not a read past the end.
            codes.append("out_of_bounds_read" if same_as_first(False) else "varies_between_runs")
        elif all(run.result.isnan().any() and not run.expected.isnan().any() for run in wrong_values):
            codes.append("produced_nan")
    codes = codes or ["wrong_values"]
    unknown = [code for code in codes if code not in exercise.mistakes]
    if unknown:  # a prediction named a code its exercise has no sentence for: the registry's bug
        raise KeyError(f"exercise {exercise.id!r} has no message for the mistake codes {unknown}")
    return codes
