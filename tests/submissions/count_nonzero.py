"""Submissions for `count_nonzero(x, out)`: a sum of the predicate x != 0; right and wrong."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def count_nonzero_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum((x != 0).to(tl.float32), axis=0))


def count_nonzero(x, out):
    n = x.numel()
    out.zero_()
    count_nonzero_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def count_nonzero_kernel_where(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # No other=: the mask itself decides, so whatever a masked lane holds is never counted.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.atomic_add(out_ptr, tl.sum(tl.where(mask & (x != 0), 1.0, 0.0), axis=0))


def count_nonzero_where(x, out):
    n = x.numel()
    out.zero_()
    count_nonzero_kernel_where[(triton.cdiv(n, 512),)](x, out, n, BLOCK_SIZE=512)


@triton.jit
def count_partial_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A count is an integer: int32 partials are exact.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partials_ptr + pid, tl.sum((x != 0).to(tl.int32), axis=0))


@triton.jit
def sum_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.int32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0)
    tl.store(out_ptr, tl.sum(acc, axis=0).to(tl.float32))


def count_nonzero_two_stage_int(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, 512)
    partials = torch.empty(n_partials, dtype=torch.int32, device=x.device)
    count_partial_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=512)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=128)


@triton.jit
def count_nonzero_kernel_persistent(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
        acc += tl.where(x != 0, 1.0, 0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def count_nonzero_persistent(x, out):
    n = x.numel()
    out.zero_()
    count_nonzero_kernel_persistent[(min(16, triton.cdiv(n, 2048)),)](x, out, n, BLOCK_SIZE=2048)


# ---- wrong ----


@triton.jit
def count_positive_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum((x > 0).to(tl.float32), axis=0))  # BUG: negatives are non-zero too


def count_positive(x, out):
    n = x.numel()
    out.zero_()
    count_positive_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def count_nonzero_kernel_other_one(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=1.0)  # BUG: masked lanes count as 1
    tl.atomic_add(out_ptr, tl.sum((x != 0).to(tl.float32), axis=0))


def count_other_one(x, out):
    n = x.numel()
    out.zero_()
    count_nonzero_kernel_other_one[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def count_out_not_zeroed(x, out):
    n = x.numel()
    count_nonzero_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: no zero_()


@triton.jit
def count_kernel_sums_values(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(tl.where(x != 0, x, 0.0), axis=0))  # BUG: adds x, not 1, where x != 0


def count_sums_values(x, out):
    n = x.numel()
    out.zero_()
    count_kernel_sums_values[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def count_kernel_int_cast(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0).to(tl.int32)  # BUG: 0.5 becomes 0
    tl.atomic_add(out_ptr, tl.sum((x != 0).to(tl.float32), axis=0))


def count_int_cast(x, out):
    n = x.numel()
    out.zero_()
    count_kernel_int_cast[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def count_kernel_fp16_one_program(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One program walks the whole input. BUG: a float16 accumulator: above 2048 it skips odd counts.
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float16)
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
        acc += (x != 0).to(tl.float16)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def count_fp16_accumulator(x, out):
    count_kernel_fp16_one_program[(1,)](x, out, x.numel(), BLOCK_SIZE=512)


def count_fp16_scratch(x, out):
    n = x.numel()
    total = torch.zeros(1, dtype=torch.float16, device=x.device)  # BUG: the atomics add up in float16
    count_nonzero_kernel[(triton.cdiv(n, 1024),)](x, total, n, BLOCK_SIZE=1024)
    out.copy_(total)


@triton.jit
def count_kernel_sampled(x_ptr, out_ptr, n_elements, STRIDE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # BUG: an estimate from every STRIDE-th element, times STRIDE, is not the count
    offsets = (tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)) * STRIDE
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, STRIDE * tl.sum((x != 0).to(tl.float32), axis=0))


def count_sampled(x, out):
    n = x.numel()
    out.zero_()
    count_kernel_sampled[(triton.cdiv(n, 8 * 256),)](x, out, n, STRIDE=8, BLOCK_SIZE=256)


@triton.jit
def count_kernel_pairs(x_ptr, out_ptr, n_pairs, BLOCK_SIZE: tl.constexpr):
    pairs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = pairs < n_pairs
    a = tl.load(x_ptr + 2 * pairs, mask=mask, other=0.0)
    b = tl.load(x_ptr + 2 * pairs + 1, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum((a != 0).to(tl.float32) + (b != 0).to(tl.float32), axis=0))


def count_pairs(x, out):
    n = x.numel()
    out.zero_()
    # BUG: n // 2 pairs leave out the last element when n is odd
    count_kernel_pairs[(triton.cdiv(n // 2, BLOCK_SIZE),)](x, out, n // 2, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def count_kernel_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(out_ptr, tl.sum((x != 0).to(tl.float32), axis=0))  # BUG: each program overwrites out[0]


def count_plain_store(x, out):
    n = x.numel()
    count_kernel_store[(triton.cdiv(n, 2048),)](x, out, n, BLOCK_SIZE=2048)


def count_grid_floor(x, out):
    n = x.numel()
    out.zero_()
    # BUG: n // BLOCK_SIZE programs: the partial last tile is lost
    count_nonzero_kernel[(n // BLOCK_SIZE,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def _count_by_test_kernel(x_ptr, out_ptr, n_elements, TEST: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    if TEST == "sign":  # BUG: False for NaN, which is non-zero
        hit = (x > 0) | (x < 0)
    elif TEST == "square":  # BUG: 1e-30 squares to 0 in float32
        hit = x * x != 0
    else:  # BUG: a threshold: 1e-7 and smaller are non-zero too
        hit = tl.abs(x) > 1e-6
    tl.atomic_add(out_ptr, tl.sum(hit.to(tl.float32), axis=0))


def _count_by_test(test):
    def count(x, out):
        n = x.numel()
        out.zero_()
        _count_by_test_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, TEST=test, BLOCK_SIZE=BLOCK_SIZE)

    count.__name__ = f"count_nonzero_by_{test}"
    return count


# ---- Unseen round of 2026-12-05 (session 22): written from the notebook alone, by a helper who
# did not read the checker; each wrong one was shown wrong on an input the exercise allows.
@triton.jit
def w16_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cnt = tl.zeros((BLOCK,), tl.int8)
    for t in range(pid, tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        cnt += (x != 0).to(tl.int8)
    tl.atomic_add(out_ptr, tl.sum(cnt.to(tl.int32), axis=0).to(tl.float32))


def count_nonzero_int8_lanes(x, out):
    out.zero_()
    n = x.numel()
    w16_kernel[(min(2, triton.cdiv(n, 32)),)](x, out, n, BLOCK=32)


@triton.jit
def w17_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, STORE: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for t in range(pid, tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        acc += (x != 0).to(tl.float32)
    if STORE:
        tl.store(out_ptr, tl.sum(acc, axis=0))
    else:
        tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def count_nonzero_boundary(x, out):
    n = x.numel()
    block = 512
    if n > block:  # several tiles: atomics need a zeroed out
        out.zero_()
    w17_kernel[(min(4, triton.cdiv(n, block)),)](x, out, n, BLOCK=block, STORE=n < block)


CORRECT = [count_nonzero, count_nonzero_where, count_nonzero_two_stage_int, count_nonzero_persistent]
WRONG = [
    (count_positive, "wrong_predicate"),
    (count_other_one, "wrong_sentinel"),
    (count_out_not_zeroed, "stale_out"),
    (count_sums_values, "summed_values"),
    (count_int_cast, "integer_truncation"),
    (count_fp16_accumulator, "fp16_accumulation"),
    (count_fp16_scratch, "fp16_accumulation"),
    (count_sampled, "sampled_input"),
    # Pairs leave out x[n - 1] exactly when a grid rounded down to tiles of 2 would: the same effect.
    (count_pairs, ("last_element_dropped", "tail_not_processed")),
    (count_plain_store, "store_race"),
    (count_grid_floor, "tail_not_processed"),
    (_count_by_test("sign"), "nan_not_counted"),
    # no listed mistake: tiny values left out; the report shows the smallest such case in full
    (_count_by_test("square"), "wrong_values"),
    (_count_by_test("threshold"), "wrong_values"),
    (count_nonzero_int8_lanes, "wrong_values"),
    (count_nonzero_boundary, "wrong_values"),
]
