"""utils.launches: what one call asks the device to do, counted the same in the interpreter as on a GPU."""

import torch
import triton
import triton.language as tl

from utils.launches import counting, launches_of

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@triton.jit
def _fill_kernel(out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offsets, 1.0, mask=offsets < n)


def _fill(out):
    _fill_kernel[(triton.cdiv(out.numel(), 64),)](out, out.numel(), BLOCK_SIZE=64)


def test_each_triton_launch_is_counted_by_its_kernel_name():
    out = torch.empty(100, device=DEVICE)
    seen = launches_of(lambda: (_fill(out), _fill(out)))
    assert seen.triton == ["_fill_kernel", "_fill_kernel"]
    assert seen.torch == [] and seen.total == 2
    assert bool((out == 1.0).all())  # the launches still ran


def test_torch_operations_that_write_device_memory_are_counted():
    out = torch.empty(4, device=DEVICE)
    seen = launches_of(lambda: (out.zero_(), torch.sqrt(out, out=out), out.copy_(out + 1)))
    names = [op.split(".")[1] for op in seen.torch]
    assert names == ["zero_", "sqrt", "add", "copy_"]
    assert "4 torch operations on the device (zero_, sqrt, add, copy_)" == seen.describe()


def test_allocations_views_and_metadata_are_not_launches():
    x = torch.arange(12.0, device=DEVICE)
    seen = launches_of(
        lambda: (torch.empty(1024, device=DEVICE), x.view(3, 4).t(), x[2:], x.numel(), x.shape)
    )
    assert seen.total == 0 and seen.describe() == "nothing on the device"


def test_a_copy_to_the_host_is_reported_apart():
    x = torch.ones(3, device=DEVICE)
    seen = launches_of(lambda: x.sum().item())
    assert seen.to_host == 1 and [op.split(".")[1] for op in seen.torch] == ["sum"]
    assert "copy to the host" in seen.describe()


def test_the_interpreters_own_copies_of_a_launchs_arguments_are_not_counted():
    # In the interpreter a launch copies every tensor argument to the host and back; those are Triton's.
    out = torch.empty(1000, device=DEVICE)
    with counting() as seen:
        _fill(out)
    assert seen.torch == [] and len(seen.triton) == 1


def test_counting_restores_the_launchers_afterwards():
    import triton.runtime.jit as jit

    before = jit.JITFunction.run
    with counting():
        pass
    assert jit.JITFunction.run is before
    out = torch.empty(10, device=DEVICE)
    with counting() as outer:
        _fill(out)
    _fill(out)  # outside: not recorded
    assert len(outer.triton) == 1
