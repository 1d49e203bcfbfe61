"""Judging a learner's results: right or wrong within the tolerance, and does a prediction explain them.

utils.checker.runner runs the learner's function on each case and hands the results here. A result is right
when it agrees with the float64 reference within the exercise's tolerance and nothing around `out` or
in the inputs changed. A wrong one is explained by effects only: each exercise predicts what its common
mistakes would have produced on that case, by variant (utils.checker.predictions), and a mistake is named
when one variant explains every failing case and contradicts no passing one; a sharp explanation beats
a broad one (a race, where any program may win). The mistakes this module names itself, whatever the
exercise, are in ENGINE_MISTAKES; the exercises fill in their words ({reset}, {nan_hint}).

Nothing here reads the learner's code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from utils.checker.model import Case, Exercise
from utils.checker.predictions import Alternatives

SHARP = 2  # alternatives per case that a prediction may offer and still count as sharp (see diagnose)
PREDICTED_UP_TO = 1 << 23  # elements: a larger case is predicted only when no smaller one fails (diagnose)


@dataclass
class Run:
    """One case run by the checker: what out held afterwards, and what else the call touched."""

    case: Case
    result: torch.Tensor  # out after the call, float64 on the CPU
    expected: torch.Tensor  # float64 reference
    garbage: float  # what out held before the call
    canaries_intact: bool
    changed: tuple[str, ...]  # the inputs the call changed, by their names in the signature
    returned: object
    seed: int = 0  # the seed of its garbage and poison: a re-run with the same seed sees the same ones

    @property
    def inputs_intact(self) -> bool:
        return not self.changed

    @property
    def untouched(self) -> bool:
        return bool((self.result == self.garbage).all())


def agree(exercise: Exercise, case: Case, got: torch.Tensor, want: torch.Tensor, slack=0.0):
    """Element by element: does `got` match `want` within the exercise's tolerance (plus `slack`)? A NaN
    matches a NaN: where the right value is NaN (a sum of x holding one), NaN is the right result, and a
    predicted NaN explains a NaN."""
    if exercise.compare == "exact":
        close = (got == want) | ((got - want).abs() <= slack)
    elif exercise.compare == "elementwise":
        close = torch.isclose(got, want, rtol=2 * torch.finfo(torch.float32).eps, atol=slack)
    elif exercise.compare == "sum":
        atol, rtol = exercise.tolerance(case)  # atol: one number, or one per element of out
        atol = torch.as_tensor(atol, dtype=torch.float64)
        if atol.numel() == 1:
            atol = atol.reshape(-1)[0]
        elif atol.numel() == want.numel():  # one per element of out, shaped as `want` is (a 2-D out)
            atol = atol.reshape(want.shape)
        else:  # one per element of out, against alternatives stacked on a first axis
            atol = atol.reshape(-1)
        close = (got - want).abs() <= atol + slack + rtol * want.abs()
    else:  # Exercise checks this when it is made; a new kind of comparison must be added here
        raise ValueError(f"exercise {exercise.id!r}: no comparison {exercise.compare!r}")
    close = close & want.isfinite()
    return close | (got == want) | (got.isnan() & want.isnan())  # == matches infinities


def close(exercise: Exercise, case: Case, got: torch.Tensor, want: torch.Tensor, slack=0.0) -> bool:
    return got.shape == want.shape and bool(agree(exercise, case, got, want, slack).all())


def answers(exercise: Exercise, case: Case, got: torch.Tensor, inputs, kwargs, out_dtype=None) -> bool:
    """Is `got` the reference's answer for `inputs` and `kwargs` (rounded to `out_dtype`, if given), within
    `case`'s tolerance? Inputs or keywords the reference cannot take are no evidence: False."""
    try:
        want = exercise.reference(*(x.double() for x in inputs), **kwargs)
    except Exception:
        return False
    want = want if out_dtype is None else want.to(out_dtype).double()
    return close(exercise, case, got.reshape(-1), want.reshape(-1))


def stale_slack(run: Run) -> float:
    """Rounding allowed when a result was accumulated in float32 on top of the garbage out held before."""
    return 16 * torch.finfo(torch.float32).eps * math.sqrt(run.case.n + 1) * abs(run.garbage)


def correct(exercise: Exercise, run: Run) -> bool:
    return close(exercise, run.case, run.result, run.expected) and run.canaries_intact and run.inputs_intact


def explains(
    exercise: Exercise, run: Run, prediction: Alternatives | None, slack=0.0, each_element=False
) -> bool:
    """Does a predicted wrong result match what the learner's kernel produced?

    `prediction` holds one or more alternatives (utils.checker.predictions.Alternatives); it matches when
    any of them does. The elements an alternative writes must hold its values (a NaN it computes, a NaN);
    the others must still hold the garbage, or the exercise's identity where the host reset out first (0
    for a sum, -inf for a max). None, no prediction, is the right answer: it explains no failing run.
    `each_element`: every element may match a different alternative (races with a winner per element:
    Form.each_element in utils.checker.predictions); an element that no alternative writes must then be
    left as it was.
    """
    if prediction is None:
        return False
    result = run.result.reshape(-1)
    values = prediction.values
    matched = agree(exercise, run.case, result.expand_as(values), values, slack=slack)
    if prediction.written is None:  # every element written: the values decide
        return bool(matched.any(dim=0).all() if each_element else matched.all(dim=1).any())
    written = prediction.written
    untouched = result == run.garbage
    left = (untouched | written).all(dim=1)
    if exercise.identity is not None:  # or reset by the host, and then left
        untouched = untouched | (result == exercise.identity)
        left |= ((result == exercise.identity) | written).all(dim=1)
    if each_element:  # each element written by some alternative; one that none writes must be left alone
        return bool(((matched & written).any(dim=0) | (~written.any(dim=0) & untouched)).all())
    return bool((left & (matched | ~written).all(dim=1)).any())
