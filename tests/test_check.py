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
from utils.checker.families import EXERCISES
from utils.setup import runs_on_gpu


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


# notebook 02: the sum tolerance (utils.checker.tolerance) admits fair orders of additions it did not
# measure, and catches one element in a thousand left out of a sum that does not cancel
def _rows(case):
    x = case.inputs[0].double()
    return x.reshape(1, -1) if x.dim() == 1 else x


def _beyond(exercise, case, sums: torch.Tensor) -> torch.Tensor:
    """Per row, |sums - exact| over the tolerance: above 1 is rejected."""
    rows = _rows(case)
    exact = rows.sum(dim=1)
    atol, rtol = exercise.tolerance(case)
    return (sums - exact).abs() / (torch.as_tensor(atol, dtype=torch.float64) + rtol * exact.abs())


@pytest.mark.parametrize("exercise_id", ["sum_atomic", "row_sum"])
def test_the_sum_tolerance_admits_orders_it_did_not_measure(exercise_id):
    """One element after another in float32, and tiles of 32 and 4,096 summed as trees, their sums added
    one after another in a random order, as atomics land: orders the tolerance did not measure. The
    GPU battery: the CPU one and more."""
    exercise, g = EXERCISES[exercise_id], torch.Generator().manual_seed(0)
    for case in exercise.cases(True):
        rows = _rows(case)
        if not rows.isfinite().all():  # a sum holding inf or NaN is inf or NaN in any order
            continue
        for block in (1, 32, 4096):
            tiles = torch.nn.functional.pad(rows.float(), (0, -rows.shape[1] % block))
            partials = tiles.view(rows.shape[0], -1, block).sum(dim=2)
            if block > 1:
                partials = partials[:, torch.randperm(partials.shape[1], generator=g)]
            sums = np.cumsum(partials.numpy(), axis=1, dtype=np.float32)[:, -1]
            beyond = _beyond(exercise, case, torch.from_numpy(sums.copy()).double())
            exact = sums == rows.sum(dim=1).numpy()  # zeros: 0 within a tolerance of 0
            assert ((beyond <= 1) | torch.from_numpy(exact)).all(), f"{case.name}, tiles of {block}"


@pytest.mark.parametrize("exercise_id", ["sum_atomic", "row_sum"])
def test_the_sum_tolerance_catches_one_element_in_a_thousand_left_out(exercise_id):
    """Every 1,000th element left out, on every case of at least 1,000 terms whose sum does not cancel
    (|sum(x)| at least half of sum(|x|)): the sum moves by a thousandth, and the tolerance is tighter."""
    exercise = EXERCISES[exercise_id]
    tried = 0
    for case in exercise.cases(True):
        rows = _rows(case)
        if rows.shape[1] < 1000 or not rows.isfinite().all() or rows.abs().sum() == 0:
            continue  # too few terms, an inf or NaN sum, or zeros (no fraction of 0 is left out)
        if (rows.sum(dim=1).abs() < 0.5 * rows.abs().sum(dim=1)).any():
            continue
        kept = torch.ones(rows.shape[1], dtype=torch.bool)
        kept[999::1000] = False
        assert (_beyond(exercise, case, rows[:, kept].sum(dim=1)) > 1).all(), case.name
        tried += 1
    assert tried >= 3, "the battery needs sums that do not cancel, of 1,000 terms and more"


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
    from utils.checker.probes import repeat_case

    cases = EXERCISES["sum_one_launch"].cases(True)
    chosen = repeat_case(cases)
    assert not torch.equal(chosen.inputs[0], chosen.inputs[0].round())
    assert chosen.n == max(c.n for c in cases if not torch.equal(c.inputs[0], c.inputs[0].round()))
    integers = [c for c in cases if "odd integers" in c.name]
    assert integers and all(torch.equal(c.inputs[0], c.inputs[0].round()) for c in integers)


def test_a_one_launch_check_counts_the_calls_after_the_first():
    """A workspace allocated (and zeroed) on the first call is allowed; the same zeroing on every call is
    an extra launch, named with what the call launched."""
    from tests.submissions.sum_one_launch import sum_one_launch_ticket_zeroed_by_host

    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_one_launch", sum_one_launch_ticket_zeroed_by_host)
    assert excinfo.value.diagnoses == ["extra_launches"]
    assert "1 Triton launch (one_launch_kernel) and 1 torch operation on the device (zero" in str(
        excinfo.value
    )


def _on_own_workspace(exercise: str, mistake: str, owner: str):
    """A one-launch submission's `<mistake>_kernel`, launched on a workspace of its own (`owner`): a test
    that checks it more than once in a row starts from a fresh ticket, whichever tests ran before."""
    submissions = _submissions(exercise)
    kernel = getattr(submissions, f"{mistake}_kernel")
    if exercise == "l2_norm_one_launch":
        return lambda x, out: submissions._launch(kernel, x, out, owner)
    return lambda x, out: submissions._launch(kernel, x, out, owner=owner)


@pytest.mark.parametrize(
    "name, code, shown",
    [
        ("sum_one_launch_never_reset", "state_not_reset", "after calls 2 to 5: it does not return"),
        (
            "sum_one_launch_early_ticket",
            "stale_partials",
            "Right only when the call before had the same input",
        ),
    ],
)
def test_the_state_probe_names_what_a_call_leaves_behind_on_every_check(name, code, shown):
    """Calls on S, A, A, B, A: a ticket that keeps counting shows in the ticket's values after each call,
    and a combine that reads the call before's partials is right only after the same input. Checked
    twice in a row (a learner re-running the cell), so the second check starts from the state the first
    left; on a workspace of the test's own, which no other test's checks have moved."""
    fn = _on_own_workspace("sum_one_launch", name.removeprefix("sum_one_launch_"), f"state probe {name}")
    for _ in range(2):
        with pytest.raises(ExerciseFailed) as excinfo:
            check("sum_one_launch", fn)
        assert excinfo.value.diagnoses == [code]
        assert shown in str(excinfo.value)


def _first_row_race(exercise, garbage: float, mixed: bool):
    """Runs of a softmax that stores every row into out's first row, as a GPU leaves it: one row's store
    stays there, here the middle row's (the interpreter keeps the last row's), or with `mixed` each
    element from another row (the programs' warps store at different times); the rest is garbage."""
    from utils.checker.judge import Run

    runs = []
    for case in exercise.cases(False):
        expected = exercise.reference(*(x.double() for x in case.inputs), **case.kwargs)
        rows, cols = expected.shape
        result = torch.full_like(expected, garbage)
        winners = torch.arange(cols) % rows if mixed else torch.full((cols,), rows // 2)
        result[0] = expected[winners, torch.arange(cols)]
        runs.append(Run(case, result, expected, garbage, True, (), None))
    return runs


@pytest.mark.parametrize("mixed", [False, True], ids=["one row wins", "each element its own winner"])
@pytest.mark.parametrize("cap, named", [(64, True), (0, False)])
def test_a_race_too_large_to_predict_counts_neither_way(monkeypatch, cap, named, mixed):
    """The race of rows into out's first row is predicted only under MAX_RACE_ELEMENTS (its alternatives
    grow as rows^2 * cols). With a cap of 64 only the (3, 5) case predicts it: that case names the
    mistake, and the unpredicted cases do not stop it. With a cap of 0 no case predicts it, and it is
    not named on no evidence."""
    from utils.checker import predictions as family
    from utils.checker.diagnose import diagnose
    from utils.checker.judge import correct

    monkeypatch.setattr(family, "MAX_RACE_ELEMENTS", cap)
    exercise = EXERCISES["softmax"]
    runs = _first_row_race(exercise, garbage=5364.082, mixed=mixed)
    failing = [run for run in runs if not correct(exercise, run)]
    assert len(failing) >= 8, "every case of more than one row fails"
    codes = diagnose(exercise, runs, failing, rerun=lambda run, other_poison: run, on_gpu=True)
    assert ("missing_row_offset" in codes) == named, codes


def test_a_race_won_element_by_element_is_named_on_a_gpu_only():
    """Row 0 mixed from several rows, the other rows left alone: a GPU's race (Form.each_element). The
    interpreter runs programs in order, so there the same result names no race."""
    from utils.checker.diagnose import diagnose
    from utils.checker.judge import correct

    exercise = EXERCISES["softmax"]
    runs = _first_row_race(exercise, garbage=5364.082, mixed=True)
    failing = [run for run in runs if not correct(exercise, run)]
    on_gpu = diagnose(exercise, runs, failing, rerun=lambda run, other_poison: run, on_gpu=True)
    on_cpu = diagnose(exercise, runs, failing, rerun=lambda run, other_poison: run, on_gpu=False)
    assert on_gpu == ["missing_row_offset"], on_gpu
    assert "missing_row_offset" not in on_cpu, on_cpu


def _unlisted():
    from tests.submissions.unlisted import UNLISTED

    return [
        pytest.param(exercise_id, fn, kinds, codes, id=f"{exercise_id}-{fn.__name__}")
        for exercise_id, fn, kinds, codes in UNLISTED
    ]


@pytest.mark.parametrize("exercise_id, fn, kinds, codes", _unlisted())
def test_a_mistake_nobody_listed_is_described_and_not_misnamed(exercise_id, fn, kinds, codes):
    """A mistake no prediction knows (tests/submissions/unlisted.py): caught; named only as one whose
    effects it shares; and described by what utils.checker.describe measured, which the report prints."""
    with pytest.raises(ExerciseFailed) as excinfo:
        check(exercise_id, fn)
    failure = excinfo.value
    assert set(failure.diagnoses) <= codes, f"misnamed as {failure.diagnoses}:\n{failure}"
    found = {finding.kind for finding in failure.findings}
    assert kinds <= found, f"expected findings {sorted(kinds)}, got {sorted(found)}:\n{failure}"
    assert all(finding.text in str(failure) for finding in failure.findings)


def test_an_input_the_call_changed_is_named():
    """x += y stored into x: the report names x, the input whose values the call changed, and not y."""
    from tests.submissions.vector_add import vector_add_in_place

    with pytest.raises(ExerciseFailed) as excinfo:
        check("vector_add", vector_add_in_place)
    assert "input_modified" in excinfo.value.diagnoses
    assert "Changed by the call: x." in str(excinfo.value)


def test_right_partials_and_a_wrong_combine_are_told_apart():
    """A two-stage sum whose stage 2 reads only its first block of partials: utils.checker.stages finds the
    partials right after launch 1, so the report says the error comes after them."""
    from tests.submissions.sum_two_stage import sum_two_stage_stage2_first_block_only

    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_two_stage", sum_two_stage_stage2_first_block_only)
    partials = [f.text for f in excinfo.value.findings if f.kind == "partials"]
    assert len(partials) == 1 and "after launch 1" in partials[0] and "right sum of each tile" in partials[0]
    assert "so the error comes after them" in str(excinfo.value)


def test_a_first_line_is_printed_before_the_battery_runs(capsys):
    """Something on the screen at once: the battery takes seconds in the interpreter."""

    seen = []

    def relu(x, out):
        seen.append(capsys.readouterr().out)
        out.copy_(x.clamp(min=0))

    check("relu", relu)
    assert seen[0].startswith("relu: checking"), seen[0]  # printed before the first call


@triton.jit
def _softmax_rows_unbroadcast_kernel(
    x_ptr, out_ptr, n_rows, n_cols, sx, so, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * sx + cols[None, :], mask=mask, other=float("-inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=1))  # the learner's mistake: the row maxima, not stood up as a column
    p = e / tl.sum(e, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * so + cols[None, :], p.to(out_ptr.dtype.element_ty), mask=mask)


def _softmax_rows_unbroadcast(x, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 4),)
    args = (x, out, n_rows, n_cols, x.stride(0), out.stride(0))
    _softmax_rows_unbroadcast_kernel[grid](*args, ROWS=4, BLOCK=triton.next_power_of_2(n_cols))


def test_a_shape_mismatch_points_to_the_broadcast():
    """x - m with m = tl.max(x, axis=1) of shape (ROWS,): Triton's error names a shape, often at the
    tl.store; the report points at the missing [:, None]."""
    with pytest.raises(ExerciseFailed) as excinfo:
        check("softmax", _softmax_rows_unbroadcast)
    assert excinfo.value.diagnoses == ["exception"]
    assert "m[:, None]" in str(excinfo.value), str(excinfo.value)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the interpreter's program order; a GPU has none")
def test_a_race_shows_when_the_programs_run_in_reverse():
    """Several programs store into one slot: in order the last one wins every time, so the interpreter
    gives the same wrong result every run. Run with the programs reversed, it changes."""
    from tests.submissions.sum_two_stage import sum_two_stage_grid_of_one, sum_two_stage_same_slot

    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_two_stage", sum_two_stage_same_slot)
    assert "order" in {f.kind for f in excinfo.value.findings}, str(excinfo.value)
    with pytest.raises(ExerciseFailed) as excinfo:  # one program: no order to change
        check("sum_two_stage", sum_two_stage_grid_of_one)
    assert "order" not in {f.kind for f in excinfo.value.findings}, str(excinfo.value)


@triton.jit
def _add_spilling_into_the_next_tile_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    lanes = tl.arange(0, 2 * BLOCK)
    offsets = tl.program_id(0) * BLOCK + lanes
    mask = (offsets < n) & (lanes <= BLOCK)  # one lane past the program's own tile
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    # The extra lane stores 0 into the next tile's first element: in order, the next program writes over it
    tl.store(out_ptr + offsets, tl.where(lanes < BLOCK, x + y, 0.0), mask=mask)


def _add_spilling_into_the_next_tile(x, y, out):
    n = x.numel()
    _add_spilling_into_the_next_tile_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the interpreter's program order; a GPU has none")
def test_a_race_that_ends_right_in_order_fails_when_the_programs_run_in_reverse():
    """Each program also stores into the next program's first element: run in order, as the interpreter
    runs them, the next program writes over it and every case passes; on a GPU it is a race. The battery
    that passed runs once more with the programs reversed, and fails there."""
    with pytest.raises(ExerciseFailed) as excinfo:
        check("vector_add", _add_spilling_into_the_next_tile)
    assert excinfo.value.diagnoses == ["varies_between_runs"]
    assert "reverse order" in str(excinfo.value), str(excinfo.value)


def test_after_a_failure_a_launch_of_very_many_programs_is_not_run_in_the_interpreter():
    """A softmax over the columns launches a program per column: 16,384 for the widest case, a minute and
    more in the interpreter. Once smaller cases have failed, that case is not run, the report says which
    cases were not run and why, and the diagnosis stands on the cases that ran."""
    if runs_on_gpu():
        pytest.skip("the limit applies to the interpreter only")
    from tests.submissions.softmax import WRONG

    columns = next(fn for fn, _ in WRONG if fn.__name__.endswith("columns"))
    with pytest.raises(ExerciseFailed) as excinfo:
        check("softmax", columns)
    message = str(excinfo.value)
    assert "Not run, since cases had already failed" in message
    assert (
        "'2x16384 float16 negative, contiguous' (" in message and "16,384 programs in one launch" in message
    )
    assert excinfo.value.diagnoses == ["wrong_axis"]


@pytest.mark.parametrize("exercise", ["sum_one_launch", "l2_norm_one_launch"])
def test_a_ticket_never_reset_is_named_alike_however_often_the_check_runs(exercise):
    """A learner re-running the check on a kernel that never puts its ticket back to 0: each check starts
    where the last one's last call left the ticket, which, once it exceeds what one check's calls can
    count (after 7 checks on the interpreter's 4 programs a call, at once on a GPU's 64), is no sign of
    a ticket that was never zeroed. Every check names the same mistake; a call of the learner's own
    between two checks leaves the cause open, and the report says both."""
    fn = _on_own_workspace(exercise, "never_reset", "never reset, checked again")
    for _ in range(9):
        with pytest.raises(ExerciseFailed) as excinfo:
            check(exercise, fn)
        assert excinfo.value.diagnoses == ["state_not_reset"], str(excinfo.value)
    assert "as the last call of the check before left it" in str(excinfo.value)
    # the learner's own call: the ticket no longer starts where the check left it
    x = torch.ones(4096, device="cuda" if runs_on_gpu() else "cpu")
    fn(x, torch.empty((), device=x.device))
    with pytest.raises(ExerciseFailed) as excinfo:
        check(exercise, fn)
    assert excinfo.value.diagnoses == ["ticket_not_zeroed"], str(excinfo.value)
    assert "never puts back to 0" in str(excinfo.value)


def test_a_mended_kernel_on_a_ticket_left_counting_is_told_to_allocate_it_again():
    """The learner mends a kernel that never reset its ticket but keeps the workspace the old one left
    counting: the mended kernel never meets the last ticket either, and the report says why."""
    with pytest.raises(ExerciseFailed):
        check("sum_one_launch", _on_own_workspace("sum_one_launch", "never_reset", "mended"))
    mended = _on_own_workspace("sum_one_launch", "one_launch", "mended")  # the right kernel, same workspace
    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_one_launch", mended)
    assert excinfo.value.diagnoses == ["state_not_reset"], str(excinfo.value)
    assert "allocate the workspace again" in str(excinfo.value)


def test_a_counter_never_reset_is_said_to_depend_on_the_calls_before():
    """A split softmax whose tickets are never put back passes the cases whose shape it meets first and
    leaves out unwritten after: the report says that a case right before is wrong when run again."""
    fn = _submissions("softmax_split")._ticket("counter never reset")  # its own workspace: nothing left over
    with pytest.raises(ExerciseFailed) as excinfo:
        check("softmax_split", fn)
    assert [f.kind for f in excinfo.value.findings if f.kind == "state"] == ["state"], str(excinfo.value)
    assert excinfo.value.diagnoses == ["varies_between_runs"], str(excinfo.value)


@triton.jit
def _add_and_mark_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(
        out_ptr + offsets,
        tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
        mask=mask,
    )
    # every program also stores out[0] again, the same value: a write by many programs, one value
    tl.store(out_ptr, tl.load(x_ptr) + tl.load(y_ptr))


def _add_and_mark(x, y, out):
    n = x.numel()
    _add_and_mark_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the interpreter's stores")
def test_programs_that_store_one_value_into_one_element_are_not_called_a_race():
    """Only stores that leave different values race: whichever lands last, the element is the same."""
    check("vector_add", _add_and_mark)


def test_a_named_mistake_of_the_values_is_not_shadowed_by_the_same_shape_condition():
    """A case that fails after a passing case of its shape gets the "if your function keeps anything
    between calls" line only where no mistake of the values explains the failures: an online softmax whose
    sum loads masked lanes as 0.0 fails on '6x300 values -400 to -200' right after '6x300 values 100 to
    300', by its values alone."""
    fn = _submissions("softmax_online")._online("other=0.0")
    with pytest.raises(ExerciseFailed) as excinfo:
        check("softmax_online", fn)
    assert excinfo.value.diagnoses == ["masked_lanes_in_sum"], str(excinfo.value)
    assert not [f for f in excinfo.value.findings if f.kind == "same_shape"], str(excinfo.value)


_SUMS_BY_LENGTH: dict[int, torch.Tensor] = {}


def _add_kept_by_length(x, y, out):
    # the first result of each length kept and handed back to every later input of that length
    if x.numel() not in _SUMS_BY_LENGTH:
        _SUMS_BY_LENGTH[x.numel()] = torch.empty_like(out)
        _submissions("vector_add").CORRECT[0](x, y, _SUMS_BY_LENGTH[x.numel()])
    out.copy_(_SUMS_BY_LENGTH[x.numel()])


@triton.jit
def _relu_capped_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets, tl.clamp(x, 0.0, 3.4028234663852886e38), mask=offsets < n)


def _relu_capped(x, out):  # an unseen submission of session 25: +inf comes out as the largest float32
    _relu_capped_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)


def test_the_same_shape_condition_needs_the_earlier_cases_values():
    """The "if your function keeps anything between calls by shape" line is said where a failing case
    holds, where it is wrong, what a passing case of its shape left there; not for a case that merely ran
    after one (a ReLU that caps +inf fails on one element, right after a passing case of its length)."""
    _SUMS_BY_LENGTH.clear()
    with pytest.raises(ExerciseFailed) as kept:
        check("vector_add", _add_kept_by_length)
    assert [f for f in kept.value.findings if f.kind == "same_shape"], str(kept.value)
    with pytest.raises(ExerciseFailed) as capped:
        check("relu", _relu_capped)
    assert not [f for f in capped.value.findings if f.kind == "same_shape"], str(capped.value)


@triton.jit
def _sum_one_tile_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, STORE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0)
    if STORE:
        tl.store(out_ptr, total)
    else:
        tl.atomic_add(out_ptr, total)


def _sum_zeroed_only_past_one_tile(x, out):
    # an unseen submission of session 25: one tile stores, several add atomically onto a zeroed out; at
    # n == 1024 exactly, one tile adds onto out unzeroed
    n = x.numel()
    if n > 1024:
        out.zero_()
    _sum_one_tile_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024, STORE=n < 1024)


def test_a_result_added_onto_outs_old_contents_says_so_even_for_one_value():
    """One case wrong, by one value: that value is the right one plus out's garbage, which no mistake of
    the values produces, so the report says what was added onto what."""
    with pytest.raises(ExerciseFailed) as excinfo:
        check("sum_atomic", _sum_zeroed_only_past_one_tile)
    assert "plus what out held before the call" in str(excinfo.value), str(excinfo.value)


def _add_up_to_4096(x, y, out):
    # launches nothing past 4,096 elements: out keeps its old contents on exactly those cases
    if x.numel() <= 4096:
        _add_and_mark(x, y, out)


def test_out_left_as_it_was_on_the_failing_cases_alone_is_said_so():
    """Out untouched in every failing case and written in every passing one, which no mistake of the values
    explains (the cases past 4,096 elements launch nothing): the report says that nothing was stored there,
    not "none of the common mistakes"."""
    with pytest.raises(ExerciseFailed) as excinfo:
        check("vector_add", _add_up_to_4096)
    assert excinfo.value.diagnoses == ["not_written_where_failing"], str(excinfo.value)
