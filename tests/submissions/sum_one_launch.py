"""Submissions for `sum_one_launch(x, out)`: partials to a workspace, an atomic ticket, the last program
combines them in order and resets the ticket; one launch per call, nothing zeroed by the host."""

import math

import torch
import triton
import triton.language as tl

from utils.exported.nb07_launch_bound import one_launch_grid, sum_one_launch_kernel
from utils.setup import runs_on_gpu

PROGRAMS = 64 if runs_on_gpu() else 4  # a persistent grid: at most this many programs
BLOCK_SIZE = 1024
_WORKSPACES = {}


def workspace(device, programs=PROGRAMS, owner="shared"):
    """Partials and a ticket, allocated (and zeroed) once per device; the ticket is then reset by the
    kernel. A submission that leaves its workspace dirty takes one of its own (`owner`), so that it
    cannot break the submissions checked after it."""
    key = (str(device), programs, owner)
    if key not in _WORKSPACES:
        partials = torch.zeros(programs, dtype=torch.float32, device=device)
        _WORKSPACES[key] = (partials, torch.zeros(1, dtype=torch.int32, device=device))
    return _WORKSPACES[key]


@triton.jit
def one_launch_kernel(
    x_ptr,
    out_ptr,
    partials_ptr,
    ticket_ptr,
    n,
    BLOCK_SIZE: tl.constexpr,
    P: tl.constexpr,
    # Right as they default; each set otherwise is one of the wrong submissions below
    MASK_PARTIALS: tl.constexpr = True,  # False: all P slots combined, those of no program this call too
    ADD_INTO_OUT: tl.constexpr = False,  # True: the total atomically added into out, not stored
    LAST: tl.constexpr = 1,  # the combining ticket is programs - LAST: 0 is the test no ticket passes
    FIRST_RESETS: tl.constexpr = False,  # True: program 0 puts the ticket back to 0, not the last program
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs - LAST:
        offsets = tl.arange(0, P)
        if MASK_PARTIALS:
            partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        else:
            partials = tl.load(partials_ptr + offsets)
        if ADD_INTO_OUT:
            tl.atomic_add(out_ptr, tl.sum(partials, axis=0))
        else:
            tl.store(out_ptr, tl.sum(partials, axis=0))
        if not FIRST_RESETS:
            tl.store(ticket_ptr, 0)
    if FIRST_RESETS and pid == 0:  # whenever program 0 runs, while the others may still count
        tl.atomic_xchg(ticket_ptr, 0)


def _launch(kernel, x, out, programs_cap=PROGRAMS, block=BLOCK_SIZE, owner="shared", **extra):
    n = x.numel()
    programs = max(1, min(programs_cap, triton.cdiv(n, block)))
    partials, ticket = workspace(x.device, programs_cap, owner)
    kernel[(programs,)](
        x, out, partials, ticket, n, BLOCK_SIZE=block, P=triton.next_power_of_2(programs), **extra
    )
    return partials, ticket


def sum_one_launch(x, out):
    _launch(one_launch_kernel, x, out)


@triton.jit
def one_launch_per_tile_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    # One program per tile; the last one walks the partials in blocks of P, always in the same order.
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(partials_ptr + pid, tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1)  # the default sem is "acq_rel"
    if ticket == tl.num_programs(0) - 1:
        acc = tl.zeros((P,), tl.float32)
        for start in range(0, tl.num_programs(0), P):
            offs = start + tl.arange(0, P)
            acc += tl.load(partials_ptr + offs, mask=offs < tl.num_programs(0), other=0.0)
        tl.store(out_ptr, tl.sum(acc, axis=0))
        tl.atomic_xchg(ticket_ptr, 0)


def sum_one_launch_per_tile(x, out):
    n = x.numel()
    programs = max(1, triton.cdiv(n, 2048))
    partials, ticket = workspace(x.device, 1 << 16)  # room for 2^16 tiles of 2048: N up to 2^27
    one_launch_per_tile_kernel[(programs,)](x, out, partials, ticket, n, BLOCK_SIZE=2048, P=32)


def sum_one_launch_small_tiles(x, out):
    _launch(one_launch_kernel, x, out, programs_cap=7, block=256)  # 7 programs: a partial block of P


# ----------------------------------------------------------------------------------------------------
# Wrong: more than one launch per call


@triton.jit
def partials_kernel(x_ptr, partials_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def combine_kernel(partials_ptr, out_ptr, programs, P: tl.constexpr):
    offsets = tl.arange(0, P)
    tl.store(out_ptr, tl.sum(tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0), axis=0))


def sum_one_launch_two_kernels(x, out):
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    partials, _ = workspace(x.device)
    partials_kernel[(programs,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_kernel[(1,)](partials, out, programs, P=triton.next_power_of_2(programs))


def sum_one_launch_host_combine(x, out):
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    partials, _ = workspace(x.device)
    partials_kernel[(programs,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(partials[:programs].sum())  # the combine on the host side: two more launches


@triton.jit
def atomic_sum_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0))


def sum_one_launch_zeroed_atomics(x, out):
    out.zero_()  # a launch of its own
    atomic_sum_kernel[(triton.cdiv(x.numel(), BLOCK_SIZE),)](x, out, x.numel(), BLOCK_SIZE=BLOCK_SIZE)


def sum_one_launch_ticket_zeroed_by_host(x, out):
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    partials = torch.empty(PROGRAMS, dtype=torch.float32, device=x.device)
    ticket = torch.zeros(1, dtype=torch.int32, device=x.device)  # a memset on every call
    P = triton.next_power_of_2(programs)
    one_launch_kernel[(programs,)](x, out, partials, ticket, n, BLOCK_SIZE=BLOCK_SIZE, P=P)


# ----------------------------------------------------------------------------------------------------
# Wrong: the ticket


@triton.jit
def never_reset_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs - 1:  # right on the first call only: the ticket is never put back to 0
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))


def sum_one_launch_never_reset(x, out):
    _launch(never_reset_kernel, x, out, owner="never reset")


@triton.jit
def early_ticket_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")  # taken before this program's partial exists
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    if ticket == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(
            partials_ptr + offsets, mask=offsets < programs, other=0.0
        )  # its own not stored yet
        tl.store(out_ptr, tl.sum(partials, axis=0))
        tl.store(ticket_ptr, 0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


def sum_one_launch_early_ticket(x, out):
    _launch(early_ticket_kernel, x, out, owner="early ticket")


@triton.jit
def off_by_one_kernel(x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")  # returns the value before the add: 0 .. programs-1
    if ticket == programs:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))
    if ticket == programs - 1:
        tl.store(ticket_ptr, 0)


def sum_one_launch_off_by_one(x, out):
    _launch(off_by_one_kernel, x, out)


# ----------------------------------------------------------------------------------------------------
# Wrong: the workspace, the last-ticket test and out, each shown only by calls in a row


def sum_one_launch_unmasked_partials(x, out):
    _launch(one_launch_kernel, x, out, owner="unmasked partials", MASK_PARTIALS=False)


def sum_one_launch_added_into_out(x, out):
    _launch(one_launch_kernel, x, out, owner="added into out", ADD_INTO_OUT=True)


def sum_one_launch_last_ticket_missed(x, out):
    _launch(one_launch_kernel, x, out, owner="last ticket missed", LAST=0)


def sum_one_launch_reset_by_first_program(x, out):
    _launch(one_launch_kernel, x, out, owner="reset by first program", FIRST_RESETS=True)


_FIRST_CALLS = {}  # device -> the partials and ticket of the first call, sized for its programs


def sum_one_launch_workspace_of_first_call(x, out):
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    if str(x.device) not in _FIRST_CALLS:  # sized once, for this call's programs only
        partials = torch.zeros(programs, dtype=torch.float32, device=x.device)
        _FIRST_CALLS[str(x.device)] = (partials, torch.zeros(1, dtype=torch.int32, device=x.device))
    partials, ticket = _FIRST_CALLS[str(x.device)]
    P = triton.next_power_of_2(programs)
    one_launch_kernel[(programs,)](x, out, partials, ticket, n, BLOCK_SIZE=BLOCK_SIZE, P=P)


_UNZEROED_TICKETS = {}  # device -> a ticket that starts where uninitialised memory left it


def sum_one_launch_ticket_not_zeroed(x, out):
    # torch.empty's memory may hold 0 by chance: a fixed value stands in for what it held, so that the
    # test does not depend on the allocator.
    if str(x.device) not in _UNZEROED_TICKETS:
        _UNZEROED_TICKETS[str(x.device)] = torch.full((1,), 727_653_716, dtype=torch.int32, device=x.device)
    partials, _ = workspace(x.device, PROGRAMS, owner="ticket not zeroed")
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    P = triton.next_power_of_2(programs)
    ticket = _UNZEROED_TICKETS[str(x.device)]
    one_launch_kernel[(programs,)](x, out, partials, ticket, n, BLOCK_SIZE=BLOCK_SIZE, P=P)


# ----------------------------------------------------------------------------------------------------
# Wrong: the sum itself


@triton.jit
def wrong_other_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=1.0)  # padding the tail with ones
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))
        tl.store(ticket_ptr, 0)


def sum_one_launch_wrong_other(x, out):
    _launch(wrong_other_kernel, x, out)


@triton.jit
def tail_dropped_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(partials_ptr + pid, tl.sum(tl.load(x_ptr + offsets), axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == tl.num_programs(0) - 1:
        offs = tl.arange(0, P)
        partials = tl.load(partials_ptr + offs, mask=offs < tl.num_programs(0), other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))
        tl.store(ticket_ptr, 0)


def sum_one_launch_tail_dropped(x, out):
    n = x.numel()
    programs = n // BLOCK_SIZE  # rounded down: the tail has no program, and N < BLOCK_SIZE none at all
    partials, ticket = workspace(x.device, 1 << 17)
    if programs:
        P = triton.next_power_of_2(programs)
        tail_dropped_kernel[(programs,)](x, out, partials, ticket, n, BLOCK_SIZE=BLOCK_SIZE, P=P)


@triton.jit
def fp16_kernel(x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float16)  # a float16 accumulator
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float16)
    tl.store(partials_ptr + pid, tl.sum(acc.to(tl.float32), axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))
        tl.store(ticket_ptr, 0)


def sum_one_launch_fp16(x, out):
    _launch(fp16_kernel, x, out)


@triton.jit
def atomic_combine_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    # One launch, reset, but the partials meet in an atomic float sum: the order of the adds, and so the
    # bits of the result, depend on which program finishes first.
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(partials_ptr, tl.sum(acc, axis=0), sem="acq_rel")
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs - 1:
        tl.store(out_ptr, tl.load(partials_ptr))
        tl.store(partials_ptr, 0.0)
        tl.store(ticket_ptr, 0)


def sum_one_launch_atomic_combine(x, out):
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    total, ticket = workspace(x.device, 1, owner="atomic combine")  # one float: the atomic total
    atomic_combine_kernel[(programs,)](x, out, total, ticket, n, BLOCK_SIZE=BLOCK_SIZE, P=1)


@triton.jit
def relaxed_ticket_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="relaxed")  # no release of the store above, no acquire below
    if ticket == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))
        tl.store(ticket_ptr, 0)


def sum_one_launch_relaxed_ticket(x, out):
    _launch(relaxed_ticket_kernel, x, out)


# ---- Unseen round of 2026-12-05 (session 22): written from the notebook alone, by a helper who
# did not read the checker; each wrong one was shown wrong on an input the exercise allows.
@triton.jit
def _ol_modulo_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, n, BLOCK_SIZE: tl.constexpr, PARTIALS_BLOCK: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(pid * BLOCK_SIZE, n, programs * BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if programs == 1:
        tl.store(out_ptr, tl.sum(acc, axis=0))
    else:
        tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
        ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
        if ticket % programs == programs - 1:  # the count runs on from call to call: no reset needed
            offs = tl.arange(0, PARTIALS_BLOCK)
            p = tl.load(partials_ptr + offs, mask=offs < programs, other=0.0)
            tl.store(out_ptr, tl.sum(p, axis=0))


def sum_one_launch_modulo(x, out):
    n = x.numel()
    programs, partials_block = one_launch_grid(n)
    partials, ticket = workspace(x.device, owner="modulo")  # its ticket never returns to 0
    _ol_modulo_kernel[(programs,)](
        x, out, partials, ticket, n, BLOCK_SIZE=4096, PARTIALS_BLOCK=partials_block, num_warps=8
    )


def sum_one_launch_pow2_floor(x, out):
    n = x.numel()
    programs = min(PROGRAMS, triton.cdiv(n, 4096))
    partials_block = 2 ** int(math.log2(programs))
    partials, ticket = workspace(x.device)
    sum_one_launch_kernel[(programs,)](  # the notebook's kernel: the mistake is on the host
        x, out, partials, ticket, n, BLOCK_SIZE=4096, PARTIALS_BLOCK=partials_block, num_warps=8
    )


def sum_one_launch_torch_for_small_inputs(x, out):
    """One tile or less handed to torch.sum: no Triton launch at all there, a torch operation instead."""
    if x.numel() <= BLOCK_SIZE:
        torch.sum(x, 0, keepdim=True, out=out)
    else:
        _launch(one_launch_kernel, x, out)


CORRECT = [sum_one_launch, sum_one_launch_per_tile, sum_one_launch_small_tiles]

WRONG = [
    (sum_one_launch_two_kernels, "extra_launches"),
    (sum_one_launch_host_combine, "extra_launches"),
    (sum_one_launch_zeroed_atomics, "extra_launches"),
    (sum_one_launch_ticket_zeroed_by_host, "extra_launches"),
    (sum_one_launch_never_reset, "state_not_reset"),
    (sum_one_launch_early_ticket, "stale_partials"),
    (sum_one_launch_off_by_one, "not_written"),
    (sum_one_launch_unmasked_partials, "stale_slots"),
    (sum_one_launch_added_into_out, "added_into_out"),
    (sum_one_launch_last_ticket_missed, "last_ticket_missed"),
    (sum_one_launch_ticket_not_zeroed, "ticket_not_zeroed"),
    (sum_one_launch_wrong_other, "wrong_sentinel"),
    (sum_one_launch_tail_dropped, "tail_not_processed"),
    (sum_one_launch_fp16, "fp16_accumulation"),
    (sum_one_launch_modulo, "state_not_reset"),
    (sum_one_launch_pow2_floor, "wrong_values"),
    (sum_one_launch_torch_for_small_inputs, "extra_launches"),
]
# Atomic adds meet in the order the programs run: a GPU varies it from run to run, and the interpreter,
# which runs them in order, is asked once more with the programs reversed (probes.same_bits_reversed)
WRONG.append((sum_one_launch_atomic_combine, "not_deterministic"))
# On a GPU the stores past the 1-slot workspace land in the allocator's block, unguarded: only the
# interpreter's bounds check (utils.checker.bounds) stops them, and names the mistake
if not runs_on_gpu():
    WRONG.append((sum_one_launch_workspace_of_first_call, "workspace_sized_by_first_call"))
    # In the interpreter program 0 runs first, so its reset leaves the ticket at programs - 1 after every
    # call; on a GPU where it lands depends on the order the programs run in (not yet run there)
    WRONG.append((sum_one_launch_reset_by_first_program, "state_not_reset"))

# Wrong by the memory model, right by every effect a check can see: the checker passes them, and must not
# name a mistake they do not show. A ticket without acquire/release let the last program read a partial
# not yet visible in no run of notebook 07's provoke cell on an H200 (0 of 2000); its PTX cell shows
# what differs. tests/test_check.py holds the checker to passing these, so a diagnosis it cannot back
# with an effect fails there.
UNSEEN = [sum_one_launch_relaxed_ticket]
