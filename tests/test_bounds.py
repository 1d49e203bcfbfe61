"""utils.checker.bounds: in the interpreter, a kernel reaching far outside its tensors raises instead of
crashing.

Never launch one of the far-reaching kernels below without guarded(): it would segfault pytest.
"""

import warnings

import pytest
import torch
import triton
import triton.language as tl

from utils.checker import bounds
from utils.checker.access import OutOfBoundsAccess, find_out_of_bounds
from utils.checker.bounds import guarded
from utils.setup import interpreting

pytestmark = pytest.mark.skipif(not interpreting(), reason="the guard only acts in Triton's interpreter")

FAR = 2**26  # elements: 256 MiB of float32 past the end, far outside anything a test allocated
BLOCK = 64
PATCHED = ["create_masked_load", "create_masked_store", "create_atomic_rmw", "create_atomic_cas"]


@triton.jit
def offset_copy_kernel(x_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs + shift))


@triton.jit
def offset_store_kernel(x_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs + shift, tl.load(x_ptr + offs))


@triton.jit
def offset_atomic_add_kernel(out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs + shift, 1.0)


@triton.jit
def offset_atomic_cas_kernel(lock_ptr, shift):
    tl.atomic_cas(lock_ptr + shift, 0, 1)


@triton.jit
def masked_far_load_kernel(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr):
    # The lanes the mask turns off point FAR away: the interpreter never touches them, nor may the guard.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + tl.where(mask, offs, offs + shift), mask=mask, other=-1.0)
    tl.store(out_ptr + offs, x)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    row_start = x_ptr + row * stride
    x = tl.load(row_start + cols, mask=cols < n_cols)
    tl.store(out_ptr + row, tl.sum(x))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    tl.atomic_add(out_ptr + offs, 0.5, mask=mask)


def _raised(launch) -> OutOfBoundsAccess:
    with guarded(), pytest.raises(Exception) as info:
        launch()
    oob = find_out_of_bounds(info.value)
    assert oob is not None, f"no OutOfBoundsAccess behind {info.value!r}"
    return oob


def _interpreter_attributes():
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder.__dict__
    return [builder[name] for name in PATCHED] + [interpreter.GridExecutor.__dict__["_init_args_hst"]]


def test_a_far_load_raises_naming_the_argument_and_the_distance():
    x, out = torch.arange(BLOCK, dtype=torch.float32), torch.zeros(BLOCK)
    oob = _raised(lambda: offset_copy_kernel[(1,)](x, out, FAR, BLOCK=BLOCK))
    assert isinstance(oob, IndexError)
    assert (oob.op, oob.arg_name, oob.elements_past) == ("tl.load", "x_ptr", FAR)
    assert oob.lanes_outside == oob.lanes == BLOCK
    assert f"tl.load reached {FAR:,} elements past the end of x_ptr (a tensor of {BLOCK:,} elements)" in str(
        oob
    )
    # the process survived, and the interpreter still runs kernels afterwards, guarded or not
    offset_copy_kernel[(1,)](x, out, 0, BLOCK=BLOCK)
    assert torch.equal(out, x)


def test_a_far_store_raises_before_writing():
    x, out = torch.ones(BLOCK), torch.zeros(BLOCK)
    oob = _raised(lambda: offset_store_kernel[(1,)](x, out, FAR, BLOCK=BLOCK))
    assert (oob.op, oob.arg_name, oob.elements_past) == ("tl.store", "out_ptr", FAR)
    oob = _raised(lambda: offset_store_kernel[(1,)](x, out, -FAR, BLOCK=BLOCK))
    assert (oob.arg_name, oob.elements_past) == ("out_ptr", -FAR)
    assert f"{FAR:,} elements before the start of out_ptr" in str(oob)
    assert not out.any()


def test_far_atomics_raise():
    out = torch.zeros(BLOCK)
    oob = _raised(lambda: offset_atomic_add_kernel[(1,)](out, FAR, BLOCK=BLOCK))
    assert (oob.op, oob.arg_name, oob.elements_past, oob.lanes_outside) == (
        "tl.atomic_add",
        "out_ptr",
        FAR,
        BLOCK,
    )
    lock = torch.zeros(1, dtype=torch.int32)
    oob = _raised(lambda: offset_atomic_cas_kernel[(1,)](lock, FAR))
    assert (oob.op, oob.arg_name, oob.elements_past) == ("tl.atomic_cas", "lock_ptr", FAR)
    assert not out.any() and not lock.any()


def test_the_report_names_the_argument_the_pointer_was_built_from():
    # Far before the higher tensor is nearest to the lower one in memory; the kernel's line says which it was.
    low, high = sorted([torch.zeros(BLOCK), torch.zeros(BLOCK)], key=torch.Tensor.data_ptr)
    for x, out in [(low, high), (high, low)]:
        oob = _raised(lambda: offset_store_kernel[(1,)](x, out, -FAR, BLOCK=BLOCK))  # noqa: B023
        assert (oob.arg_name, oob.elements_past) == ("out_ptr", -FAR)


def test_a_pointer_built_on_an_earlier_line_is_traced_to_its_argument():
    # Row 1 of a stride-FAR "matrix" of one row: past the end of both tensors, nearest to the higher one.
    low, high = sorted([torch.ones(1, BLOCK), torch.zeros(BLOCK)], key=torch.Tensor.data_ptr)
    x, out = low.view(1, BLOCK), high.view(-1)
    oob = _raised(lambda: row_sum_kernel[(2,)](x, out, BLOCK, FAR, BLOCK=BLOCK))
    assert (oob.op, oob.arg_name, oob.elements_past) == ("tl.load", "x_ptr", FAR)


def test_masked_off_lanes_may_point_anywhere():
    n = BLOCK // 2
    x, out = torch.arange(n, dtype=torch.float32), torch.zeros(BLOCK)
    with guarded():
        masked_far_load_kernel[(1,)](x, out, n, FAR, BLOCK=BLOCK)
    assert torch.equal(out[:n], x) and (out[n:] == -1).all()


def test_reading_just_past_a_view_stays_inside_its_buffer():
    # The checker's inputs sit inside larger buffers (guard zones): a read just past the view is the
    # checker's to find (by the values it reads), not a crash to prevent.
    buffer = torch.arange(4 * BLOCK, dtype=torch.float32)
    x, out = buffer[BLOCK : BLOCK + BLOCK // 2], torch.zeros(BLOCK)
    with guarded():
        offset_copy_kernel[(1,)](x, out, 0, BLOCK=BLOCK)
    assert torch.equal(out, buffer[BLOCK : 2 * BLOCK])
    # ... but past the whole buffer is refused, and measured from the view's end
    oob = _raised(lambda: offset_copy_kernel[(1,)](x, out, 4 * FAR, BLOCK=BLOCK))
    assert (oob.arg_name, oob.elements_past, oob.numel) == ("x_ptr", 4 * FAR + BLOCK // 2, BLOCK // 2)


def test_a_correct_kernel_gives_the_same_result_guarded_or_not():
    n = 3 * BLOCK - 5
    x, y = torch.randn(n), torch.randn(n)
    unguarded, guarded_out = torch.empty(n), torch.empty(n)
    add_kernel[(3,)](x, y, unguarded, n, BLOCK=BLOCK)
    with guarded():
        add_kernel[(3,)](x, y, guarded_out, n, BLOCK=BLOCK)
    assert torch.equal(unguarded, guarded_out)
    torch.testing.assert_close(guarded_out, x + y + 0.5)


def test_the_guard_restores_the_interpreter_and_nests():
    originals = _interpreter_attributes()
    x, out = torch.arange(BLOCK, dtype=torch.float32), torch.zeros(BLOCK)
    with guarded():
        patched = _interpreter_attributes()
        assert all(p is not o for p, o in zip(patched, originals))
        with guarded():
            assert _interpreter_attributes() == patched, "an inner guard patches nothing again"
        assert _interpreter_attributes() == patched, "an inner guard's exit leaves the outer one in place"
        with pytest.raises(Exception) as info:
            offset_copy_kernel[(1,)](x, out, FAR, BLOCK=BLOCK)
        assert find_out_of_bounds(info.value) is not None
    assert _interpreter_attributes() == originals
    with pytest.raises(KeyError), guarded():
        raise KeyError("an error inside the block")
    assert _interpreter_attributes() == originals, "restored after an exception too"


def test_without_the_interpreter_the_guard_does_nothing(monkeypatch):
    originals = _interpreter_attributes()
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with guarded():
        assert _interpreter_attributes() == originals


def test_an_unfamiliar_interpreter_is_warned_about_once(monkeypatch):
    from triton.runtime import interpreter

    monkeypatch.setattr(bounds, "_warned", False)
    monkeypatch.delattr(interpreter.InterpreterBuilder, "create_atomic_cas")
    with pytest.warns(RuntimeWarning, match="create_atomic_cas"), guarded():
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second warning would raise here
        with guarded():
            pass
    assert not bounds._originals, "nothing was patched"


def test_find_out_of_bounds_walks_the_chain():
    oob = OutOfBoundsAccess("tl.load reached ...", "tl.load")
    try:
        try:
            raise oob
        except OutOfBoundsAccess as e:
            raise RuntimeError(repr(e)) from e
    except RuntimeError as outer:
        assert find_out_of_bounds(outer) is oob
    assert find_out_of_bounds(oob) is oob
    assert find_out_of_bounds(ValueError("unrelated")) is None
    assert find_out_of_bounds(None) is None
