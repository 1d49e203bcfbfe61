"""Submissions for `sum_eager_key(x, out, n, partials_block)`: the key of a cache of compiled
sum_one_launch kernels. Right ones say the same thing in other words; each wrong one leaves out, or adds,
one thing the JIT does or does not specialise on."""

import random


def by_address(x, out, n, partials_block):
    return (
        x.dtype,
        x.data_ptr() % 16 == 0,
        out.dtype,
        out.data_ptr() % 16 == 0,
        n == 1,
        n % 16 == 0,
        partials_block,
    )


def by_offset_in_bytes(x, out, n, partials_block):
    """Alignment from the storage offset in bytes: right wherever torch allocated the storage (16-byte
    aligned at least)."""
    aligned = [t.storage_offset() * t.element_size() % 16 == 0 for t in (x, out)]
    return (
        str(x.dtype),
        str(out.dtype),
        *aligned,
        "one" if n == 1 else "16" if n % 16 == 0 else "other",
        partials_block,
    )


def as_a_string(x, out, n, partials_block):
    aligned = f"{x.data_ptr() & 15 == 0}/{out.data_ptr() & 15 == 0}"
    return f"{x.dtype}/{out.dtype}/{aligned}/{n == 1}/{n & 15 == 0}/{partials_block}"


def no_alignment(x, out, n, partials_block):
    return (x.dtype, out.dtype, n == 1, n % 16 == 0, partials_block)


def alignment_of_x_only(x, out, n, partials_block):
    return (x.dtype, x.data_ptr() % 16 == 0, out.dtype, n == 1, n % 16 == 0, partials_block)


def offset_in_elements(x, out, n, partials_block):
    """Counts elements, not bytes: x[4:] of float32 (16 bytes on) looks misaligned."""
    return (
        x.dtype,
        x.storage_offset() % 16 == 0,
        out.dtype,
        out.storage_offset() % 16 == 0,
        n == 1,
        n % 16 == 0,
        partials_block,
    )


def address_remainder(x, out, n, partials_block):
    """The remainder, not whether it is 0: x[1:] and x[2:] get two keys for one kernel."""
    return (x.dtype, x.data_ptr() % 16, out.dtype, out.data_ptr() % 16, n == 1, n % 16 == 0, partials_block)


def n_is_special(x, out, n, partials_block):
    """One value for two things the JIT tells apart: n = 1 and n = 16 share a key."""
    aligned = (x.data_ptr() % 16 == 0, out.data_ptr() % 16 == 0)
    return (x.dtype, out.dtype, *aligned, n == 1 or n % 16 == 0, partials_block)


def the_address_itself(x, out, n, partials_block):
    return (x.dtype, x.data_ptr(), out.dtype, out.data_ptr(), n == 1, n % 16 == 0, partials_block)


def n_itself(x, out, n, partials_block):
    return (x.dtype, x.data_ptr() % 16 == 0, out.dtype, out.data_ptr() % 16 == 0, n, partials_block)


def remainder_of_n(x, out, n, partials_block):
    return (
        x.dtype,
        x.data_ptr() % 16 == 0,
        out.dtype,
        out.data_ptr() % 16 == 0,
        n == 1,
        n % 16,
        partials_block,
    )


def no_n_is_one(x, out, n, partials_block):
    return (x.dtype, x.data_ptr() % 16 == 0, out.dtype, out.data_ptr() % 16 == 0, n % 16 == 0, partials_block)


def no_partials_block(x, out, n, partials_block):
    return (x.dtype, x.data_ptr() % 16 == 0, out.dtype, out.data_ptr() % 16 == 0, n == 1, n % 16 == 0)


def element_size_for_dtype(x, out, n, partials_block):
    return (
        x.element_size(),
        x.data_ptr() % 16 == 0,
        out.element_size(),
        out.data_ptr() % 16 == 0,
        n == 1,
        n % 16 == 0,
        partials_block,
    )


def the_values(x, out, n, partials_block):
    return (*by_address(x, out, n, partials_block), float(x.sum()))


def random_salt(x, out, n, partials_block):
    return (*by_address(x, out, n, partials_block), random.random())


def a_list(x, out, n, partials_block):
    return [x.dtype, x.data_ptr() % 16 == 0, n % 16 == 0]


def the_tensor_itself(x, out, n, partials_block):
    return (x, n == 1, n % 16 == 0, partials_block)


def reads_a_shape_it_has_not(x, out, n, partials_block):
    return (x.shape[1], n)


def not_attempted(x, out, n, partials_block):
    raise NotImplementedError


def program_count(x, out, n, partials_block):
    """The grid's size, from n, where the kernel is compiled for partials_block: too fine a key."""
    aligned = [t.data_ptr() % 16 == 0 for t in (x, out)]
    return (x.dtype, out.dtype, *aligned, n == 1, n % 16 == 0, partials_block, -(-n // 4096))


def n_multiple_of_8(x, out, n, partials_block):
    """n's divisibility tested by 8 where the JIT tests 16 (session 29's unseen round): 8,184 and 8,192 get
    one key, and two kernels."""
    aligned = [t.data_ptr() % 16 == 0 for t in (x, out)]
    return (x.dtype, out.dtype, *aligned, n == 1, n % 8 == 0, partials_block)


CORRECT = [by_address, by_offset_in_bytes, as_a_string]
MERGES, SPLITS = "key_merges_what_the_jit_compiles_apart", "key_splits_what_the_jit_compiles_once"
WRONG = [  # (submission, the codes it must get, a phrase its report must hold)
    (no_alignment, [MERGES], "x's address: a multiple of 16 bytes, then 4 bytes past one"),
    (alignment_of_x_only, [MERGES], "out's address"),
    # x[4:] keyed apart from x, and with x[1:]: too fine, and unsafe
    (offset_in_elements, [MERGES, SPLITS], "16 bytes past its buffer's start (x[4:]), then 4 bytes (x[1:])"),
    (the_address_itself, [SPLITS], "new tensors of the same dtypes"),
    (address_remainder, [SPLITS], "then 8 bytes past one"),
    (n_is_special, [MERGES], "n: 1, then 16"),
    (n_itself, [SPLITS], "an entry per size"),
    (remainder_of_n, [SPLITS], "n % 16 itself"),
    (no_n_is_one, [MERGES], "n: 1, then 3"),
    (no_partials_block, [MERGES], "partials_block (a constexpr): 1, then 2"),
    (element_size_for_dtype, [MERGES], "float16, then bfloat16"),
    (the_values, [SPLITS], "new values written into the same x"),
    (random_salt, [SPLITS], "the same arguments twice"),
    (a_list, ["unhashable_key"], "in a tuple"),
    (the_tensor_itself, [SPLITS], "new tensors of the same dtypes"),
    (reads_a_shape_it_has_not, ["exception"], "IndexError"),
    (program_count, [SPLITS], "an entry per count"),
    (n_multiple_of_8, [MERGES], "8184 (a multiple of 8 only)"),
]
