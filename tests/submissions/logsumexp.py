"""Submissions for `logsumexp(x, out)`: two passes (max, then sum of exp(x - max)) or one online pass."""

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
    tl.atomic_add(s_ptr, tl.sum(tl.exp(x - tl.load(m_ptr)), axis=0))


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
        m_new = tl.maximum(m, tl.max(x, axis=0))  # finite: every tile has at least one real element
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    tl.store(m_ptr + tl.program_id(0), m)
    tl.store(s_ptr + tl.program_id(0), s)


@triton.jit
def combine_partials_kernel(m_ptr, s_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # the host keeps n_partials <= BLOCK_SIZE
    m = tl.load(m_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
    s = tl.load(s_ptr + offsets, mask=offsets < n_partials, other=0.0)
    m_all = tl.max(m, axis=0)
    tl.store(out_ptr, m_all + tl.log(tl.sum(s * tl.exp(m - m_all), axis=0)))


def logsumexp_online(x, out, programs=32):
    n = x.numel()
    grid = min(programs, triton.cdiv(n, BLOCK_SIZE))
    m = torch.empty(grid, device=x.device)
    s = torch.empty(grid, device=x.device)
    online_partials_kernel[(grid,)](x, m, s, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_partials_kernel[(1,)](m, s, out, grid, BLOCK_SIZE=triton.next_power_of_2(grid))


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
    tl.atomic_add(s_ptr, tl.sum(tl.exp(x - tl.load(m_ptr)), axis=0))


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


assert math.isnan(float("-inf") - float("-inf"))  # the arithmetic behind logsumexp_online_per_lane

CORRECT = [logsumexp_two_pass, logsumexp_online]
WRONG = [
    (logsumexp_naive, "exp_overflow"),
    (logsumexp_other_zero, "wrong_sentinel"),
    (logsumexp_forgot_max, "max_not_added_back"),
    (logsumexp_online_per_lane, "produced_nan"),
]
