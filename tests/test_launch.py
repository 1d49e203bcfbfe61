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
def test_without_the_fast_path_it_launches_through_the_jit_and_says_so_once(capsys):
    run = Launcher(partial_sums_kernel)
    x = torch.randn(1000)
    assert torch.equal(_partials(run, x), _partials(partial_sums_kernel, x))
    _partials(run, x)
    said = capsys.readouterr().out
    assert said.count("utils.launch:") == 1 and "partial_sums_kernel through kernel[grid]" in said
    assert not run.compiled  # nothing cached: every call went through kernel[grid]
    _partials(Launcher(partial_sums_kernel), x)  # a new launcher (a cell run again) says it again
    assert capsys.readouterr().out.count("utils.launch:") == 1


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


@pytest.mark.skipif(not runs_on_gpu(), reason="the fast path needs a GPU")
def test_the_fast_path_passes_addresses_and_keeps_host_tensors_out():
    run = Launcher(partial_sums_kernel)
    x = torch.randn(4096, device="cuda")
    _partials(run, x)
    (entry,) = run.compiled.values()
    compiled, call = entry[0], entry[1]
    # on the versions it was read for, the C function under run is called directly
    assert (call is compiled.run.launch) == (launch.triton_version() in launch.DIRECT_LAUNCH)
    # a host tensor has another key, so it goes through the JIT, which refuses it, instead of reaching the
    # C launcher as an address that no kernel may read
    with pytest.raises(ValueError, match="cpu tensor"):
        _partials(run, x.cpu())
    assert len(run.compiled) == 1


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


def _tuned(kernel):
    configs = [triton.Config({"BLOCK": block}, num_warps=4) for block in (64, 128)]
    return triton.autotune(configs, key=["n"])(kernel)


def test_an_autotuned_kernel_is_keyed_on_its_tuning_key_by_value():
    run = Launcher(_tuned(partial_sums_kernel))
    x, partials = torch.ones(64), torch.empty(1)
    # 32 and 48 specialise a plain kernel alike, but the autotuner may choose differently for each
    assert run.key(0, (x, partials, 32), {}) != run.key(0, (x, partials, 48), {})
    assert run.key(0, (x, partials, 32), {}) == run.key(0, (x[4:], partials, 32), {})


def test_a_heuristics_wrapper_is_refused_with_a_message():
    wrapped = triton.heuristics({"BLOCK": lambda args: 64})(partial_sums_kernel)
    with pytest.raises(TypeError, match="heuristics"):
        Launcher(wrapped)


@triton.jit
def tile_sum(x_ptr, offsets, n):
    return tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0)


@triton.jit
def helped_sums_kernel(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(partials_ptr + tl.program_id(0), tile_sum(x_ptr, offsets, n))


def test_with_launchers_replaces_the_kernels_a_host_function_looks_up():
    """Kernels become Launchers; a helper another jit function calls stays itself, or its callers break
    (in the interpreter they call it, and a Launcher is not callable)."""
    import types

    module = types.ModuleType("course_module")
    module.partial_sums_kernel, module.tuned = partial_sums_kernel, _tuned(partial_sums_kernel)
    module.heuristic = triton.heuristics({"BLOCK": lambda args: 64})(partial_sums_kernel)
    module.not_a_kernel = len
    module.tile_sum, module.helped_sums_kernel = tile_sum, helped_sums_kernel
    replaced = launch.with_launchers(module)
    assert sorted(replaced) == ["helped_sums_kernel", "partial_sums_kernel", "tuned"]
    assert isinstance(module.tuned, Launcher) and module.tuned.kernel.fn is partial_sums_kernel
    assert module.tuned.configs is module.tuned.kernel.configs  # a host function may read the autotuner's
    assert module.heuristic.fn is partial_sums_kernel and module.not_a_kernel is len
    assert module.tile_sum is tile_sum
    x = torch.arange(256, dtype=torch.float32, device="cuda" if runs_on_gpu() else "cpu")
    assert _partials(module.helped_sums_kernel, x).tolist() == _partials(partial_sums_kernel, x).tolist()


@pytest.mark.skipif(not runs_on_gpu(), reason="the fast path needs a GPU")
def test_the_fast_path_keeps_the_autotuners_choice_per_tuning_key(monkeypatch):
    tuned = _tuned(partial_sums_kernel)
    run = Launcher(tuned)

    def partials_of(x):
        partials = torch.zeros(triton.cdiv(x.numel(), 64), device=x.device)  # room for the smaller block
        grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)  # noqa: E731
        run[grid](x, partials, x.numel())
        return partials, tuned.best_config.kwargs["BLOCK"]

    x = torch.randn(50_000, device="cuda")
    first, block = partials_of(x)
    tuned_calls = []
    original = tuned.run
    monkeypatch.setattr(tuned, "run", lambda *a, **k: tuned_calls.append(1) or original(*a, **k))
    again, _ = partials_of(x)
    assert not tuned_calls, "a call with the same key went through the autotuner"
    used = triton.cdiv(x.numel(), block)  # the tuning runs of other blocks wrote past these in `first`
    assert torch.equal(again[:used], first[:used])  # the same config: the chosen BLOCK, not a default
    torch.testing.assert_close(again.sum(), x.sum(), rtol=1e-4, atol=1e-2)
    assert torch.count_nonzero(again[used:]) == 0  # its grid, from its BLOCK
    partials_of(x[:30_000])  # another value of the tuning key: through the autotuner again
    assert tuned_calls and len(run.compiled) == 2


@pytest.mark.skipif(not runs_on_gpu(), reason="the fast path needs a GPU")
def test_a_count_of_launches_sees_the_fast_path_launches():
    from utils.launches import launches_of

    # not partial_sums_kernel: a test above monkeypatches its `run`, which leaves an attribute of its own
    run = Launcher(scaled_copy_kernel)
    x = torch.randn(1000, device="cuda")
    out = torch.empty_like(x)
    run[(1,)](x, out, x.numel(), 2.0, BLOCK=1024)  # cached: the next call would take the fast path
    assert launches_of(lambda: run[(1,)](x, out, x.numel(), 2.0, BLOCK=1024)).triton == ["scaled_copy_kernel"]
    assert launch.watchers == 0


@triton.jit
def tuned_then_required_kernel(x_ptr, partials_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0) * SCALE)


def test_a_parameter_a_config_sets_may_come_before_one_the_caller_passes():
    # BLOCK is the config's, SCALE the caller's: Python puts no parameter without a default after one
    # with a default, so the launcher gives SCALE one that its first launch reports if left out
    run = Launcher(_tuned(tuned_then_required_kernel))
    x, partials = torch.ones(64), torch.empty(1)
    assert run.key(0, (x, partials, 64), {"SCALE": 2}) != run.key(0, (x, partials, 64), {"SCALE": 3})
    assert run.set_by_configs == {"BLOCK"}


def test_caller_of_launches_through_the_jit_without_a_compiled_kernel():
    """In the interpreter (or on a Triton it does not know) there is no compiled kernel to call: the
    caller launches with kernel[grid], with the launch options it was given."""
    if runs_on_gpu():
        pytest.skip("the fallback: the interpreter or no GPU")
    x = torch.randn(1000)
    partials = torch.empty(triton.cdiv(1000, 128))
    call = launch.caller_of(None, partial_sums_kernel, num_warps=4)
    call((len(partials),), x, partials, 1000, 128)  # constexprs by position, as run() takes them
    assert torch.equal(partials, _partials(partial_sums_kernel, x))


@pytest.mark.skipif(not runs_on_gpu(), reason="the fast path needs a GPU")
def test_caller_of_calls_the_compiled_kernel_and_is_counted_while_watched(monkeypatch):
    from utils.launches import launches_of

    x = torch.randn(100_000, device="cuda")
    partials = torch.empty(triton.cdiv(x.numel(), 128), device="cuda")
    grid = (len(partials),)
    call = launch.caller_of(partial_sums_kernel[grid](x, partials, x.numel(), BLOCK=128), partial_sums_kernel)
    expected = _partials(partial_sums_kernel, x)
    partials.zero_()
    jit_calls = []
    original = partial_sums_kernel.run
    monkeypatch.setattr(partial_sums_kernel, "run", lambda *a, **k: jit_calls.append(1) or original(*a, **k))
    call(grid, x, partials, x.numel(), 128)  # every argument, the constexpr too, by position
    torch.cuda.synchronize()
    assert torch.equal(partials, expected) and not jit_calls  # the compiled kernel, not the JIT
    # while utils.launches watches, a caller goes through kernel[grid], so that a count sees it (not
    # partial_sums_kernel here: its `run` is patched above, and the count wraps the JIT's)
    out = torch.empty_like(x)
    copy = launch.caller_of(scaled_copy_kernel[(98,)](x, out, x.numel(), 2.0, BLOCK=1024), scaled_copy_kernel)
    assert launches_of(lambda: copy((98,), x, out, x.numel(), 2.0, 1024, 2)).triton == ["scaled_copy_kernel"]
    torch.testing.assert_close(out, 4 * x)  # TIMES = 2 by default, passed by position as run() takes it
