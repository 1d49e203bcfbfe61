"""Naming the mistake: a mistake is named when one form of it explains every failing case and
contradicts no passing one, the same for every exercise (`diagnose` says how).

utils.checker.runner runs the learner's function on each case; utils.checker.judge says which runs
are right and whether a prediction explains a run; each family predicts what its common mistakes would
have produced (utils.checker.model). The mistakes named here whatever the exercise are in
utils.checker.messages.ENGINE_MISTAKES. Nothing here reads the learner's code.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from utils.checker.judge import PREDICTED_UP_TO, SHARP, Run, close, explains, stale_slack
from utils.checker.model import Exercise


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
    was never written, and not when utils.checker.describe found a structure that a mistake of that kind
    cannot make (`structural`: an exact relation such as a factor of n, or wrong elements laid out by
    blocks). Last, `confirms(trait)` runs the exercise's probe for the trait where it has one
    (utils.checker.second_looks: the failing case again, with values on which the mistake would do no
    harm): the mistake is named only if the probe then passes."""
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
    `structural`: utils.checker.describe found an effect that rules out the mistakes a trait names (see
    _traits);
    `confirms(trait)`: whether the exercise's probe for that trait agrees (see _traits).
    """

    def alternatives(prediction: torch.Tensor | None) -> int:
        return 0 if prediction is None else len(prediction)

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
        id(run): {} if id(run) in unpredicted else exercise.predict(run.case, on_gpu)
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
        variants = {v for p in predictions.values() for v in p.get(code, {}) if v.shows_on(on_gpu)}

        def guess(run: Run, variant, code=code) -> torch.Tensor | None:
            if id(run) in unpredicted:  # no evidence either way (as core.too_large_to_predict)
                return torch.empty(0, run.result.numel(), dtype=torch.float64)
            return predictions[id(run)].get(code, {}).get(variant)

        alone = [
            v
            for v in variants
            if all(matches(run, guess(run, v), v.each_element, passing=False) for run in wrong_values)
            and all(matches(run, guess(run, v), v.each_element, passing=True) for run in passing)
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
    codes = exercise.without_broader(codes) or ["wrong_values"]
    unknown = [code for code in codes if code not in exercise.mistakes]
    if unknown:  # a prediction named a code its exercise has no sentence for: the registry's bug
        raise KeyError(f"exercise {exercise.id!r} has no message for the mistake codes {unknown}")
    return codes
