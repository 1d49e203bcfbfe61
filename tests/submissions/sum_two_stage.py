"""Submissions for `sum_two_stage(x, out)`: per-program partials, then one program sums them."""

import torch
import triton
import triton.language as tl

from utils.exported.nb02_sum_atomics import PROGRAMS as PROGRAMS02
from utils.exported.nb02_sum_atomics import sum_persistent
from utils.setup import runs_on_gpu

BLOCK_SIZE = 1024  # elements per stage-1 program
PARTIALS_BLOCK = 32  # partials per step of the stage-2 loop (small, so the loop matters from N > 32768)


@triton.jit
def partial_sum_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def sum_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program: walk the partials in blocks, always in the same order, so the result is reproducible.
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def sum_two_stage(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_persistent(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed number of programs, each striding over the tiles and storing one partial.
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(pid * BLOCK_SIZE, n_elements, num_programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


def sum_two_stage_persistent(x, out, max_programs=40):
    n = x.numel()
    n_partials = min(triton.cdiv(n, BLOCK_SIZE), max_programs)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_persistent[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def sum_partials_kernel_one_block(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program, one block that holds every partial (BLOCK_SIZE = next_power_of_2(n_partials)).
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(partials, axis=0))


def sum_two_stage_one_block_combine(x, out):
    n = x.numel()
    block = 4096
    n_partials = triton.cdiv(n, block)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=block)
    combine = triton.next_power_of_2(n_partials)
    sum_partials_kernel_one_block[(1,)](partials, out, n_partials, BLOCK_SIZE=combine)


def sum_two_stage_three_levels(x, out):
    # A tree: tiles of 512 -> partials; blocks of 16 partials -> fewer partials; one program sums those.
    n = x.numel()
    level1 = triton.cdiv(n, 512)
    partials1 = torch.empty(level1, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(level1,)](x, partials1, n, BLOCK_SIZE=512)
    level2 = triton.cdiv(level1, 16)
    partials2 = torch.empty(level2, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(level2,)](partials1, partials2, level1, BLOCK_SIZE=16)
    sum_partials_kernel[(1,)](partials2, out, level2, BLOCK_SIZE=8)


def sum_two_stage_fitted_block(x, out):
    # Stage 1's block from the input's size: one program (one partial) while n fits in 2048 lanes.
    n = x.numel()
    block = min(triton.next_power_of_2(n), 2048)
    n_partials = triton.cdiv(n, block)
    partials = torch.zeros(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=block)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=64)


# ---- wrong ----


@triton.jit
def sum_partials_kernel_first_block_only(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # BUG: no loop; only the first BLOCK_SIZE partials are summed.
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(partials, axis=0))


def _stage2_first_block_only(x, out, tile, partials_block):
    n = x.numel()
    n_partials = triton.cdiv(n, tile)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=tile)
    sum_partials_kernel_first_block_only[(1,)](partials, out, n_partials, BLOCK_SIZE=partials_block)


def sum_two_stage_stage2_first_block_only(x, out):
    _stage2_first_block_only(x, out, BLOCK_SIZE, PARTIALS_BLOCK)


def sum_two_stage_stage2_block_of_64(x, out):
    # (session 29's unseen round) the same mistake with a block of 64 partials of tiles of 1,024: every case
    # of up to 65,536 elements fits in it, and 131,075 does not
    _stage2_first_block_only(x, out, 1024, 64)


@triton.jit
def partial_sum_kernel_sentinel_one(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)  # BUG: 1.0 is the product's identity, not the sum's
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


def sum_two_stage_sentinel_one(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_sentinel_one[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def sum_two_stage_grid_floor_div(x, out):
    n = x.numel()
    n_partials = n // BLOCK_SIZE  # BUG: rounds down, the partial last tile is never summed
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_missing_pid_offset(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program sums the first tile
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


def sum_two_stage_missing_pid_offset(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_missing_pid_offset[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def sum_two_stage_grid_of_one(x, out):
    n = x.numel()
    partials = torch.empty(1, dtype=torch.float32, device=x.device)
    # BUG: one stage-1 program, and its kernel has no loop: only the first tile is summed
    partial_sum_kernel[(1,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, 1, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_same_slot(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(partials_ptr, tl.sum(x, axis=0))  # BUG: partials_ptr, not partials_ptr + pid


def sum_two_stage_same_slot(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.zeros(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_same_slot[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def sum_partials_kernel_blocks(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(partials, axis=0))  # BUG: several stage-2 programs overwrite out[0]


def sum_two_stage_stage2_race(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    grid2 = (triton.cdiv(n_partials, 8),)
    sum_partials_kernel_blocks[grid2](partials, out, n_partials, BLOCK_SIZE=8)


def sum_two_stage_scratch_too_small(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n // BLOCK_SIZE, dtype=torch.float32, device=x.device)  # BUG: one short
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def sum_two_stage_fp16_scratch(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float16, device=x.device)  # BUG: partials in fp16
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_tile_step(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    # BUG: steps by one tile, not by the whole grid: program p sums tiles p, p + 1, ... to the end
    for start in range(pid * BLOCK_SIZE, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


def sum_two_stage_persistent_tile_step(x, out):
    n = x.numel()
    n_partials = min(triton.cdiv(n, 2048), 6)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_tile_step[(n_partials,)](x, partials, n, BLOCK_SIZE=2048)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def sum_partials_kernel_atomic(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))  # BUG: adds onto out, which nobody reset


def sum_two_stage_stage2_adds_onto_out(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel_atomic[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def sum_partials_kernel_seeded(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # BUG: the total starts at partials[0], and the loop starts at 0 too: the first partial counts twice
    total = tl.load(partials_ptr)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        total += tl.sum(tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0), axis=0)
    tl.store(out_ptr, total)


def sum_two_stage_first_partial_twice(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel_seeded[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def sum_two_stage_last_partial_unread(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    # BUG: stage 2 is told one partial fewer than stage 1 wrote
    sum_partials_kernel[(1,)](partials, out, n_partials - 1, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_assigned(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(pid * BLOCK_SIZE, n_elements, tl.num_programs(axis=0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)  # BUG: = where += belongs
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


def sum_two_stage_accumulator_assigned(x, out, max_programs=8):
    n = x.numel()
    n_partials = min(triton.cdiv(n, BLOCK_SIZE), max_programs)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_assigned[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def sum_two_stage_bfloat16_result(x, out):
    total = torch.empty_like(out)
    sum_two_stage(x, total)
    out.copy_(total.to(torch.bfloat16))  # BUG: the result rounded through bfloat16


# ---- Unseen round of 2026-12-05 (session 22): written from the notebook alone, by a helper who
# did not read the checker; each wrong one was shown wrong on an input the exercise allows.
@triton.jit
def _ts_stage2(partials_ptr, out_ptr, n_partials, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partials_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


@triton.jit
def _ts_kahan_stage1(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    s = tl.zeros((BLOCK,), tl.float32)
    c = tl.zeros((BLOCK,), tl.float32)  # running compensation: what rounding took from s, negated
    for start in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        y = tl.load(x_ptr + offs, mask=offs < n, other=0.0) - c
        t = s + y
        c = (t - s) - y
        s = t
    tl.store(partials_ptr + pid, tl.sum(s - c, axis=0))


def sum_two_stage_kahan(x, out):
    n = x.numel()
    block = 256
    programs = min(PROGRAMS02, triton.cdiv(n, block))
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    _ts_kahan_stage1[(programs,)](x, partials, n, BLOCK=block)
    _ts_stage2[(1,)](partials, out, programs, BLOCK=8)


@triton.jit
def _ts_skip_zero_stage1(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    partial = tl.sum(acc, axis=0)
    if partial != 0.0:  # nothing to contribute: save the store
        tl.store(partials_ptr + pid, partial)


_TS_PARTIALS = {}


def sum_two_stage_skip_zero(x, out):
    n = x.numel()
    block = 1024
    programs = min(PROGRAMS02, triton.cdiv(n, block))
    if x.device not in _TS_PARTIALS:
        _TS_PARTIALS[x.device] = torch.zeros(PROGRAMS02, dtype=torch.float32, device=x.device)
    partials = _TS_PARTIALS[x.device]
    _ts_skip_zero_stage1[(programs,)](x, partials, n, BLOCK=block)
    _ts_stage2[(1,)](partials, out, programs, BLOCK=8)


@triton.jit
def _ts_posneg_stage1(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    pos = tl.zeros((BLOCK,), tl.float32)
    neg = tl.zeros((BLOCK,), tl.float32)
    for start in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        pos += tl.where(x > 0, x, 0.0)
        neg += tl.where(x < 0, x, 0.0)
    tl.store(partials_ptr + pid, tl.sum(pos, axis=0) + tl.sum(neg, axis=0))


def sum_two_stage_pos_neg(x, out):
    n = x.numel()
    block = 1024
    programs = min(PROGRAMS02, triton.cdiv(n, block))
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    _ts_posneg_stage1[(programs,)](x, partials, n, BLOCK=block)
    _ts_stage2[(1,)](partials, out, programs, BLOCK=8)


# ---- Unseen round of 2026-12-05 (session 24): written from the notebook by a helper who did not read the
# checker. Right values in the interpreter, which runs the programs in order; on a GPU the atomic adds
# land in any order, and the bits change from run to run.
def sum_two_stage_one_stage_of_atomics(x, out):
    sum_persistent(x, out, programs=4, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)  # notebook 02's atomic sum


CORRECT = [
    sum_two_stage,
    sum_two_stage_persistent,
    sum_two_stage_one_block_combine,
    sum_two_stage_three_levels,
    sum_two_stage_fitted_block,
]


def sum_two_stage_combined_by_torch(x, out):
    # stage 2 left to torch: right values, but the partials never meet a Triton combine
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(partials.sum())


WRONG = [
    (sum_two_stage_combined_by_torch, "combined_by_torch"),
    (sum_two_stage_stage2_first_block_only, "first_tile_only"),
    (sum_two_stage_stage2_block_of_64, "first_tile_only"),
    (sum_two_stage_sentinel_one, "wrong_sentinel"),
    (sum_two_stage_grid_floor_div, "tail_not_processed"),
    (sum_two_stage_missing_pid_offset, "missing_program_offset"),
    (sum_two_stage_grid_of_one, "first_tile_only"),
    (sum_two_stage_same_slot, "store_race"),
    (sum_two_stage_stage2_race, "store_race"),
    (sum_two_stage_fp16_scratch, "fp16_accumulation"),
    (sum_two_stage_persistent_tile_step, "grid_stride_by_tile"),
    (sum_two_stage_stage2_adds_onto_out, "stale_out"),
    (sum_two_stage_first_partial_twice, "partial_twice"),
    (sum_two_stage_last_partial_unread, "partial_missing"),
    (sum_two_stage_accumulator_assigned, "accumulator_overwritten"),
    (sum_two_stage_bfloat16_result, "rounded_to_bfloat16"),
    (sum_two_stage_kahan, "produced_nan"),
    (sum_two_stage_skip_zero, "varies_between_runs"),
    (sum_two_stage_pos_neg, "wrong_values"),
]
if not runs_on_gpu():  # on a GPU the store past the scratch is an illegal address (the scratch is empty
    # for N < 1024), which ends the process's CUDA context; utils.checker.bounds stops it in the interpreter
    WRONG.append((sum_two_stage_scratch_too_small, "out_of_bounds_access"))
    WRONG.append((sum_two_stage_one_stage_of_atomics, "atomics_used"))  # counted in the interpreter only
