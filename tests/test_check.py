"""Tests for utils.check: right submissions pass, each wrong one fails with the diagnosis of its mistake.

The submissions live in tests/submissions/<exercise_id>.py as real Triton kernels, each wrong one carrying
a single learner mistake; a module lists them as CORRECT = [fn, ...] and WRONG = [(fn, code), ...].
"""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

from utils.check import ExerciseFailed, check
from utils.exercises import EXERCISES


def _submissions(exercise_id: str):
    return importlib.import_module(f"tests.submissions.{exercise_id}")


def _has_submissions(exercise_id: str) -> bool:
    return importlib.util.find_spec(f"tests.submissions.{exercise_id}") is not None


def _params(kind: str) -> list:
    params = []
    for exercise_id in filter(_has_submissions, EXERCISES):  # a missing module fails its own test below
        module = _submissions(exercise_id)
        if kind == "correct":
            params += [
                pytest.param(exercise_id, fn, id=f"{exercise_id}-{fn.__name__}") for fn in module.CORRECT
            ]
        else:
            params += [
                pytest.param(exercise_id, fn, code, id=f"{exercise_id}-{fn.__name__}")
                for fn, code in module.WRONG
            ]
    return params


@pytest.mark.parametrize("exercise_id, fn", _params("correct"))
def test_correct(exercise_id, fn):
    check(exercise_id, fn)


@pytest.mark.parametrize("exercise_id, fn, codes", _params("wrong"))
def test_wrong(exercise_id, fn, codes):
    """The report names exactly the mistakes expected: the one made, or every one its effects cannot be
    told apart from; naming any other would send the learner looking for a mistake they did not make."""
    expected = {codes} if isinstance(codes, str) else set(codes)
    with pytest.raises(ExerciseFailed) as excinfo:
        check(exercise_id, fn)
    message = str(excinfo.value)
    assert set(excinfo.value.diagnoses) == expected, (
        f"expected {sorted(expected)}, got {excinfo.value.diagnoses}:\n{message}"
    )
    assert len(message.strip().splitlines()) > 1, f"the report should show a table, got: {message!r}"


@pytest.mark.parametrize(
    "exercise_id, fn",
    [
        pytest.param(exercise_id, fn, id=f"{exercise_id}-{fn.__name__}")
        for exercise_id in filter(_has_submissions, EXERCISES)
        for fn in getattr(_submissions(exercise_id), "UNSEEN", [])
    ],
)
def test_a_mistake_no_run_shows_is_not_diagnosed(exercise_id, fn):
    """A submission wrong only by the memory model gives right results on every case; a diagnosis of it
    would name an effect that did not happen."""
    check(exercise_id, fn)


# notebook 02: the sum tolerance admits every fair order of additions, the serial one included
@pytest.mark.parametrize("exercise_id", ["sum_atomic", "sum_two_stage"])
def test_sum_tolerance_admits_a_serial_float32_loop_on_every_case(exercise_id):
    exercise = EXERCISES[exercise_id]
    for case in exercise.cases(True):  # the GPU battery: the CPU one and two large cases
        x = case.inputs[0]
        serial = float(np.cumsum(x.numpy())[-1])  # numpy adds one element after another in float32
        exact = x.double().sum().item()
        atol, rtol = exercise.tolerance(case)
        assert abs(serial - exact) <= atol + rtol * abs(exact), f"{exercise_id}, {case.name}"


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_exercise_has_submissions(exercise_id):
    assert _has_submissions(exercise_id), f"add tests/submissions/{exercise_id}.py"
    module = _submissions(exercise_id)
    assert len(module.CORRECT) >= 3, "at least 3 right submissions, of different shapes"
    assert len(module.WRONG) >= 8, "at least 8 wrong submissions, each with its diagnosis"
    known = set(EXERCISES[exercise_id].mistakes) | {"exception"}  # exceptions are reported apart
    named = {code for _, codes in module.WRONG for code in ([codes] if isinstance(codes, str) else codes)}
    assert named <= known, "a wrong submission expects a diagnosis the exercise does not know"


def test_not_attempted_prints_and_does_not_raise(capsys):
    def vector_add(x, y, out):
        raise NotImplementedError

    check("vector_add", vector_add)
    assert "not attempted yet" in capsys.readouterr().out


def test_learner_exception_is_shown_and_chained():
    original = ValueError("the learner's own message 4242")

    def sum_atomic(x, out):
        raise original

    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_atomic", sum_atomic)
    assert excinfo.value.diagnoses == ["exception"]
    assert "the learner's own message 4242" in str(excinfo.value)
    assert excinfo.value.__cause__ is original


def test_triton_error_is_shown_and_chained():
    """An error raised inside a Triton kernel (compiler or interpreter) is reported with its own text."""
    from tests.submissions.max_single_tile import max_block_not_power_of_two

    with pytest.raises(ExerciseFailed) as excinfo:
        check("max_single_tile", max_block_not_power_of_two)
    cause = excinfo.value.__cause__
    assert cause is not None
    assert "power of 2" in str(cause)
    assert str(cause).splitlines()[0] in str(excinfo.value)


def test_a_tile_sent_to_a_scalar_pointer_points_to_notebook_05():
    # Raised by the interpreter here and by the compiler on a GPU, in words that differ by version.
    from tests.submissions.row_sum_split import row_sum_split_vector_atomic

    with pytest.raises(ExerciseFailed) as excinfo:
        check("row_sum_split", row_sum_split_vector_atomic)
    assert excinfo.value.diagnoses == ["exception"]
    assert "tl.sum(acc, axis=0)" in str(excinfo.value) and "notebook 05" in str(excinfo.value)


SCALE = 1.0  # a plain Python global: the interpreter lets a kernel read it, the GPU compiler does not


@triton.jit
def _copy_scaled_by_a_global_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * SCALE, mask=mask)


def _copy_scaled_by_a_global(x, out):
    _copy_scaled_by_a_global_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK_SIZE=256)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the interpreter reads Python globals")
def test_a_python_global_in_a_kernel_points_to_constexpr_on_a_gpu():
    with pytest.raises(ExerciseFailed) as excinfo:
        check("copy", _copy_scaled_by_a_global)
    assert excinfo.value.diagnoses == ["exception"]
    assert "tl.constexpr" in str(excinfo.value), str(excinfo.value)


@triton.jit
def _sum_into_float16_kernel(x_ptr, scratch_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(scratch_ptr, tl.sum(x, axis=0).to(tl.float16))


def _sum_into_float16(x, out):
    scratch = torch.zeros(1, dtype=torch.float16, device=x.device)  # the learner's mistake
    _sum_into_float16_kernel[(triton.cdiv(x.numel(), 256),)](x, scratch, x.numel(), BLOCK_SIZE=256)
    out.copy_(scratch)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU's float16 atomic overflows to inf, silently")
def test_a_float16_overflow_in_the_interpreter_points_to_float32():
    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_atomic", _sum_into_float16)
    message = str(excinfo.value)
    assert excinfo.value.diagnoses == ["exception"] and "Accumulate in float32" in message, message


def test_an_error_the_course_does_not_teach_gets_no_hint():
    def relu(x, out):
        raise ValueError("something else entirely")

    with pytest.raises(ExerciseFailed) as excinfo:
        check("relu", relu)
    assert "notebook 05" not in str(excinfo.value) and "tl.constexpr" not in str(excinfo.value)


def test_unknown_exercise_id_is_rejected():
    with pytest.raises(ValueError, match="unknown exercise"):
        check("no_such_exercise", lambda x, out: None)


def test_inputs_reach_fn_as_torch_tensors_on_one_device():
    seen = []

    def relu(x, out):
        seen.append((type(x), x.device, out.device, out.shape == x.shape))
        out.copy_(x.clamp(min=0))

    check("relu", relu)
    assert seen and all(t is torch.Tensor and xd == od and same for t, xd, od, same in seen)


def test_passing_the_kernel_instead_of_the_host_function_is_explained():
    from tests.submissions.copy import copy_kernel

    with pytest.raises(TypeError, match="host function copy\\(x, out\\)"):
        check("copy", copy_kernel)


def test_bit_identity_is_judged_on_the_largest_case_whose_sum_rounds():
    # Small integers add up exactly in any order, so a battery's integer case would let atomics repeat.
    from utils.check import _repeat_case

    cases = EXERCISES["sum_one_launch"].cases(True)
    chosen = _repeat_case(cases)
    assert not torch.equal(chosen.inputs[0], chosen.inputs[0].round())
    assert chosen.n == max(c.n for c in cases if not torch.equal(c.inputs[0], c.inputs[0].round()))
    assert cases[-1].n > 0 and torch.equal(cases[-1].inputs[0], cases[-1].inputs[0].round())


def test_a_one_launch_check_counts_the_second_call_only():
    """A workspace allocated (and zeroed) on the first call is allowed; the same zeroing on every call is
    an extra launch, named with what the call launched."""
    from tests.submissions.sum_one_launch import sum_one_launch_ticket_zeroed_by_host

    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_one_launch", sum_one_launch_ticket_zeroed_by_host)
    assert excinfo.value.diagnoses == ["extra_launches"]
    assert "1 Triton launch (one_launch_kernel) and 1 torch operation on the device (zero" in str(
        excinfo.value
    )


def _first_row_race(exercise, garbage: float, mixed: bool):
    """Runs of a softmax that stores every row into out's first row, as a GPU leaves it: one row's store
    stays there, here the middle row's (the interpreter keeps the last row's), or with `mixed` each
    element from another row (the programs' warps store at different times); the rest is garbage."""
    from utils.diagnose import Run

    runs = []
    for case in exercise.cases(False):
        expected = exercise.reference(*(x.double() for x in case.inputs))
        rows, cols = expected.shape
        result = torch.full_like(expected, garbage)
        winners = torch.arange(cols) % rows if mixed else torch.full((cols,), rows // 2)
        result[0] = expected[winners, torch.arange(cols)]
        runs.append(Run(case, result, expected, garbage, True, True, None))
    return runs


@pytest.mark.parametrize("mixed", [False, True], ids=["one row wins", "each element its own winner"])
@pytest.mark.parametrize("cap, named", [(64, True), (0, False)])
def test_a_race_too_large_to_predict_counts_neither_way(monkeypatch, cap, named, mixed):
    """The race of rows into out's first row is predicted only under MAX_RACE_ELEMENTS (its alternatives
    grow as rows^2 * cols). With a cap of 64 only the (3, 5) case predicts it: that case names the
    mistake, and the unpredicted cases do not stop it. With a cap of 0 no case predicts it, and it is
    not named on no evidence."""
    from utils.diagnose import correct, diagnose
    from utils.exercises import core as family

    monkeypatch.setattr(family, "MAX_RACE_ELEMENTS", cap)
    exercise = EXERCISES["softmax"]
    runs = _first_row_race(exercise, garbage=5364.082, mixed=mixed)
    failing = [run for run in runs if not correct(exercise, run)]
    assert len(failing) >= 8, "every case of more than one row fails"
    codes = diagnose(exercise, runs, failing, rerun=lambda run, other_poison: run, on_gpu=True)
    assert ("missing_row_offset" in codes) == named, codes


def test_a_race_won_element_by_element_is_named_on_a_gpu_only():
    """Row 0 mixed from several rows, the other rows left alone: a GPU's race (EACH_ELEMENT). The
    interpreter runs programs in order, so there the same result names no race."""
    from utils.diagnose import correct, diagnose

    exercise = EXERCISES["softmax"]
    runs = _first_row_race(exercise, garbage=5364.082, mixed=True)
    failing = [run for run in runs if not correct(exercise, run)]
    on_gpu = diagnose(exercise, runs, failing, rerun=lambda run, other_poison: run, on_gpu=True)
    on_cpu = diagnose(exercise, runs, failing, rerun=lambda run, other_poison: run, on_gpu=False)
    assert on_gpu == ["missing_row_offset"], on_gpu
    assert "missing_row_offset" not in on_cpu, on_cpu
