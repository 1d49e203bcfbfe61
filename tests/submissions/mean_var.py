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
    shifted_sums_kernel[(triton.cdiv(n, 2048),)](x, sums, n, BLOCK_SIZE=2048)
    mean_d = sums[0] / n
    out[0] = x[0] + mean_d
    out[1] = sums[1] / n - mean_d * mean_d


@triton.jit
def single_program_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One program merges tile after tile into a running (count, mean, M2) with Chan's rule.
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        c = tl.sum(mask.to(tl.float32), axis=0)
        mu = tl.sum(x, axis=0) / c
        deviation = tl.where(mask, x - mu, 0.0)
        total = count + c
        delta = mu - mean
        mean += delta * (c / total)
        m2 += tl.sum(deviation * deviation, axis=0) + delta * delta * (count * c / total)
        count = total
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, m2 / count)


def mean_var_single_program(x, out):
    n = x.numel()
    single_program_kernel[(1,)](x, out, n, BLOCK_SIZE=min(triton.next_power_of_2(n), 2048))


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


@triton.jit
def float64_sums_kernel(x_ptr, sums_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    square = x * x  # BUG: squared in float32, rounded to a multiple of 8 near 1e8, before the float64 sum
    tl.atomic_add(sums_ptr, tl.sum(x.to(tl.float64), axis=0))
    tl.atomic_add(sums_ptr + 1, tl.sum(square.to(tl.float64), axis=0))


def mean_var_float32_squares(x, out):
    n = x.numel()
    sums = torch.zeros(2, dtype=torch.float64, device=x.device)
    float64_sums_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, sums, n, BLOCK_SIZE=BLOCK_SIZE)
    mean = sums[0] / n
    out[0] = mean
    out[1] = sums[1] / n - mean * mean


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


@triton.jit
def combine_no_spread_kernel(count_ptr, mean_ptr, m2_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # the host keeps n_partials <= BLOCK_SIZE
    mask = offsets < n_partials
    count = tl.load(count_ptr + offsets, mask=mask, other=0.0)
    n = tl.sum(count, axis=0)
    mean = tl.sum(count * tl.load(mean_ptr + offsets, mask=mask, other=0.0), axis=0) / n
    m2 = tl.sum(tl.load(m2_ptr + offsets, mask=mask, other=0.0), axis=0)  # BUG: + count * (mean_i - mean)^2
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, m2 / n)


def mean_var_combine_no_spread(x, out):
    n = x.numel()
    grid = triton.cdiv(n, BLOCK_SIZE)
    count, mean, m2 = (torch.empty(grid, device=x.device) for _ in range(3))
    tile_moments_kernel[(grid,)](x, count, mean, m2, n, BLOCK_SIZE=BLOCK_SIZE)
    combine_no_spread_kernel[(1,)](count, mean, m2, out, grid, BLOCK_SIZE=triton.next_power_of_2(grid))


def mean_var_persistent_combine_no_spread(x, out, programs=8):
    n = x.numel()
    programs = min(programs, triton.cdiv(n, 2048))
    count, mean, m2 = (torch.empty(programs, device=x.device) for _ in range(3))
    program_moments_kernel[(programs,)](x, count, mean, m2, n, BLOCK_SIZE=2048, BETWEEN_TILES=True)
    combine_no_spread_kernel[(1,)](count, mean, m2, out, programs, BLOCK_SIZE=8)


@triton.jit
def program_moments_block_count_kernel(
    x_ptr, count_ptr, mean_ptr, m2_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        c = BLOCK_SIZE * 1.0  # BUG: the last tile holds fewer than BLOCK_SIZE elements
        mu = tl.sum(x, axis=0) / c
        deviation = tl.where(mask, x - mu, 0.0)
        total = count + c
        delta = mu - mean
        mean += delta * (c / total)
        m2 += tl.sum(deviation * deviation, axis=0) + delta * delta * (count * c / total)
        count = total
    tl.store(count_ptr + tl.program_id(0), count)
    tl.store(mean_ptr + tl.program_id(0), mean)
    tl.store(m2_ptr + tl.program_id(0), m2)


def mean_var_last_count_block(x, out, programs=8):
    n = x.numel()
    programs = min(programs, triton.cdiv(n, 2048))
    count, mean, m2 = (torch.empty(programs, device=x.device) for _ in range(3))
    program_moments_block_count_kernel[(programs,)](x, count, mean, m2, n, BLOCK_SIZE=2048)
    combine_moments_kernel[(1,)](count, mean, m2, out, programs, BLOCK_SIZE=64)


@triton.jit
def tile_moments_unmasked_m2_kernel(x_ptr, count_ptr, mean_ptr, m2_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    count = tl.sum(mask.to(tl.float32), axis=0)
    mean = tl.sum(x, axis=0) / count
    deviation = x - mean  # BUG: a masked lane's 0.0 - mean is squared and added to M2
    tl.store(count_ptr + pid, count)
    tl.store(mean_ptr + pid, mean)
    tl.store(m2_ptr + pid, tl.sum(deviation * deviation, axis=0))


def mean_var_masked_in_m2(x, out):
    n = x.numel()
    grid = triton.cdiv(n, 2048)
    count, mean, m2 = (torch.empty(grid, device=x.device) for _ in range(3))
    tile_moments_unmasked_m2_kernel[(grid,)](x, count, mean, m2, n, BLOCK_SIZE=2048)
    combine_moments_kernel[(1,)](count, mean, m2, out, grid, BLOCK_SIZE=64)


@triton.jit
def single_program_out0_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        c = tl.sum(mask.to(tl.float32), axis=0)
        mu = tl.sum(x, axis=0) / c
        deviation = tl.where(mask, x - mu, 0.0)
        total = count + c
        delta = mu - mean
        mean += delta * (c / total)
        m2 += tl.sum(deviation * deviation, axis=0) + delta * delta * (count * c / total)
        count = total
    tl.store(out_ptr, mean)
    tl.store(out_ptr, m2 / count)  # BUG: out_ptr + 1


def mean_var_both_out0(x, out):
    n = x.numel()
    single_program_out0_kernel[(1,)](x, out, n, BLOCK_SIZE=min(triton.next_power_of_2(n), 2048))


def mean_var_shift_no_correction(x, out):
    n = x.numel()
    sums = torch.zeros(2, device=x.device)
    shifted_sums_kernel[(triton.cdiv(n, 1024),)](x, sums, n, BLOCK_SIZE=1024)
    out[0] = x[0] + sums[0] / n
    out[1] = sums[1] / n  # BUG: the mean of d^2 is the variance only after - (sums[0] / n) ** 2


def mean_var_tail(x, out):
    n = x.numel()
    sums = torch.zeros(2, device=x.device)
    shifted_sums_kernel[(n // 1024,)](x, sums, n, BLOCK_SIZE=1024)  # BUG: triton.cdiv(n, 1024)
    mean_d = sums[0] / n
    out[0] = x[0] + mean_d
    out[1] = sums[1] / n - mean_d * mean_d


@triton.jit
def tile_mean_var_store_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    count = tl.sum(mask.to(tl.float32), axis=0)
    mean = tl.sum(x, axis=0) / count
    deviation = tl.where(mask, x - mean, 0.0)
    # BUG: every program stores its own tile's mean and variance over the other programs'
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, tl.sum(deviation * deviation, axis=0) / count)


def mean_var_store_race(x, out):
    n = x.numel()
    tile_mean_var_store_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def notebook_m2_kernel(x_ptr, count_ptr, mean_ptr, m2_ptr, n, BLOCK_SIZE: tl.constexpr):
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(tl.program_id(0) * BLOCK_SIZE, n, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        c = tl.minimum(n - start, BLOCK_SIZE).to(tl.float32)
        mu = tl.sum(x, axis=0) / c
        deviation = x - mu  # BUG: masked lanes add (0 - mu)^2
        total = count + c
        delta = mu - mean
        mean += delta * (c / total)
        m2 += tl.sum(deviation * deviation, axis=0) + delta * delta * (count * c / total)
        count = total
    tl.store(count_ptr + tl.program_id(0), count)
    tl.store(mean_ptr + tl.program_id(0), mean)
    tl.store(m2_ptr + tl.program_id(0), m2)


def mean_var_notebook_masked_m2(x, out, programs=8):
    n = x.numel()
    programs = min(programs, triton.cdiv(n, 4096))
    counts, means, m2s = (torch.empty(programs, device=x.device) for _ in range(3))
    notebook_m2_kernel[(programs,)](x, counts, means, m2s, n, BLOCK_SIZE=4096)
    combine_moments_kernel[(1,)](counts, means, m2s, out, programs, BLOCK_SIZE=1024)


@triton.jit
def sums_store_kernel(x_ptr, sums_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    shift = tl.load(x_ptr)
    d = tl.where(mask, tl.load(x_ptr + offsets, mask=mask, other=0.0) - shift, 0.0)
    tl.store(sums_ptr, tl.sum(d, axis=0))  # BUG: a plain store where tl.atomic_add must combine
    tl.store(sums_ptr + 1, tl.sum(d * d, axis=0))


def mean_var_sums_race(x, out):
    n = x.numel()
    sums = torch.zeros(2, device=x.device)
    sums_store_kernel[(triton.cdiv(n, 2048),)](x, sums, n, BLOCK_SIZE=2048)
    mean_d = sums[0] / n
    out[0] = x[0] + mean_d
    out[1] = sums[1] / n - mean_d * mean_d


CORRECT = [mean_var, mean_var_shifted, mean_var_persistent, mean_var_single_program]
WRONG = [
    (mean_var_two_sums, "cancellation"),
    (mean_var_float32_squares, "cancellation"),
    (mean_var_unbiased, "unbiased_variance"),
    (mean_var_full_count, "counted_masked_lanes"),
    (mean_var_std, "std_instead_of_variance"),
    (mean_var_persistent_no_spread, "spread_between_tiles"),
    (mean_var_combine_no_spread, "spread_between_tiles"),
    (mean_var_persistent_combine_no_spread, "spread_between_tiles"),
    (mean_var_last_count_block, "counted_masked_lanes"),
    (mean_var_masked_in_m2, "masked_lanes_in_m2"),
    (mean_var_both_out0, "both_stored_to_out0"),
    (mean_var_shift_no_correction, "shift_correction_missing"),
    (mean_var_tail, "tail_not_processed"),
    (mean_var_store_race, "store_race"),
    (mean_var_notebook_masked_m2, "masked_lanes_in_m2"),
    (mean_var_sums_race, "store_race"),
]
