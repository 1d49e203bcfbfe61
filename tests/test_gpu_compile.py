"""The checker compiles a submission's kernels for a GPU once every case has passed in the interpreter
(utils.checker.gpu_compile): what the interpreter runs and Triton's compiler refuses fails the exercise with
the compiler's words, and what compiles passes, helpers, constants and modules included."""

import math

import pytest
import torch
import triton
import triton.language as tl

from utils.check import ExerciseFailed, check
from utils.checker.gpu_compile import Launched, refusals
from utils.setup import runs_on_gpu

pytestmark = pytest.mark.skipif(runs_on_gpu(), reason="on a GPU every launch compiles anyway")

FLOOR = 0.0  # a plain number: a kernel may not read it
ZERO = tl.constexpr(0.0)  # a constexpr: a kernel may
BLOCK = 1024


@pytest.fixture(autouse=True)
def compile_check(monkeypatch):
    monkeypatch.setenv("COURSE_COMPILE_CHECK", "1")


@triton.jit
def _relu_plain_global_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets, tl.maximum(x, FLOOR), mask=offsets < n)


def relu_plain_global(x, out):
    _relu_plain_global_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK_SIZE=BLOCK)


@triton.jit
def _clamp_below(x):
    return tl.maximum(x, ZERO)


@triton.jit
def _relu_helpers_kernel(x_ptr, out_ptr, n, scale, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets, _clamp_below(x) * scale, mask=offsets < n)


def relu_helpers(x, out):
    _relu_helpers_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), math.cos(0.0), BLOCK_SIZE=BLOCK)


def _tile_sum(tile):  # no @triton.jit: the interpreter calls it, the compiler refuses it
    return tl.sum(tile, axis=0)


@triton.jit
def _sum_plain_helper_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.atomic_add(out_ptr, _tile_sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)))


def sum_plain_helper(x, out):
    out.zero_()
    _sum_plain_helper_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK_SIZE=BLOCK)


@triton.jit
def _sum_int_start_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    total = 0  # an int, then a float in the loop: the compiler refuses the change of type
    for start in range(0, n, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        total += tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0)
    tl.store(out_ptr, total)


def sum_int_start(x, out):
    _sum_int_start_kernel[(1,)](x, out, x.numel(), BLOCK_SIZE=BLOCK)


def test_a_plain_global_is_refused_with_the_compilers_words():
    with pytest.raises(ExerciseFailed) as failed:
        check("relu", relu_plain_global)
    message = str(failed.value)
    assert failed.value.diagnoses == ["gpu_compile_refused"]
    assert "_relu_plain_global_kernel" in message and "Cannot access global variable FLOOR" in message
    assert "tl.constexpr(value)" in message  # the hint that matches the compiler's words


def test_a_helper_without_jit_is_refused():
    with pytest.raises(ExerciseFailed) as failed:
        check("sum_atomic", sum_plain_helper)
    assert "Unsupported function referenced" in str(failed.value)
    assert "must itself be a @triton.jit" in str(failed.value)


def test_a_loop_variable_that_changes_type_is_refused():
    with pytest.raises(ExerciseFailed) as failed:
        check("sum_two_stage", lambda x, out: sum_int_start(x, out))
    assert "Loop-carried variable total has initial type int32" in str(failed.value)
    assert "0.0, not 0" in str(failed.value)


def test_jit_helpers_constexpr_globals_modules_and_float_arguments_compile(capsys):
    assert check("relu", relu_helpers)
    assert "all" in capsys.readouterr().out


def test_off_when_asked(monkeypatch):
    monkeypatch.setenv("COURSE_COMPILE_CHECK", "0")
    assert check("relu", relu_plain_global)


def test_a_launch_it_cannot_reproduce_gets_no_verdict():
    odd = torch.zeros(4, dtype=torch.complex64)  # no Triton type of that name
    launched = Launched(
        _relu_helpers_kernel, {"x_ptr": odd, "out_ptr": odd, "n": 4, "scale": 1.0}, {"BLOCK_SIZE": 4}, 4
    )
    assert refusals({"_relu_helpers_kernel": launched}) == []


@triton.jit
def _relu_if_on_a_tile_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    if x > 0:  # the interpreter takes the True branch when every lane is positive; the compiler refuses
        tl.store(out_ptr + offsets, x, mask=offsets < n)


def test_an_if_on_a_tile_is_refused_in_the_compilers_words():
    x = torch.rand(BLOCK) + 0.5  # all positive: right in the interpreter
    launched = Launched(
        _relu_if_on_a_tile_kernel, {"x_ptr": x, "out_ptr": x, "n": BLOCK}, {"BLOCK_SIZE": BLOCK}, 4
    )
    [(name, said)] = refusals({"_relu_if_on_a_tile_kernel": launched})
    assert name == "_relu_if_on_a_tile_kernel" and "if x > 0" in said
