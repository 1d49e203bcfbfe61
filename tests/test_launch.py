"""utils.launch: the cached launcher's key and its fallback everywhere; its fast path on a GPU."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

from utils import launch
from utils.launch import Launcher, argument_key, fast_path_unavailable
from utils.setup import runs_on_gpu


@triton.jit
def partial_sums_kernel(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))  # no atomics: the same bits on every run


def _partials(run, x: torch.Tensor, block: int = 128) -> torch.Tensor:
    partials = torch.empty(triton.cdiv(x.numel(), block), device=x.device)
    run[(len(partials),)](x, partials, x.numel(), BLOCK=block)
    return partials


def test_the_key_tells_apart_what_the_jit_specialises_on():
    x = torch.arange(64, dtype=torch.float32)
    assert argument_key(x, False) != argument_key(x[1:], False)  # 16-byte aligned, and 4 bytes past it
    assert argument_key(x, False) == argument_key(x[4:], False)  # 16 bytes further: aligned again
    assert argument_key(x, False) != argument_key(x.half(), False)
    assert len({argument_key(n, False) for n in (1, 2, 16, 32, 2**31, 2**63)}) == 5  # 16 and 32 alike
    assert argument_key(2, False) == argument_key(3, False)  # neither 1 nor a multiple of 16: one kernel
    assert argument_key(2, True) != argument_key(3, True)  # a constexpr is keyed by its value


def test_the_launchers_key_is_argument_key_of_each_argument_with_the_kwargs_and_the_device():
    run = Launcher(partial_sums_kernel)
    x, partials = torch.ones(64), torch.empty(1)

    def key(*args, device=0, block=64):
        return run.key(device, args, {"BLOCK": block})

    assert key(x, partials, 64) == key(x[4:], partials, 48)  # aligned, and both multiples of 16
    different = [key(x[1:], partials, 64), key(x, partials, 63), key(x, partials, 1), key(x, partials, 2**40)]
    different += [
        key(x.half(), partials, 64),
        key(x, partials, 64, block=128),
        key(x, partials, 64, device=1),
    ]
    assert len({key(x, partials, 64), *different}) == 1 + len(different)
    # a constexpr passed by position is keyed by its value
    assert run.key(0, (x, partials, 64, 32), {}) != run.key(0, (x, partials, 64, 64), {})


def test_an_unknown_triton_is_not_given_the_fast_path(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(triton, "__version__", "9.1.0")
    assert "9.1.0" in fast_path_unavailable()


@pytest.mark.skipif(runs_on_gpu(), reason="the fallback: the interpreter or no GPU")
def test_without_the_fast_path_it_launches_through_the_jit_and_says_so_once(capsys, monkeypatch):
    monkeypatch.setattr(launch, "_said", set())
    run = Launcher(partial_sums_kernel)
    x = torch.randn(1000)
    assert torch.equal(_partials(run, x), _partials(partial_sums_kernel, x))
    _partials(run, x)
    said = capsys.readouterr().out
    assert said.count("utils.launch:") == 1 and "kernel[grid]" in said
    assert not run.compiled  # nothing cached: every call went through kernel[grid]


@pytest.mark.skipif(not runs_on_gpu(), reason="the fast path needs a GPU")
def test_the_fast_path_skips_the_jit_and_gives_its_results(monkeypatch):
    run = Launcher(partial_sums_kernel)
    assert run.unavailable is None
    x = torch.randn(100_000, device="cuda")
    first = _partials(run, x)  # through the JIT: compiles, launches, and is kept
    jit_calls = []
    original = partial_sums_kernel.run
    monkeypatch.setattr(partial_sums_kernel, "run", lambda *a, **k: jit_calls.append(1) or original(*a, **k))
    again = [_partials(run, x) for _ in range(3)]
    assert not jit_calls, "a call with the same key went through the JIT"
    assert all(torch.equal(result, _partials(partial_sums_kernel, x)) for result in [first, *again])
    # x[1:] is 4 bytes past a 16-byte boundary: another key, so the JIT compiles a kernel for it
    shifted = _partials(run, x[1:])
    assert jit_calls and len(run.compiled) == 2
    torch.testing.assert_close(shifted.sum(), x[1:].sum(), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(_partials(run, x[1:]), shifted)


@triton.jit
def scaled_copy_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, TIMES: tl.constexpr = 2):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale * TIMES, mask=mask)


@pytest.mark.skipif(not runs_on_gpu(), reason="the fast path needs a GPU")
def test_the_fast_path_takes_a_grid_function_defaults_and_floats():
    run = Launcher(scaled_copy_kernel)
    x = torch.randn(5000, device="cuda")
    out = torch.empty_like(x)

    def grid(meta):  # as for kernel[grid]: the arguments by name, constexprs and defaults included
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    for scale in (0.5, 3.0, 0.5):  # a float is not specialised on: one kernel for every scale
        run[grid](x, out, x.numel(), scale, BLOCK=1024)
        torch.testing.assert_close(out, x * scale * 2)
    assert len(run.compiled) == 1
    run[grid](x, out, x.numel(), 0.5, BLOCK=1024, TIMES=3)
    torch.testing.assert_close(out, x * 1.5)
    assert len(run.compiled) == 2
