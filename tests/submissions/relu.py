"""Submissions for `relu(x, out)`: out = max(x, 0), as a learner would write them, right and wrong."""

import torch
import triton
import triton.language as tl

from utils.setup import interpreting

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
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0), mask=mask)


def relu_where(x, out):
    # tl.where with an integer 0: Triton casts it to the tile's float32.
    n = x.numel()
    relu_kernel_where[(triton.cdiv(n, 256),)](x, out, n, BLOCK_SIZE=256)


@triton.jit
def relu_kernel_product(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # -0.0 for a negative x, equal to 0.0; but NaN for x = -inf (-inf * 0), where a ReLU gives 0.0
    tl.store(out_ptr + offsets, x * (x > 0), mask=mask)


def relu_product_fitted_block(x, out):
    n = x.numel()
    block = min(triton.next_power_of_2(n), 2048)
    relu_kernel_product[(triton.cdiv(n, block),)](x, out, n, BLOCK_SIZE=block)


@triton.jit
def relu_kernel_persistent(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed grid: each program strides over the tiles pid, pid + num_programs, ...
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu_persistent(x, out):
    n = x.numel()
    relu_kernel_persistent[(min(16, triton.cdiv(n, 512)),)](x, out, n, BLOCK_SIZE=512)


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


@triton.jit
def relu_kernel_mask_le(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets <= n_elements  # BUG: <= lets offset n through, one element past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu_mask_le(x, out):
    n = x.numel()
    relu_kernel_mask_le[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def relu_missing_kernel_argument(x, out):
    # BUG: forgets n_elements; the launch raises TypeError before any program runs.
    relu_kernel[(triton.cdiv(x.numel(), BLOCK_SIZE),)](x, out, BLOCK_SIZE=BLOCK_SIZE)


def relu_grid_floor_div(x, out):
    n = x.numel()
    relu_kernel[(n // 256,)](x, out, n, BLOCK_SIZE=256)  # BUG: rounds down, the partial last tile is lost


def relu_grid_of_one(x, out):
    n = x.numel()
    relu_kernel[(1,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: one program: only the first tile


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


@triton.jit
def relu_kernel_minimum(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.minimum(x, 0.0), mask=mask)  # BUG: minimum, not maximum


def relu_minimum(x, out):
    n = x.numel()
    relu_kernel_minimum[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_builtin_max(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, max(x, 0.0), mask=mask)  # BUG: Python's max, not tl.maximum


def relu_builtin_max(x, out):
    # Wrong in the interpreter only (all zeros there); the GPU compiler maps max() to tl.maximum.
    n = x.numel()
    relu_kernel_builtin_max[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_builtin_max_zero_first(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, max(0.0, x), mask=mask)  # BUG: Python's max, not tl.maximum


def relu_builtin_max_zero_first(x, out):
    # In the interpreter out = x: the same effect as storing x unchanged, so both are named.
    n = x.numel()
    relu_kernel_builtin_max_zero_first[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_not_applied(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x, mask=mask)  # BUG: copied from the copy kernel, no tl.maximum


def relu_not_applied(x, out):
    n = x.numel()
    relu_kernel_not_applied[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_half(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float16)  # BUG: rounds every value to float16
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu_half(x, out):
    n = x.numel()
    relu_kernel_half[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def relu_kernel_bfloat16(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.bfloat16)  # BUG: rounds every value to bfloat16
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu_bfloat16(x, out):
    # In the interpreter tl.maximum on bfloat16 also keeps the negatives (it compares raw bits).
    n = x.numel()
    relu_kernel_bfloat16[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def relu_host_torch(x, out):
    # BUG: computes the answer with torch on the host and rebinds the name: out is never written.
    out = torch.relu(x)  # noqa: F841


def relu_not_launched(x, out):
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    relu_kernel[grid]  # BUG: the launch is never called: no (x, out, n, ...)


@triton.jit
def relu_kernel_abs_trick(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, (x + tl.abs(x)) * 0.5, mask=mask)  # BUG: x + |x| overflows past 1.7e38


def relu_abs_trick(x, out):
    n = x.numel()
    relu_kernel_abs_trick[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [relu, relu_where, relu_persistent]
WRONG = [
    (relu_no_store_mask, "out_of_bounds_write"),
    (relu_mask_le, "out_of_bounds_write"),
    (relu_missing_kernel_argument, "exception"),
    (relu_grid_floor_div, "tail_not_processed"),
    (relu_grid_of_one, "first_tile_only"),  # its sentence names both causes
    (relu_stores_into_x, ("input_modified", "not_written")),
    (relu_flipped_condition, "min_instead_of_max"),
    (relu_minimum, "min_instead_of_max"),
    (relu_half, "float16_round_trip"),
    (relu_bfloat16, "float16_round_trip"),
    (relu_host_torch, "not_written"),
    (relu_not_launched, "not_written"),
    (relu_abs_trick, "wrong_values"),
    (relu_product_fitted_block, "produced_nan"),  # only x = -inf shows it
]
if interpreting():  # Python's max() on a tile is wrong only in the interpreter
    WRONG += [
        (relu_builtin_max, "builtin_max"),
        (relu_builtin_max_zero_first, ("builtin_max", "relu_not_applied")),  # the same effect
        (relu_not_applied, ("relu_not_applied", "builtin_max")),  # the same effect
    ]
else:  # the GPU compiler maps max() to tl.maximum
    CORRECT += [relu_builtin_max, relu_builtin_max_zero_first]
    WRONG += [(relu_not_applied, "relu_not_applied")]
