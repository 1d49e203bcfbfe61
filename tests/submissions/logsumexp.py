"""Submissions for `logsumexp(x, out)`: two passes (max, then sum of exp(x - max)) or one online pass.

Every one, right or wrong, shifts by 0 instead of a maximum that is still -inf (a run of masked logits):
exp(-inf - (-inf)) is NaN. The wrong ones make one mistake each, and the per-lane one is that NaN."""

import math

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def max_kernel(x_ptr, m_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.atomic_max(m_ptr, tl.max(x, axis=0))


@triton.jit
def sum_exp_kernel(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))  # exp(-inf - m) = 0
    m = tl.load(m_ptr)
    shift = tl.where(m == float("-inf"), 0.0, m)  # every x is -inf: exp(-inf - 0) = 0, not NaN
    tl.atomic_add(s_ptr, tl.sum(tl.exp(x - shift), axis=0))


def logsumexp_two_pass(x, out):
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    m = torch.full((1,), float("-inf"), device=x.device)
    s = torch.zeros(1, device=x.device)
    max_kernel[grid](x, m, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_exp_kernel[grid](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(m + torch.log(s))


@triton.jit
def online_partials_kernel(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One pass: a running max m and a running sum s of exp(x - m), rescaled whenever m grows.
    m = float("-inf")
    s = 0.0
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)  # -inf only so far: every exp is 0, not NaN
        s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift), axis=0)
        m = m_new
    tl.store(m_ptr + tl.program_id(0), m)
    tl.store(s_ptr + tl.program_id(0), s)


@triton.jit
def combine_partials_kernel(m_ptr, s_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # the host keeps n_partials <= BLOCK_SIZE
    m = tl.load(m_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
    s = tl.load(s_ptr + offsets, mask=offsets < n_partials, other=0.0)
    m_all = tl.max(m, axis=0)
    shift = tl.where(m_all == float("-inf"), 0.0, m_all)  # every partial -inf: the answer is -inf + log(0)
    tl.store(out_ptr, m_all + tl.log(tl.sum(s * tl.exp(m - shift), axis=0)))


def logsumexp_online(x, out, programs=32):
    n = x.numel()
    grid = min(programs, triton.cdiv(n, BLOCK_SIZE))
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    online_partials_kernel[(grid,)](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_partials_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=triton.next_power_of_2(grid))


@triton.jit
def tile_partials_kernel(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One tile per program: its max and its sum of exp(x - max), to scratch (no atomics).
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    m = tl.max(x, axis=0)
    tl.store(m_ptr + pid, m)
    tl.store(s_ptr + pid, tl.sum(tl.exp(x - tl.where(m == float("-inf"), 0.0, m)), axis=0))


@triton.jit
def combine_loop_kernel(m_ptr, s_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program merges the partials block by block, in a fixed order: bit-identical every run.
    m = float("-inf")
    s = 0.0
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        m_p = tl.load(m_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
        s_p = tl.load(s_ptr + offsets, mask=offsets < n_partials, other=0.0)
        m_new = tl.maximum(m, tl.max(m_p, axis=0))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.sum(s_p * tl.exp(m_p - shift), axis=0)
        m = m_new
    tl.store(out_ptr, m + tl.log(s))


def logsumexp_tiles_two_stage(x, out, block=512):
    n = x.numel()
    grid = triton.cdiv(n, block)
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    tile_partials_kernel[(grid,)](x, m, s, n, BLOCK_SIZE=block)
    combine_loop_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=128)


@triton.jit
def single_program_kernel(
    x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, MAX_FROM_ZERO: tl.constexpr = False
):
    # One program walks the whole input with a running max and a rescaled running sum. MAX_FROM_ZERO (a
    # mistake): the running max starts at 0, not -inf, so an x of values all far below 0 sums exp(x - 0),
    # which float32 rounds to 0
    m = 0.0 if MAX_FROM_ZERO else float("-inf")
    s = 0.0
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift), axis=0)
        m = m_new
    tl.store(out_ptr, m + tl.log(s))


def logsumexp_single_program(x, out):
    n = x.numel()
    single_program_kernel[(1,)](x, out, n, BLOCK_SIZE=min(triton.next_power_of_2(n), 2048))


# ---- wrong ----


@triton.jit
def naive_sum_exp_kernel(x_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.atomic_add(s_ptr, tl.sum(tl.exp(x), axis=0))  # BUG: exp(x) overflows for x > 88.7


def logsumexp_naive(x, out):
    n = x.numel()
    s = torch.zeros(1, device=x.device)
    naive_sum_exp_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, s, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(torch.log(s))


@triton.jit
def sum_exp_kernel_other_zero(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)  # BUG: each masked lane adds exp(-m)
    m = tl.load(m_ptr)
    tl.atomic_add(s_ptr, tl.sum(tl.exp(x - tl.where(m == float("-inf"), 0.0, m)), axis=0))


def logsumexp_other_zero(x, out):
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    m = torch.full((1,), float("-inf"), device=x.device)
    s = torch.zeros(1, device=x.device)
    max_kernel[grid](x, m, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_exp_kernel_other_zero[grid](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(m + torch.log(s))


def logsumexp_forgot_max(x, out):
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    m = torch.full((1,), float("-inf"), device=x.device)
    s = torch.zeros(1, device=x.device)
    max_kernel[grid](x, m, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_exp_kernel[grid](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(torch.log(s))  # BUG: m + log(s)


@triton.jit
def online_partials_kernel_per_lane(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A running max per lane: a lane that only ever sees masked elements keeps m = -inf.
    m = tl.full((BLOCK_SIZE,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)  # BUG: exp(-inf - (-inf)) = NaN on such lanes
        m = m_new
    m_all = tl.max(m, axis=0)
    tl.store(m_ptr + tl.program_id(0), m_all)
    tl.store(s_ptr + tl.program_id(0), tl.sum(s * tl.exp(m - m_all), axis=0))


def logsumexp_online_per_lane(x, out, programs=32):
    n = x.numel()
    grid = min(programs, triton.cdiv(n, BLOCK_SIZE))
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    online_partials_kernel_per_lane[(grid,)](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_partials_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=triton.next_power_of_2(grid))


@triton.jit
def combine_unscaled_kernel(m_ptr, s_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    m = tl.load(m_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
    s = tl.load(s_ptr + offsets, mask=offsets < n_partials, other=0.0)
    m_all = tl.max(m, axis=0)
    tl.store(out_ptr, m_all + tl.log(tl.sum(s, axis=0)))  # BUG: each s is relative to its own max m


def logsumexp_unscaled_combine(x, out, programs=8):
    n = x.numel()
    grid = min(programs, triton.cdiv(n, 4096))
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    online_partials_kernel[(grid,)](x, m, s, n, BLOCK_SIZE=4096)
    combine_unscaled_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=triton.next_power_of_2(grid))


@triton.jit
def online_not_rescaled_kernel(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    m = float("-inf")
    s = 0.0
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
        s += tl.sum(
            tl.exp(x - tl.where(m == float("-inf"), 0.0, m)), axis=0
        )  # BUG: the earlier terms were relative to the old, smaller m
    tl.store(m_ptr + tl.program_id(0), m)
    tl.store(s_ptr + tl.program_id(0), s)


def logsumexp_running_not_rescaled(x, out, programs=4):
    n = x.numel()
    grid = min(programs, triton.cdiv(n, BLOCK_SIZE))
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    online_not_rescaled_kernel[(grid,)](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_partials_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=triton.next_power_of_2(grid))


@triton.jit
def tile_logsumexp_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    m = tl.max(x, axis=0)
    shift = tl.where(m == float("-inf"), 0.0, m)
    tl.atomic_add(out_ptr, m + tl.log(tl.sum(tl.exp(x - shift), axis=0)))  # BUG: adds the programs' logs


def logsumexp_logs_added(x, out):
    n = x.numel()
    out.zero_()
    tile_logsumexp_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def online_store_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    m = float("-inf")
    s = 0.0
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift), axis=0)
        m = m_new
    tl.store(out_ptr, m + tl.log(s))  # BUG: every program stores its own result over the others'


def logsumexp_store_race(x, out, programs=16):
    n = x.numel()
    grid = min(programs, triton.cdiv(n, 512))
    online_store_kernel[(grid,)](x, out, n, BLOCK_SIZE=512)


def logsumexp_tail(x, out):
    n = x.numel()
    grid = (n // BLOCK_SIZE,)  # BUG: rounds down, the last partial tile is never read
    m = torch.full((1,), float("-inf"), device=x.device)
    s = torch.zeros(1, device=x.device)
    max_kernel[grid](x, m, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_exp_kernel[grid](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(m + torch.log(s))


@triton.jit
def tile_partials_no_offset_kernel(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: pid * BLOCK_SIZE missing, every program reads tile 0
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    m = tl.max(x, axis=0)
    tl.store(m_ptr + pid, m)
    tl.store(s_ptr + pid, tl.sum(tl.exp(x - tl.where(m == float("-inf"), 0.0, m)), axis=0))


def logsumexp_missing_program_offset(x, out, block=2048):
    n = x.numel()
    grid = triton.cdiv(n, block)
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    tile_partials_no_offset_kernel[(grid,)](x, m, s, n, BLOCK_SIZE=block)
    combine_loop_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=128)


@triton.jit
def own_max_sum_kernel(x_ptr, m_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    m = tl.max(x, axis=0)
    tl.atomic_max(m_ptr, m)
    # BUG: exp(x - m) with this tile's own max m, added as if every tile had used the global one
    tl.atomic_add(s_ptr, tl.sum(tl.exp(x - tl.where(m == float("-inf"), 0.0, m)), axis=0))


def logsumexp_atomic_own_max(x, out):
    n = x.numel()
    m = torch.full((1,), float("-inf"), device=x.device)
    s = torch.zeros(1, device=x.device)
    own_max_sum_kernel[(triton.cdiv(n, 2048),)](x, m, s, n, BLOCK_SIZE=2048)
    out.copy_(m + torch.log(s))


@triton.jit
def single_not_rescaled_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    m = float("-inf")
    s = 0.0
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
        s = s + tl.sum(
            tl.exp(x - tl.where(m == float("-inf"), 0.0, m)), axis=0
        )  # BUG: the earlier terms were relative to the old, smaller m
    tl.store(out_ptr, m + tl.log(s))


def logsumexp_single_not_rescaled(x, out):
    n = x.numel()
    single_not_rescaled_kernel[(1,)](x, out, n, BLOCK_SIZE=min(triton.next_power_of_2(n), 1024))


assert math.isnan(float("-inf") - float("-inf"))  # the arithmetic behind logsumexp_online_per_lane

CORRECT = [logsumexp_two_pass, logsumexp_online, logsumexp_tiles_two_stage, logsumexp_single_program]
WRONG = [
    (logsumexp_naive, "exp_overflow"),
    (logsumexp_other_zero, "wrong_sentinel"),
    (logsumexp_forgot_max, "max_not_added_back"),
    (logsumexp_online_per_lane, "produced_nan"),
    (logsumexp_unscaled_combine, "unscaled_partial_sums"),
    (logsumexp_running_not_rescaled, "running_sum_not_rescaled"),
    (logsumexp_logs_added, "logs_added"),
    (logsumexp_store_race, "store_race"),
    (logsumexp_tail, "tail_not_processed"),
    (logsumexp_missing_program_offset, "missing_program_offset"),
    (logsumexp_atomic_own_max, "unscaled_partial_sums"),
    (logsumexp_single_not_rescaled, "running_sum_not_rescaled"),
]


def logsumexp_max_from_zero(x, out):
    n = x.numel()
    block = min(triton.next_power_of_2(n), 2048)
    single_program_kernel[(1,)](x, out, n, BLOCK_SIZE=block, MAX_FROM_ZERO=True)


WRONG.append((logsumexp_max_from_zero, "max_met_zero"))
