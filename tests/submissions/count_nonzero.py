"""Submissions for `count_nonzero(x, out)`: a sum of the predicate x != 0; right and wrong."""

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
    count_nonzero_kernel_where[(triton.cdiv(n, 256),)](x, out, n, BLOCK_SIZE=256)


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


CORRECT = [count_nonzero, count_nonzero_where]
WRONG = [
    (count_positive, "wrong_predicate"),
    (count_other_one, "wrong_sentinel"),
    (count_out_not_zeroed, "stale_out"),
]
