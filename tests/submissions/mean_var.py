"""Submissions for `mean_var(x, out)`: out[0] = mean, out[1] = population variance; right and wrong."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def tile_moments_kernel(x_ptr, count_ptr, mean_ptr, m2_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Per tile: count, mean and M2 = sum((x - mean)^2), two passes over the tile while it is in registers.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    count = tl.sum(mask.to(tl.float32), axis=0)
    mean = tl.sum(x, axis=0) / count
    deviation = tl.where(mask, x - mean, 0.0)
    tl.store(count_ptr + pid, count)
    tl.store(mean_ptr + pid, mean)
    tl.store(m2_ptr + pid, tl.sum(deviation * deviation, axis=0))


@triton.jit
def combine_moments_kernel(count_ptr, mean_ptr, m2_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # Chan et al.: M2 = sum(M2_i) + sum(n_i * (mean_i - mean)^2). Two loops over the partials.
    weighted = tl.zeros((BLOCK_SIZE,), tl.float32)
    total = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_partials
        count = tl.load(count_ptr + offsets, mask=mask, other=0.0)
        total += count
        weighted += count * tl.load(mean_ptr + offsets, mask=mask, other=0.0)
    n = tl.sum(total, axis=0)
    mean = tl.sum(weighted, axis=0) / n
    m2 = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_partials
        count = tl.load(count_ptr + offsets, mask=mask, other=0.0)
        apart = tl.load(mean_ptr + offsets, mask=mask, other=0.0) - mean
        m2 += tl.load(m2_ptr + offsets, mask=mask, other=0.0) + count * apart * apart
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, tl.sum(m2, axis=0) / n)


def mean_var(x, out):
    n = x.numel()
    grid = triton.cdiv(n, BLOCK_SIZE)
    count, mean, m2 = (torch.empty(grid, device=x.device) for _ in range(3))
    tile_moments_kernel[(grid,)](x, count, mean, m2, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_moments_kernel[(1,)](count, mean, m2, out, grid, BLOCK_SIZE=64)


@triton.jit
def shifted_sums_kernel(x_ptr, sums_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Sums of d = x - shift and d^2, with shift = x[0]: the large common part cancels exactly first.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    shift = tl.load(x_ptr)
    d = tl.where(mask, tl.load(x_ptr + offsets, mask=mask, other=0.0) - shift, 0.0)
    tl.atomic_add(sums_ptr, tl.sum(d, axis=0))
    tl.atomic_add(sums_ptr + 1, tl.sum(d * d, axis=0))


def mean_var_shifted(x, out):
    n = x.numel()
    sums = torch.zeros(2, device=x.device)
    shifted_sums_kernel[(triton.cdiv(n, 256),)](x, sums, n, BLOCK_SIZE=256)
    mean_d = sums[0] / n
    out[0] = x[0] + mean_d
    out[1] = sums[1] / n - mean_d * mean_d


# ---- wrong ----


@triton.jit
def raw_sums_kernel(x_ptr, sums_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(sums_ptr, tl.sum(x, axis=0))
    tl.atomic_add(sums_ptr + 1, tl.sum(x * x, axis=0))


def mean_var_two_sums(x, out):
    n = x.numel()
    sums = torch.zeros(2, device=x.device)
    raw_sums_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, sums, n, BLOCK_SIZE=BLOCK_SIZE)
    mean = sums[0] / n
    out[0] = mean
    out[1] = sums[1] / n - mean * mean  # BUG: cancels catastrophically when mean >> spread


def mean_var_unbiased(x, out):
    mean_var(x, out)
    n = x.numel()
    out[1] *= n / (n - 1)  # BUG: the sample variance, not the population variance


@triton.jit
def tile_moments_kernel_full_count(x_ptr, count_ptr, mean_ptr, m2_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    count = BLOCK_SIZE * 1.0  # BUG: the masked lanes are counted as elements of value 0
    mean = tl.sum(x, axis=0) / count
    deviation = x - mean
    tl.store(count_ptr + pid, count)
    tl.store(mean_ptr + pid, mean)
    tl.store(m2_ptr + pid, tl.sum(deviation * deviation, axis=0))


def mean_var_full_count(x, out):
    n = x.numel()
    grid = triton.cdiv(n, BLOCK_SIZE)
    count, mean, m2 = (torch.empty(grid, device=x.device) for _ in range(3))
    tile_moments_kernel_full_count[(grid,)](x, count, mean, m2, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_moments_kernel[(1,)](count, mean, m2, out, grid, BLOCK_SIZE=64)


def mean_var_std(x, out):
    mean_var(x, out)
    out[1] = out[1].sqrt()  # BUG: the standard deviation


@triton.jit
def program_moments_kernel(
    x_ptr, count_ptr, mean_ptr, m2_ptr, n_elements, BLOCK_SIZE: tl.constexpr, BETWEEN_TILES: tl.constexpr
):
    # Persistent: each program merges its tiles into a running (count, mean, M2) with Chan's rule.
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        c = tl.sum(mask.to(tl.float32), axis=0)
        mu = tl.sum(x, axis=0) / c
        deviation = tl.where(mask, x - mu, 0.0)
        total = count + c
        delta = mu - mean
        mean += delta * (c / total)
        m2 += tl.sum(deviation * deviation, axis=0)
        if BETWEEN_TILES:
            m2 += delta * delta * (count * c / total)
        count = total
    tl.store(count_ptr + tl.program_id(0), count)
    tl.store(mean_ptr + tl.program_id(0), mean)
    tl.store(m2_ptr + tl.program_id(0), m2)


def mean_var_persistent(x, out, programs=6, between_tiles=True):
    n = x.numel()
    programs = min(programs, triton.cdiv(n, BLOCK_SIZE))
    count, mean, m2 = (torch.empty(programs, device=x.device) for _ in range(3))
    program_moments_kernel[(programs,)](
        x, count, mean, m2, n, BLOCK_SIZE=BLOCK_SIZE, BETWEEN_TILES=between_tiles
    )
    combine_moments_kernel[(1,)](count, mean, m2, out, programs, BLOCK_SIZE=64)


def mean_var_persistent_no_spread(x, out):
    mean_var_persistent(x, out, between_tiles=False)  # BUG: the merge drops count*c/total * delta^2


CORRECT = [mean_var, mean_var_shifted, mean_var_persistent]
WRONG = [
    (mean_var_two_sums, "cancellation"),
    (mean_var_unbiased, "unbiased_variance"),
    (mean_var_full_count, "counted_masked_lanes"),
    (mean_var_std, "std_instead_of_variance"),
    (mean_var_persistent_no_spread, "spread_between_tiles"),
]
