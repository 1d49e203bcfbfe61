"""Submissions for `l2_norm_one_launch(x, out)`: notebook 07's one-launch pattern on the sum of squares,
with the sqrt taken by the program that draws the last ticket."""

import triton
import triton.language as tl

from tests.submissions.sum_one_launch import workspace  # one workspace per (device, size, submission)
from utils.setup import runs_on_gpu

PROGRAMS = 64 if runs_on_gpu() else 4
BLOCK_SIZE = 1024


def _launch(kernel, x, out, name, programs_cap=PROGRAMS, block=BLOCK_SIZE):
    n = x.numel()
    programs = min(programs_cap, triton.cdiv(n, block))
    partials, ticket = workspace(x.device, programs_cap, owner=f"l2 {name}")
    kernel[(programs,)](x, out, partials, ticket, n, BLOCK_SIZE=block, P=triton.next_power_of_2(programs))
    return partials


@triton.jit
def l2_kernel(x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        acc += x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    if tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(partials, axis=0)))
        tl.store(ticket_ptr, 0)


def l2_norm_one_launch(x, out):
    _launch(l2_kernel, x, out, "right")


def l2_norm_one_launch_small_tiles(x, out):
    _launch(l2_kernel, x, out, "small", programs_cap=5, block=128)


@triton.jit
def l2_per_tile_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x * x, axis=0))
    if tl.atomic_add(ticket_ptr, 1) == tl.num_programs(0) - 1:
        acc = tl.zeros((P,), tl.float32)
        for start in range(0, tl.num_programs(0), P):
            offs = start + tl.arange(0, P)
            acc += tl.load(partials_ptr + offs, mask=offs < tl.num_programs(0), other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(acc, axis=0)))
        tl.atomic_xchg(ticket_ptr, 0)


def l2_norm_one_launch_per_tile(x, out):
    n = x.numel()
    partials, ticket = workspace(x.device, 1 << 16, owner="l2 per tile")
    l2_per_tile_kernel[(triton.cdiv(n, 4096),)](x, out, partials, ticket, n, BLOCK_SIZE=4096, P=64)


# ----------------------------------------------------------------------------------------------------
# Wrong


@triton.jit
def sum_of_squares_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        acc += x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    if tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))  # no sqrt
        tl.store(ticket_ptr, 0)


def l2_norm_one_launch_host_sqrt(x, out):
    _launch(sum_of_squares_kernel, x, out, "host sqrt")
    out.sqrt_()  # the finish as a second launch


def l2_norm_one_launch_no_sqrt(x, out):
    _launch(sum_of_squares_kernel, x, out, "no sqrt")


@triton.jit
def atomic_squares_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))


def l2_norm_one_launch_zeroed_atomics(x, out):
    out.zero_()
    atomic_squares_kernel[(triton.cdiv(x.numel(), BLOCK_SIZE),)](x, out, x.numel(), BLOCK_SIZE=BLOCK_SIZE)
    out.sqrt_()


@triton.jit
def never_reset_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        acc += x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    if tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(partials, axis=0)))  # and the ticket stays where it is


def l2_norm_one_launch_never_reset(x, out):
    _launch(never_reset_kernel, x, out, "never reset")


@triton.jit
def early_ticket_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    last = tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == programs - 1  # before the partial is stored
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        acc += x * x
    if last:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(partials, axis=0)))
        tl.store(ticket_ptr, 0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


def l2_norm_one_launch_early_ticket(x, out):
    _launch(early_ticket_kernel, x, out, "early ticket")


@triton.jit
def unsquared_kernel(x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)  # x, not x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    if tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(partials, axis=0)))
        tl.store(ticket_ptr, 0)


def l2_norm_one_launch_unsquared(x, out):
    _launch(unsquared_kernel, x, out, "unsquared")


@triton.jit
def sqrt_per_partial_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sqrt(tl.sum(x * x, axis=0)))  # the finish before the combine
    if tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == tl.num_programs(0) - 1:
        acc = tl.zeros((P,), tl.float32)
        for start in range(0, tl.num_programs(0), P):
            offs = start + tl.arange(0, P)
            acc += tl.load(partials_ptr + offs, mask=offs < tl.num_programs(0), other=0.0)
        tl.store(out_ptr, tl.sum(acc, axis=0))
        tl.store(ticket_ptr, 0)


def l2_norm_one_launch_sqrt_per_partial(x, out):
    n = x.numel()
    partials, ticket = workspace(x.device, 1 << 16, owner="l2 sqrt per partial")
    sqrt_per_partial_kernel[(triton.cdiv(n, 1024),)](x, out, partials, ticket, n, BLOCK_SIZE=1024, P=64)


@triton.jit
def off_by_one_kernel(x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        acc += x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs:  # never drawn: the last program draws programs - 1
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(partials, axis=0)))
    if ticket == programs - 1:
        tl.store(ticket_ptr, 0)


def l2_norm_one_launch_off_by_one(x, out):
    _launch(off_by_one_kernel, x, out, "off by one")


@triton.jit
def ones_padding_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=1.0)  # the masked lanes add 1 each
        acc += x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    if tl.atomic_add(ticket_ptr, 1, sem="acq_rel") == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sqrt(tl.sum(partials, axis=0)))
        tl.store(ticket_ptr, 0)


def l2_norm_one_launch_ones_padding(x, out):
    _launch(ones_padding_kernel, x, out, "ones padding")


CORRECT = [l2_norm_one_launch, l2_norm_one_launch_small_tiles, l2_norm_one_launch_per_tile]

WRONG = [
    (l2_norm_one_launch_host_sqrt, "extra_launches"),
    (l2_norm_one_launch_zeroed_atomics, "extra_launches"),
    (l2_norm_one_launch_never_reset, "state_not_reset"),
    (l2_norm_one_launch_early_ticket, "stale_partials"),
    (l2_norm_one_launch_no_sqrt, "missing_finish"),
    (l2_norm_one_launch_unsquared, "missing_transform"),
    (l2_norm_one_launch_sqrt_per_partial, "finish_before_combine"),
    (l2_norm_one_launch_off_by_one, "not_written"),
    (l2_norm_one_launch_ones_padding, "wrong_sentinel"),
]
