"""Naming the mistake: a mistake is named when one form of it explains every failing case and
contradicts no passing one, the same for every exercise (`diagnose` says how).

utils.checker.runner runs the learner's function on each case; utils.checker.judge says which runs
are right and whether a prediction explains a run; each family predicts what its common mistakes would
have produced (utils.checker.predictions). The mistakes named here whatever the exercise are in
utils.checker.messages.ENGINE_MISTAKES. Nothing here reads the learner's code.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from utils.checker.judge import PREDICTED_UP_TO, SHARP, Run, close, explains, stale_slack
from utils.checker.model import Exercise, out_layout
from utils.checker.predictions import Alternatives, Form, Predictions


def _past_float16(run: Run) -> bool:
    """A finite result larger than any sum of the case's elements, each held in float16, could be."""
    finite = run.result[run.result.isfinite()]
    return bool((finite.abs() > 65504.0 * max(1, run.case.n)).any())


def _traits(
    exercise: Exercise,
    failing: list[Run],
    passing: list[Run],
    wrong_values: list[Run],
    predicted_on_failing: Callable[[str], bool],
    structural: bool,
    confirms: Callable[[str], bool],
) -> list[str]:
    """The codes a case trait names (exercise.trait_mistakes: e.g. only the float16 cases fail).

    That split alone proves little: any mistake that happens to spare the other cases makes it. So a trait
    names its code only when the effects agree with it too: not when the code has a prediction on a
    failing case (`predicted_on_failing(code)`) and the trait has no probe (the prediction decides, in
    diagnose), not when an element was never written, and not when utils.checker.describe found a
    structure that a mistake of that kind cannot make (`structural`: an exact relation such as a factor of
    n, or wrong elements laid out by blocks). Last, `confirms(trait)` runs the exercise's probe for the
    trait where it has one (utils.checker.second_looks: the failing case again, with values on which the
    mistake would do no harm): the mistake is named only if the probe then passes. Of two traits that
    both fit, the one on fewer cases is named: a row of -inf, not every row that starts with -inf, when
    only the row of -inf fails."""
    found: dict[str, str] = {}  # trait -> code
    for trait, code in exercise.trait_mistakes.items():
        splits = (
            failing
            and all(trait in run.case.traits for run in failing)
            and any(trait not in run.case.traits for run in passing)
        )
        # one failing case, where most cases have the trait, restates that case's trait (the one case of
        # three programs, among the sums' float16-inexact cases, nearly all of them); it marks no split
        marked = sum(trait in run.case.traits for run in failing + passing)
        if not splits or (len(failing) == 1 and 2 * marked > len(failing + passing)):
            continue
        # Where the exercise has a probe for the trait, the probe decides; where it has none, a
        # prediction of the code does (a trait alone named any mistake that spared the other cases).
        probed = exercise.trait_probe(trait) is not None
        predicted = not probed and predicted_on_failing(code)
        # an element never written points to another mistake, except where out's own strides are in play
        # (stored with wrong ones, a strided out keeps some of its garbage) or a call's tiling is (a grid
        # that did not follow it leaves rows out)
        out_strided = exercise.strided_out and trait == "strided"
        leaves_out = out_strided or trait.startswith("called_")
        unwritten = not leaves_out and any(bool((run.result == run.garbage).any()) for run in wrong_values)
        # float16 holds at most 65504: a finite value past 65504 times the elements could not have gone
        # through it (a torch.empty slot read by a stage 2 gives 1e22, and may spare the probe by chance)
        # and no rounding makes a sum of terms that are never negative fall below 0 (an int8 counter that
        # wrapped does)
        below_zero = exercise.never_negative and any(bool((run.result < 0).any()) for run in wrong_values)
        beyond = trait.startswith("fp16") and (below_zero or any(_past_float16(run) for run in wrong_values))
        if not (predicted or unwritten or structural or beyond) and confirms(trait):
            found[trait] = code
    having = {
        trait: {run.case.name for run in failing + passing if trait in run.case.traits} for trait in found
    }
    return [
        code for trait, code in found.items() if not any(having[other] < having[trait] for other in found)
    ]


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

    codes = [] if all(run.inputs_intact for run in runs) else ["input_modified"]  # the likely cause: first
    if all(run.untouched for run in runs):
        returned = any(run.returned is not None for run in runs)
        return [*codes, "returned_instead_of_out" if returned else "not_written"]
    # out left as it was exactly where it is a strided view (an exercise whose out comes with strides),
    # right elsewhere: the results went to another tensor, such as the copy that out.contiguous() makes
    strided = [run for run in runs if out_layout(exercise, run.case) != "contiguous"]
    if strided and {id(r) for r in strided} == {id(r) for r in failing} and all(r.untouched for r in failing):
        return [*codes, "strided_out_not_written"]
    broken = [run for run in runs if not run.canaries_intact]
    # Where out is laid out as the inputs are (exercise.strided_out), a kernel that stores out as if it
    # were contiguous writes into a strided out's gaps and past its end: there the writes outside out are
    # what wrong strides do, and _traits names the strides if the cases split by layout.
    if broken and not (exercise.strided_out and all("strided" in run.case.traits for run in broken)):
        # Where out is a contiguous matrix whatever the inputs' layout, writes past its end on the cases with
        # strided inputs alone, whose values pass when laid out contiguously, are what out stored with an
        # input's strides does
        as_input = not exercise.strided_out and all(
            "strided" in run.case.traits and len(run.case.out_shape) == 2 for run in failing
        )
        codes.append("out_with_input_strides" if as_input and confirms("strided") else "out_of_bounds_write")
    passing = [run for run in runs if run not in failing]
    wrong_values = [run for run in failing if not close(exercise, run.case, run.result, run.expected)]
    # A case past PREDICTED_UP_TO (the GPU battery's largest) costs seconds to predict on a GPU machine's
    # CPU: it counts neither way while a smaller failing case can decide, and is predicted only if none can.
    decides = any(run.case.n <= PREDICTED_UP_TO for run in wrong_values)
    # A case of trait "unpredicted" (a sum of x holding inf or NaN) has no predictions: it counts neither way.
    unpredicted = {
        id(run)
        for run in wrong_values + passing
        if (decides and run.case.n > PREDICTED_UP_TO) or "unpredicted" in run.case.traits
    }
    # Predicted when first needed, the smallest case first: a prediction costs more than a run, and the
    # forms left to judge after a few cases are often none.
    predictions: dict[int, Predictions] = {}

    def predicted(run: Run) -> Predictions:
        if id(run) not in predictions:
            predictions[id(run)] = {} if id(run) in unpredicted else exercise.predict(run.case, on_gpu)
        return predictions[id(run)]

    smallest_first = sorted(wrong_values, key=lambda run: run.case.n)

    def predicted_on_failing(code: str) -> bool:
        return any(code in predicted(run) for run in smallest_first)

    traits = _traits(exercise, failing, passing, wrong_values, predicted_on_failing, structural, confirms)
    if "out_with_input_strides" in codes:  # the strides' own code says which strides
        traits = [code for code in traits if code != exercise.trait_mistakes.get("strided")]
    codes += traits
    if not wrong_values:
        return codes or ["wrong_values"]

    def stale(run: Run, results: Alternatives) -> torch.Tensor:  # an element never written keeps the garbage
        return torch.where(results.mask, exercise.stale(results.values, run.garbage), run.garbage)

    # Stale results may be NaN (the sqrt of a negative garbage plus a sum): compare them NaN for NaN.
    def stale_explains(run: Run, results: Alternatives) -> bool:
        stale_results = stale(run, results)
        return any(
            close(exercise, run.case, run.result.reshape(-1), r, slack=stale_slack(run))
            for r in stale_results
        )

    # Out not reset: every case, passing ones too, is what atomics onto the garbage give.
    stale_right = {
        id(run): stale_explains(run, Alternatives.of(run.expected.reshape(1, -1)))
        for run in wrong_values + passing
    }
    stale_alone = all(stale_right.values())
    if stale_alone:
        codes.append("stale_out")
    # Forms often share one prediction tensor (block sizes tried as constants and as capped powers of
    # two, persistent grids larger than the tiles): judge each (run, tensor) once, alone and on top of a
    # stale out.
    judged: dict[tuple[int, int, bool], bool] = {}
    judged_stale: dict[tuple[int, int], bool] = {}

    def guess(run: Run, code: str, form: Form) -> Alternatives | None:
        if id(run) in unpredicted:  # no evidence either way (as predictions.too_large_to_predict)
            return Alternatives(torch.empty(0, run.result.numel(), dtype=torch.float64))
        return predictions.get(id(run), {}).get(code, {}).get(form)

    def matches(run: Run, code: str, form: Form, passing: bool) -> bool:
        """Does the form explain the run? For a passing run: does it leave room for the mistake?"""
        prediction = guess(run, code, form)
        if prediction is None:
            return passing  # the mistake would not have shown: consistent with a pass, explains no failure
        if not len(prediction):
            return True  # too large to predict on this case (predictions.too_large_to_predict): no evidence
        key = (id(run), id(prediction), form.each_element)
        if key not in judged:
            judged[key] = explains(exercise, run, prediction, each_element=form.each_element)
        return judged[key]

    def with_stale(run: Run, code: str, form: Form) -> bool:  # the mistake where it shows, on a stale out
        mistaken = guess(run, code, form)
        if stale_right[id(run)] or mistaken is None or not len(mistaken):
            return stale_right[id(run)]
        key = (id(run), id(mistaken))
        if key not in judged_stale:
            judged_stale[key] = stale_explains(run, mistaken)
        return judged_stale[key]

    def alternatives(run: Run, code: str, form: Form) -> int:
        prediction = guess(run, code, form)
        return 0 if prediction is None else len(prediction)

    def evidence(run: Run, code: str, form: Form) -> bool:  # a match on this run shows the mistake
        prediction = guess(run, code, form)
        return prediction is not None and len(prediction) > 0 and prediction.proves

    # The forms that explain every failing run, alone (with evidence from one case at least) or on top
    # of a stale out, judged one failing run at a time; then the passing runs, smallest first, each
    # predicted only while a form is left to judge.
    alone: list[tuple[str, Form]] = []
    together: list[tuple[str, Form]] = []
    seen: set[tuple[str, Form]] = set()
    judged_runs: list[Run] = []
    for run in smallest_first:
        if id(run) in unpredicted:  # no forms come from it, and it refutes none: it would end the loop
            continue
        newcomers = [
            (code, form)
            for code, forms in predicted(run).items()
            for form in forms
            if form.shows_on(on_gpu) and (code, form) not in seen
        ]
        seen.update(newcomers)
        judged_runs.append(run)
        alone = [pair for pair in alone if matches(run, *pair, passing=False)] + [
            pair for pair in newcomers if all(matches(r, *pair, passing=False) for r in judged_runs)
        ]
        if not stale_alone:
            together = [pair for pair in together if with_stale(run, *pair)] + [
                pair for pair in newcomers if all(with_stale(r, *pair) for r in judged_runs)
            ]
        # A form first predicted on a later case fails the earlier ones (it has no prediction there),
        # unless a stale out explains each of them on its own.
        later_forms_count = not stale_alone and all(stale_right[id(r)] for r in judged_runs)
        if not (alone or together or later_forms_count):
            break
    alone = [pair for pair in alone if any(evidence(run, *pair) for run in wrong_values)]
    for run in sorted(passing, key=lambda run: run.case.n):
        if not (alone or together):
            break
        predicted(run)
        alone = [pair for pair in alone if matches(run, *pair, passing=True)]
        together = [pair for pair in together if with_stale(run, *pair)]
    alone.sort(key=lambda pair: pair[0])  # codes are named in this order
    together.sort(key=lambda pair: pair[0])
    # How many alternatives a mistake needed, at most on one case (a race: any program's partial may win),
    # alone and on top of a stale out (only for a mistake that no form explains alone).
    breadth: dict[str, int] = {}
    for code, form in alone:
        needed = max(alternatives(run, code, form) for run in wrong_values)
        breadth[code] = min(breadth.get(code, needed), needed)
    breadth_with_stale: dict[str, int] = {}
    for code, form in together:
        if code not in breadth:  # two mistakes at once: this one where it shows, and out not reset
            needed = max(max(alternatives(run, code, form), 1) for run in wrong_values)
            breadth_with_stale[code] = min(breadth_with_stale.get(code, needed), needed)
    # A code that yields to another that explains the runs too (Exercise.yields: it says less about the
    # same effects) steps aside first, however few alternatives it needed: a race among the programs'
    # winners needs fewer than "any later maximum", but only the second is proven by a tie broken wrong.
    breadth = {code: breadth[code] for code in exercise.without_broader(list(breadth))}
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

        def again(other_poison: bool) -> str:
            """The first wrong case run again: "same" result, "moved", or "written differently" (other
            elements left holding out's garbage: what a call writes changed, which no read past the end
            does; a ticket's state or a race does)."""
            rerun_ = rerun(first, other_poison)
            written = first.result != first.garbage
            if not torch.equal(written, rerun_.result != rerun_.garbage):
                return "written differently"
            # an element left unwritten holds out's garbage, which may change with the poison: not compared
            aligned = torch.where(written, rerun_.result, first.result)
            return "same" if close(exercise, first.case, first.result, aligned) else "moved"

        if again(False) != "same":
            codes.append("varies_between_runs")  # the same poison, another result: timing, not a read
        elif (moved := again(True)) != "same":
            # Moved with the poison. Back to the first poison, it must come back too: a result that
            # changes from call to call (state a call leaves behind) is not a read past the end.
            read = moved == "moved" and again(False) == "same"
            codes.append("out_of_bounds_read" if read else "varies_between_runs")
        elif all(run.result.isnan().any() and not run.expected.isnan().any() for run in wrong_values):
            codes.append("produced_nan")
        elif all(run.untouched for run in wrong_values):  # and no mistake of values explains them
            codes.append("not_written_where_failing")
    codes = exercise.without_broader(codes) or ["wrong_values"]
    unknown = [code for code in codes if code not in exercise.mistakes]
    if unknown:  # a prediction named a code its exercise has no sentence for: the registry's bug
        raise KeyError(f"exercise {exercise.id!r} has no message for the mistake codes {unknown}")
    return codes
