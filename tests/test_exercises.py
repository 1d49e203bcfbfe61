"""The exercise registry (utils.checker.families) is consistent: every code it can name has a sentence,
unknown kinds fail when an exercise is made, and the instructors' guide names only real diagnosis codes."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from utils.checker.families import EXERCISES
from utils.checker.messages import SUM_WORDS
from utils.checker.model import Case, Exercise, mistakes, registry
from utils.checker.predictions import NOTHING_WRITTEN, Form, predict

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_predicted_code_has_a_message(exercise_id):
    exercise = EXERCISES[exercise_id]
    for case in exercise.cases(False):
        predicted = set(exercise.predictions(case, False))
        assert predicted <= set(exercise.mistakes), (
            f"{exercise_id}, case {case.name!r}: predictions name {predicted - set(exercise.mistakes)}, "
            "which have no message"
        )
    assert set(exercise.trait_mistakes.values()) <= set(exercise.mistakes)
    assert {"not_written", "out_of_bounds_read", "wrong_values"} <= set(exercise.mistakes), "engine codes"


def test_messages_have_their_words_filled_in():
    for exercise in EXERCISES.values():
        for mistake in exercise.mistakes.values():
            assert "{" not in mistake.message, f"{exercise.id}/{mistake.code}: {mistake.message}"


# What a hint must not hold: a Triton call, an assignment or comparison written as code, a function call.
CODE_IN_HINT = re.compile(r"\btl\.|\btriton\.|[^<>!=]=|\w\(")


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_a_hint_says_where_to_start_and_what_to_watch_not_the_code(exercise_id):
    # shown while the exercise is "not attempted yet": a hint that is the kernel in one line gives the
    # exercise away
    hint = EXERCISES[exercise_id].hint
    assert not CODE_IN_HINT.search(hint), f"{exercise_id}'s hint has code in it: {hint}"
    assert "watch" in hint, f"{exercise_id}'s hint names no pitfall to watch: {hint}"


def test_the_code_detector_finds_the_hints_it_replaced():
    for old in (
        "one program, BLOCK_SIZE = triton.next_power_of_2(n), other=float('-inf'), tl.max, tl.store.",
        "sum the predicate, with other=0.0 so that masked lanes count as zero.",
        "then tl.atomic_add(out_ptr + row, row_total)",
    ):
        assert CODE_IN_HINT.search(old), old


def _exercise(**changes):
    fields = dict(
        id="probe",
        signature="probe(x, out)",
        description="",
        hint="",
        cases=lambda large: [],
        reference=lambda x: x,
        compare="sum",
        mistakes=mistakes({}, **SUM_WORDS),
    )
    return Exercise(**{**fields, **changes})


def test_an_unknown_comparison_fails_when_the_exercise_is_made():
    with pytest.raises(ValueError, match="compare must be one of"):
        _exercise(compare="approximately")


def test_an_unknown_layout_fails_when_the_case_is_made():
    with pytest.raises(ValueError, match="layout must be one of"):
        Case("bad", (torch.zeros(2, 2),), (2,), layout="diagonal")


def test_a_trait_needs_a_message():
    with pytest.raises(ValueError, match="no message"):
        _exercise(trait_mistakes={"fp16": "no_such_code"})


def test_an_id_registered_twice_is_an_error():
    with pytest.raises(ValueError, match="registered twice"):
        registry(_exercise(), _exercise())


def test_what_a_prediction_writes_is_explicit():
    predictions = {}
    predict(
        predictions, "code", "form", NOTHING_WRITTEN, [1.0, float("nan")], [2.0, 3.0], written=[True, False]
    )
    (alternatives,) = predictions["code"].values()
    assert alternatives.mask.tolist() == [[False, False], [True, False], [True, False]]
    assert alternatives.values[1, 0] == 1.0 and alternatives.values[1, 1].isnan()  # a NaN it computes
    predict(predictions, "computed", None, float("nan"))
    assert predictions["computed"][Form(None)].written is None  # a computed NaN is written


def _workshop_rows():
    """(exercise ids, diagnosis codes) for each exercise row of the guide's tables."""
    text = (ROOT / "docs" / "workshop.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        ids = [i for i in re.findall(r"`(\w+)`", line.split("|")[1]) if i in EXERCISES]
        if ids:  # a diagnosis is named as "(`code`)" after its description, or alone between semicolons
            items = "|".join(line.split("|")[2:]).split(";")
            named = [
                code
                for item in items
                for code in re.findall(r"\(`(\w+)`[,)]", item) + re.findall(r"^\s*`(\w+)`\s*\|?\s*$", item)
            ]
            yield ids, named


def test_the_workshop_guide_names_only_real_diagnosis_codes():
    rows = list(_workshop_rows())
    assert rows, "docs/workshop.md has no exercise tables"
    for ids, named in rows:
        known = set().union(*(EXERCISES[i].mistakes for i in ids)) | {"exception"}
        assert set(named) <= known, f"docs/workshop.md, row for {ids}: unknown codes {set(named) - known}"


# The address space the predictions may add to what the imports mapped: well inside what a Colab T4 leaves a
# notebook (12.7 GB of RAM, less the kernel's own), and more than any group of families needs today (at most
# 2.0 GiB above its imports on 2026-12-06, with equal predictions sharing one tensor; softmax_split alone
# took 4.6 GiB before they did). Counted from after the imports, because the imports' own mappings depend
# on the build: 0.6 GiB with torch's CPU wheel, 3.1 GiB with PyPI's CUDA one.
GPU_BATTERY_ALLOCATION = 3 * 2**30
FAMILIES = sorted({exercise.cases.__module__ for exercise in EXERCISES.values()})
# The families in three processes, not one each: a process spends 3.4 s importing torch before it
# predicts anything (two cores). One process per family took 125 s in all, three groups 95 s.
FAMILY_GROUPS = [FAMILIES[i::3] for i in range(3)]


def _largest(cases: list[Case]) -> list[Case]:
    """The cases that are largest by some measure a prediction's memory grows with: elements, outputs,
    rows and columns. A prediction's arrays are the shape of the input or of out, or of rows by rows (a
    race of rows), so the largest case by each of them is where its peak is. Predicting only these took
    37 s of predictions instead of 59 s for the whole battery (two cores, 2026-12-03)."""
    measures = (
        lambda case: case.n,
        lambda case: math.prod(case.out_shape),
        lambda case: case.inputs[0].shape[0],
        lambda case: case.inputs[0].shape[-1],
    )
    chosen: list[Case] = []
    for measure in measures:
        largest = max(cases, key=measure)
        if all(largest is not case for case in chosen):
            chosen.append(largest)
    return chosen


@pytest.mark.parametrize(
    "families", FAMILY_GROUPS, ids=lambda group: "+".join(f.rsplit(".", 1)[-1] for f in group)
)
def test_the_gpu_battery_can_be_diagnosed_within_a_colab_memory(families):
    """A wrong submission on a GPU makes the checker predict every mistake on the large battery. The
    predictions run here on the CPU, in a process whose address space is capped at what its imports
    mapped plus GPU_BATTERY_ALLOCATION, so that one which would allocate more (the softmax's race of rows
    once asked for 128 GiB) fails with its allocation instead of killing a learner's kernel. Only each
    exercise's largest cases run (_largest says why)."""
    script = f"""
import re, resource
from tests.test_exercises import _largest
from utils.checker.judge import PREDICTED_UP_TO
from utils.checker.families import EXERCISES
mapped = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
cap = mapped + {GPU_BATTERY_ALLOCATION}
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
for exercise in EXERCISES.values():
    if exercise.cases.__module__ in {families!r}:
        print(exercise.cases.__module__, exercise.id, flush=True)  # the last line says which failed
        # larger ones: see test_a_case_past_the_prediction_limit_...
        cases = [case for case in exercise.cases(True) if case.n <= PREDICTED_UP_TO]
        for case in _largest(cases):
            exercise.predict(case, True)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    last = done.stdout.strip().splitlines()[-1:] or ["(none started)"]
    assert done.returncode == 0, f"predicting the GPU battery failed in {last[0]}:\n{done.stderr[-2000:]}"


def test_the_gpu_battery_takes_a_persistent_grid_round_its_loop_three_times():
    """8 programs per SM over tiles of 4096 cover 4.3 M elements on an H200 in one trip: a kernel with no
    grid-stride loop at all passed every case of 2^22 + 7. The largest case is sized from the SMs."""
    from utils.checker.data import H200_SMS, persistent_trips_size, vector_sizes

    sms = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else H200_SMS
    largest = max(n for n, _ in vector_sizes(True))
    assert largest == persistent_trips_size() >= 3 * 8 * sms * 4096
    assert largest % 4096, "a ragged tail: the last tile is partial"


def test_a_case_past_the_prediction_limit_counts_only_when_no_smaller_one_fails(monkeypatch):
    """Predicting the GPU battery's largest case costs seconds on a CPU; the checker skips it while a
    smaller failing case can decide, and predicts it when it fails alone. (A passing case is predicted
    only while a form is left to judge: here no prediction has any, so the passing small case is not.)"""
    from utils.checker.diagnose import diagnose
    from utils.checker.judge import PREDICTED_UP_TO, Run

    exercise = EXERCISES["sum_atomic"]
    big = Case("big", (torch.ones(PREDICTED_UP_TO + 1),), (1,))
    small = Case("small", (torch.ones(100),), (1,))
    predicted: list[str] = []
    monkeypatch.setattr(Exercise, "predict", lambda self, case, on_gpu: predicted.append(case.name) or {})

    def run(case: Case, wrong: bool) -> Run:
        want = torch.tensor([float(case.n)], dtype=torch.float64)
        return Run(case, want * (2 if wrong else 1), want, -5.0, True, (), None)

    for small_wrong, expected in ((True, ["small"]), (False, ["big"])):
        predicted.clear()
        runs = [run(small, small_wrong), run(big, True)]
        failing = [r for r in runs if not torch.equal(r.result, r.expected)]
        diagnose(exercise, runs, failing, rerun=lambda r, other: r, on_gpu=True)
        assert sorted(predicted) == sorted(expected)


def test_the_strided_trait_is_probed_on_the_same_values_laid_out_contiguously():
    """Every exercise with a strided case gets the checker's probe for the trait: the failing case again,
    contiguous, its values unchanged, so that a mistake of another kind on a strided case (float16 sums on
    the one float16 case that is sliced) is not blamed on the strides."""
    from utils.checker.model import laid_out_contiguously

    exercise = EXERCISES["layer_norm_dx"]
    case = next(c for c in exercise.cases(False) if "strided" in c.traits)
    probe = exercise.trait_probe("strided")
    assert probe is laid_out_contiguously
    again = probe(case)
    assert again.layout == "contiguous" and "strided" not in again.traits
    assert all(torch.equal(a, b) for a, b in zip(again.inputs, case.inputs))
    assert exercise.trait_probe("no such trait") is None


@pytest.mark.parametrize(
    "exercise_id", ["softmax_backward", "layer_norm_dx", "rms_norm_dx", "layer_norm_dw_db"]
)
def test_the_probes_second_input_is_one_the_exercise_allows(exercise_id):
    """The probes' call B (Exercise.other_values) of an exercise whose inputs derive from one another: y a
    softmax, the statistics those a forward saves for B's x (every input times -1.5 gave an rstd below 0)."""
    from utils.checker.families.norm_backward import rms_statistics, saved_statistics

    exercise = EXERCISES[exercise_id]
    case = next(c for c in exercise.cases(False) if c.inputs[0].shape[0] > 2)
    inputs, how = exercise.other_values(case.inputs)
    assert [t.shape for t in inputs] == [t.shape for t in case.inputs] and how
    assert not torch.equal(inputs[0], case.inputs[0])
    x = inputs[0]
    if exercise_id == "softmax_backward":
        torch.testing.assert_close(inputs[0].double().sum(dim=1), torch.ones(x.shape[0], dtype=torch.float64))
    elif exercise_id == "rms_norm_dx":
        assert torch.equal(inputs[-1], rms_statistics(x))
    else:
        assert all(torch.equal(a, b) for a, b in zip(inputs[-2:], saved_statistics(x)))
        assert bool((inputs[-1] > 0).all())


def test_an_optional_case_is_skipped_by_a_function_without_its_keyword():
    """notebook 09's looped norms take no BLOCK_ROWS: the case that asks for one is theirs to skip; a case
    that is not optional is not (eps), nor is an optional one for a function that takes the keyword."""
    case = Case("c", (torch.ones(2, 2),), (2, 2), keywords=(("BLOCK_ROWS", 1),), optional=True)

    def without(x, weight, out, eps=1e-5):
        pass

    def with_it(x, weight, out, eps=1e-5, BLOCK_ROWS=None, num_warps=None):
        pass

    def any_keywords(x, weight, out, **options):
        pass

    assert case.skipped_by(without)
    assert not case.skipped_by(with_it) and not case.skipped_by(any_keywords)
    assert not Case("c", case.inputs, (2, 2), keywords=(("eps", 1e-3),)).skipped_by(without)


def test_equal_large_predictions_share_one_tensor_and_different_ones_do_not():
    from utils.checker.predictions import _SHARED_FROM, Alternatives

    values = torch.randn(2, _SHARED_FROM, dtype=torch.float64)
    values[0, 7] = float("nan")  # NaNs with the same bits are alike
    first = Alternatives.of(values.clone())
    same = Alternatives.of(values.clone())
    other = values.clone()
    other[1, 3] = -other[1, 3]
    different = Alternatives.of(other)
    signed_zero = values.clone()
    signed_zero[1, 5] = 0.0
    zero, minus_zero = Alternatives.of(signed_zero.clone()), signed_zero.clone()
    minus_zero[1, 5] = -0.0  # equal as numbers, apart as bits: kept apart
    assert same.values is first.values
    assert different.values is not first.values
    assert torch.equal(different.values.view(torch.int64), other.view(torch.int64))  # its own values
    assert Alternatives.of(minus_zero).values is not zero.values
    small = torch.randn(1, 8, dtype=torch.float64)  # below _SHARED_FROM: not looked up
    assert Alternatives.of(small.clone()).values is not Alternatives.of(small.clone()).values
