"""Properties of the checker on sizes its battery does not hold, drawn by hypothesis.

The exact-diagnosis tests (tests/test_check.py) judge every submission on the battery's fixed sizes. Here
each submission of the 1-D exercises runs on lengths drawn at random, and:

- a right submission is judged right;
- a wrong one is either right on that length (its mistake does not show there: a wrong `other=` on a
  length that fills every tile), or explained, element for element, by a prediction of the mistake it
  declares: the predictions hold off the battery too, not only on the sizes they were written against.

The row exercises (rows, softmax, norms, backward) run each submission on shapes, dtypes and layouts drawn
at random, float16 transposed among them, which the battery does not hold: a right one is judged right,
and a wrong one whose mistake a prediction names is right there or explained by that prediction, as above.

The examples are derandomised, so a run in CI draws the same lengths every time; a failure prints the
length that shows it.
"""

from __future__ import annotations

import functools

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_check import _params
from utils.checker.data import values
from utils.checker.families import EXERCISES
from utils.checker.judge import correct, explains
from utils.checker.messages import ENGINE_MISTAKES
from utils.checker.model import Case, Exercise
from utils.checker.report import ExerciseFailed
from utils.checker.runner import _run
from utils.setup import runs_on_gpu

# 1-D exercises whose battery is plain data of one length, and the kind of values that shows their
# mistakes. Not here: the rows, the softmax and the norms (2-D), mean_var and logsumexp (special data),
# argmax (NaNs and ties at chosen places), count_nonzero (its values sit on a grid, so that sums of them
# are exact and its compare can be).
KINDS = {
    "sum_atomic": "mixed",
    "sum_two_stage": "mixed",
    "max_two_stage": "negative",
    "min_two_stage": "mixed",
    "l2_norm": "mixed",
    "l1_norm": "mixed",
}
EXAMPLES = 3  # lengths per submission: each is a kernel run in the interpreter, a fraction of a second
LENGTHS = st.integers(min_value=1, max_value=20_000)
SETTINGS = settings(
    max_examples=EXAMPLES, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)


def _submissions(kind: str) -> list:
    """tests/test_check.py's parameters ("correct" or "wrong"), for the exercises in KINDS only."""
    return [param for param in _params(kind) if param.values[0] in KINDS]


def _case(exercise_id: str, n: int) -> Case:
    return Case(f"N={n}, drawn", (values(n, KINDS[exercise_id], seed=n),), (1,))


def _device() -> str:
    return "cuda" if runs_on_gpu() else "cpu"


@pytest.mark.parametrize("exercise_id, fn", _submissions("correct"))
@SETTINGS
@given(n=LENGTHS)
def test_a_right_submission_is_right_at_any_length(exercise_id, fn, n):
    exercise = EXERCISES[exercise_id]
    run = _run(exercise, _case(exercise_id, n), fn, _device(), seed=n % 7)
    assert correct(exercise, run), f"N={n}: expected {run.expected.tolist()}, got {run.result.tolist()}"


@pytest.mark.parametrize("exercise_id, fn, codes", _submissions("wrong"))
@SETTINGS
@given(n=LENGTHS)
def test_a_wrong_result_at_any_length_is_the_declared_mistakes_prediction(exercise_id, fn, codes, n):
    codes = {codes} if isinstance(codes, str) else set(codes)
    exercise = EXERCISES[exercise_id]
    case = _case(exercise_id, n)
    try:
        run = _run(exercise, case, fn, _device(), seed=n % 7)
    except ExerciseFailed:
        return  # an exception or a far-out access: reported as such, with no prediction to match
    if correct(exercise, run):
        return  # the mistake does not show at this length
    _assert_explained(exercise, case, run, fn, codes)


def _assert_explained(exercise: Exercise, case: Case, run, fn, codes: set[str]) -> None:
    """A prediction of one of `codes` explains the wrong run, element for element (skips the test where
    no code is predicted on this case: the checker's probes judge those)."""
    on_gpu = runs_on_gpu()
    predictions = exercise.predict(case, on_gpu)
    predicted = {code for code in codes if code in predictions}
    if not predicted:
        pytest.skip(f"{sorted(codes)}: judged by the checker's own probes, not by a prediction")
    explained = [
        (code, variant)
        for code in predicted
        for variant, alternatives in predictions[code].items()
        if variant.shows_on(on_gpu)
        and explains(exercise, run, alternatives, each_element=variant.each_element)
    ]
    assert explained, (
        f"{case.name}: {fn.__name__} gave {run.result.flatten()[:8].tolist()} (right: "
        f"{run.expected.flatten()[:8].tolist()}, the first 8 of each), which no prediction of "
        f"{sorted(predicted)} explains"
    )


# The exercises whose input is a 2-D view (utils.checker.runner lays it out), and how their inputs are drawn.
ROW_EXERCISES = sorted(eid for eid, ex in EXERCISES.items() if ex.cases(False)[0].inputs[0].dim() == 2)
ROW_SHAPES = st.tuples(
    st.integers(min_value=1, max_value=40),  # rows
    st.integers(min_value=1, max_value=2100),  # columns: past a tile of 1024 and of 2048
    st.sampled_from([torch.float32, torch.float16]),
    st.sampled_from(["contiguous", "transposed", "sliced"]),
)


@functools.cache
def _row_template(exercise_id: str, dtype: torch.dtype) -> Case:
    """A battery case of `dtype`: how many inputs, their dtypes, out's shape and dtype."""
    return next(case for case in EXERCISES[exercise_id].cases(False) if case.inputs[0].dtype == dtype)


def _row_case(exercise_id: str, rows: int, cols: int, dtype: torch.dtype, layout) -> Case:
    template = _row_template(exercise_id, dtype)
    seed = rows * 10_007 + cols
    x = values(rows * cols, "mixed", seed=seed, dtype=dtype).view(rows, cols)
    t_rows, t_cols = template.inputs[0].shape

    def length(p: torch.Tensor) -> int:  # a 1-D input per column (a norm's weight) or per row (a saved rstd)
        return cols if p.numel() == t_cols else rows

    params = [  # 1-D inputs as above, or a 2-D one like x (a backward's dy)
        values(length(p) if p.dim() == 1 else rows * cols, "mixed", seed=seed + 1 + i, dtype=p.dtype)
        for i, p in enumerate(template.inputs[1:])
    ]
    params = [p if t.dim() == 1 else p.view(rows, cols) for p, t in zip(params, template.inputs[1:])]
    if len(template.out_shape) == 1:
        out_shape = (rows,)
    else:  # one out row per row of x, or a fixed number of them over x's columns (dW and db: 2)
        out_shape = (rows if template.out_shape[0] == t_rows else template.out_shape[0], cols)
    name = f"{rows}x{cols} {str(dtype).removeprefix('torch.')} mixed, {layout}, drawn"
    return Case(name, (x, *params), out_shape, layout, out_dtype=template.out_dtype)


@pytest.mark.parametrize(
    "exercise_id, fn", [param for param in _params("correct") if param.values[0] in ROW_EXERCISES]
)
@settings(max_examples=4, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(shape=ROW_SHAPES)
def test_a_right_row_submission_is_right_on_any_shape_dtype_and_layout(exercise_id, fn, shape):
    exercise = EXERCISES[exercise_id]
    case = _row_case(exercise_id, *shape)
    run = _run(exercise, case, fn, _device(), seed=sum(shape[:2]) % 7)
    worst = (run.result.double() - run.expected).abs().max().item()
    assert correct(exercise, run), f"{case.name}: the largest error is {worst:.3g}"


# Wrong row submissions on drawn shapes: smaller than the right ones' (each also has its predictions
# computed), and only those whose mistake a prediction names (not an exception, a far-out access, a trait).
# Hypothesis draws the smallest shape first; from 2 rows of 33 columns up, that one is no battery case.
WRONG_ROW_SHAPES = st.tuples(
    st.integers(min_value=2, max_value=24),
    st.integers(min_value=33, max_value=1100),  # past a tile of 1024
    st.sampled_from([torch.float32, torch.float16]),
    st.sampled_from(["contiguous", "transposed", "sliced"]),
)


def _predicted_by_a_family(exercise_id: str, codes) -> bool:
    exercise = EXERCISES[exercise_id]
    probed = set(ENGINE_MISTAKES) | set(exercise.trait_mistakes.values())
    return bool(({codes} if isinstance(codes, str) else set(codes)) - probed)


@pytest.mark.parametrize(
    "exercise_id, fn, codes",
    [
        param
        for param in _params("wrong")
        if param.values[0] in ROW_EXERCISES and _predicted_by_a_family(param.values[0], param.values[2])
    ],
)
@settings(max_examples=3, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(shape=WRONG_ROW_SHAPES)
def test_a_wrong_row_result_on_any_shape_is_the_declared_mistakes_prediction(exercise_id, fn, codes, shape):
    exercise = EXERCISES[exercise_id]
    case = _row_case(exercise_id, *shape)
    try:
        run = _run(exercise, case, fn, _device(), seed=sum(shape[:2]) % 7)
    except ExerciseFailed:
        return  # an exception or a far-out access: reported as such, with no prediction to match
    if correct(exercise, run):
        return  # the mistake does not show on this shape
    _assert_explained(exercise, case, run, fn, {codes} if isinstance(codes, str) else set(codes))


def test_the_property_can_fail():
    """A result that no prediction of the declared mistake explains is caught: twice the right sum is
    not what a missing program offset gives."""
    exercise = EXERCISES["sum_atomic"]
    case = _case("sum_atomic", 5000)
    predictions = exercise.predict(case, False)
    run = _run(exercise, case, lambda x, out: out.copy_(2 * x.sum().reshape(1)), "cpu", seed=0)
    assert not correct(exercise, run)
    assert not any(explains(exercise, run, p) for p in predictions["missing_program_offset"].values())
    assert torch.isfinite(run.result).all()
