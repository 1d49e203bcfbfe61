"""Submissions for `relu(x, out)`: out = max(x, 0), as a learner would write them, right and wrong."""

import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu(x, out):
    n = x.numel()
    relu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_where(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


def relu_where(x, out):
    n = x.numel()
    relu_kernel_where[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


# ---- wrong ----


@triton.jit
def relu_kernel_no_store_mask(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0))  # BUG: the last tile writes past the end of out


def relu_no_store_mask(x, out):
    n = x.numel()
    relu_kernel_no_store_mask[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def relu_missing_kernel_argument(x, out):
    # BUG: forgets n_elements; the launch raises TypeError before any program runs.
    relu_kernel[(triton.cdiv(x.numel(), BLOCK_SIZE),)](x, out, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_stores_into_x(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(x_ptr + offsets, tl.maximum(x, 0.0), mask=mask)  # BUG: x_ptr instead of out_ptr


def relu_stores_into_x(x, out):
    n = x.numel()
    relu_kernel_stores_into_x[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_flipped_condition(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x < 0, x, 0.0), mask=mask)  # BUG: keeps the negatives


def relu_flipped_condition(x, out):
    n = x.numel()
    relu_kernel_flipped_condition[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [relu, relu_where]
WRONG = [
    (relu_no_store_mask, "out_of_bounds_write"),
    (relu_missing_kernel_argument, "exception"),
    (relu_stores_into_x, ("input_modified", "not_written")),
    (relu_flipped_condition, "wrong_values"),
]
