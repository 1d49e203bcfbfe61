"""Submissions for `softmax_split(x, out)`: softmax's contract, each row split into chunks of columns, one
program per (row, chunk), in two launches: each program reduces its chunk to a (max, sum) pair, then each
program combines its row's pairs into (M, S) and writes its chunk as exp(x - M) / S. The wrong ones are
these kernels with one mistake each, chosen by the constexpr MISTAKE."""

import torch
import triton
import triton.language as tl


@triton.jit
def chunk_pair_kernel(
    x_ptr,
    max_ptr,
    sum_ptr,
    n_cols,
    chunk_cols,
    n_chunks,
    sx_row,
    sx_col,
    BLOCK: tl.constexpr,
    MISTAKE: tl.constexpr,
):
    # Program (row, chunk): a running max m and a sum s rescaled as m grows, over its chunk's tiles
    row, chunk = tl.program_id(0), tl.program_id(1)
    start = chunk * chunk_cols
    if MISTAKE == "overlap":  # each chunk also sums the next chunk's first column
        end = tl.minimum(start + chunk_cols + 1, n_cols)
    elif MISTAKE == "skip":  # each chunk leaves out its last column
        end = tl.minimum(start + chunk_cols - 1, n_cols)
    else:
        end = tl.minimum(start + chunk_cols, n_cols)
    other = 0.0 if MISTAKE == "other=0.0" else float("-inf")
    m = float("-inf")
    s = 0.0
    for tile in range(start, end, BLOCK):
        cols = tile + tl.arange(0, BLOCK)
        row_start = 0 if MISTAKE == "no row offset" else row * sx_row
        x = tl.load(x_ptr + row_start + cols * sx_col, mask=cols < end, other=other).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        if MISTAKE == "unguarded":
            shift = m_new
        else:
            shift = tl.where(m_new == float("-inf"), 0.0, m_new)  # only -inf so far: shift by 0
        s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift), axis=0)
        m = m_new
    tl.store(max_ptr + row * n_chunks + chunk, m)
    tl.store(sum_ptr + row * n_chunks + chunk, s)


@triton.jit
def chunk_normalise_kernel(
    x_ptr,
    out_ptr,
    max_ptr,
    sum_ptr,
    n_cols,
    chunk_cols,
    n_chunks,
    sx_row,
    sx_col,
    so_row,
    so_col,
    BLOCK: tl.constexpr,
    PAIRS: tl.constexpr,
    MISTAKE: tl.constexpr,
):
    # Program (row, chunk): the row's pairs combined into (M, S), then its chunk written
    row, chunk = tl.program_id(0), tl.program_id(1)
    j = tl.arange(0, PAIRS)
    m_j = tl.load(max_ptr + row * n_chunks + j, mask=j < n_chunks, other=float("-inf"))
    s_j = tl.load(sum_ptr + row * n_chunks + j, mask=j < n_chunks, other=0.0)
    if MISTAKE == "alone":  # this chunk's own pair, not the row's
        m_row = tl.load(max_ptr + row * n_chunks + chunk)
        total = tl.load(sum_ptr + row * n_chunks + chunk)
    else:
        m_row = tl.max(m_j, axis=0)
        if MISTAKE == "not rescaled":
            total = tl.sum(s_j, axis=0)
        else:
            weights = tl.where(m_j == float("-inf"), 0.0, tl.exp(m_j - m_row))  # a pair (-inf, 0) adds 0
            total = tl.sum(s_j * weights, axis=0)
    shift = tl.where(m_row == float("-inf"), 0.0, m_row)
    scale = tl.where(total > 0, 1.0 / total, 0.0)  # a row of -inf: zeros, the contract
    start = chunk * chunk_cols
    end = tl.minimum(start + chunk_cols - (1 if MISTAKE == "skip" else 0), n_cols)
    for tile in range(start, end, BLOCK):
        cols = tile + tl.arange(0, BLOCK)
        mask = cols < end
        row_start = 0 if MISTAKE == "no row offset" else row * sx_row
        x = tl.load(x_ptr + row_start + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)
        p = tl.exp(x - shift) if MISTAKE == "no division" else tl.exp(x - shift) * scale
        # "store past chunk": the store's mask lets the last tile write zeros into the next chunk's first
        # columns; run in order, the next chunk's program writes over them, so only another order shows it
        stored = cols < n_cols if MISTAKE == "store past chunk" else mask
        tl.store(out_ptr + row * so_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=stored)


def _split(mistake="", chunk_cols=None, chunks=None, block=256, n_cols_as_stride=False, pairs=None):
    """A two-launch split softmax; chunks of `chunk_cols` columns, or the row cut into `chunks` parts."""

    def launch(x, out, CHUNK=None):  # CHUNK, where the call gives it, is the chunks' width
        n_rows, n_cols = x.shape
        width = CHUNK or chunk_cols or triton.cdiv(n_cols, chunks)
        n_chunks = triton.cdiv(n_cols, width)
        tile = min(block, triton.next_power_of_2(width))  # a tile no wider than a chunk
        maxima = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
        sums = torch.empty_like(maxima)
        x_strides = (n_cols, 1) if n_cols_as_stride else x.stride()  # the wrong one: a contiguous row
        strides = (n_cols, width, n_chunks, *x_strides)
        chunk_pair_kernel[(n_rows, n_chunks)](x, maxima, sums, *strides, BLOCK=tile, MISTAKE=mistake)
        lanes = pairs or triton.next_power_of_2(
            n_chunks
        )  # pairs: a fixed number, right up to that many chunks
        chunk_normalise_kernel[(n_rows, n_chunks)](
            x, out, maxima, sums, *strides, *out.stride(), BLOCK=tile, PAIRS=lanes, MISTAKE=mistake
        )

    what = mistake.replace(" ", "_").replace("=", "_").replace(".", "") if mistake else None
    shape = f"chunks_of_{chunk_cols}" if chunk_cols else f"{chunks}_chunks"
    launch.__name__ = "softmax_split_" + (what or shape) + ("_n_cols_as_stride" if n_cols_as_stride else "")
    launch.__name__ += f"_{pairs}_pairs" if pairs else ""
    return launch


CORRECT = [_split(chunk_cols=1024), _split(chunk_cols=4096, block=1024), _split(chunks=3, block=128)]

WRONG = [
    (_split("not rescaled", chunk_cols=1024), "split_sum_not_rescaled"),
    (_split("alone", chunk_cols=1024), "chunk_normalised_alone"),
    (_split("unguarded", chunk_cols=1024), "neg_inf_chunk"),
    (_split("other=0.0", chunk_cols=1024), "masked_lanes_in_sum"),
    (_split("no row offset", chunk_cols=1024), "missing_row_offset"),
    (_split("no division", chunk_cols=1024), "not_normalised"),
    (_split(chunk_cols=1024, n_cols_as_stride=True), "ignores_strides"),
    # every chunk sums one column more or one fewer than it writes: no prediction names it
    (_split("overlap", chunk_cols=1024), "wrong_values"),
    (_split("skip", chunk_cols=1024), "wrong_values"),
    # 8 pairs loaded whatever the chunks: rows of more chunks (CHUNK=512 cuts 6,001 columns into 12) leave
    # chunks out of S; no prediction names it, and no mistake may be named for it
    (_split(chunk_cols=1024, pairs=8), "wrong_values"),
    # right when the programs run in order, as the interpreter runs them: a race on a GPU
    (_split("store past chunk", chunks=3, block=128), "varies_between_runs"),
]


# One launch with 07's ticket: each program stores its chunk's pair and takes a ticket on its row's counter;
# the row's last program (ticket K - 1) merges the K pairs and writes the whole row, then resets the counter.
# Nothing waits, so it runs in the interpreter too. The pairs and the counters live in a workspace kept
# between calls, as a one-launch kernel keeps them.
@triton.jit
def ticket_kernel(
    x_ptr,
    out_ptr,
    pairs_ptr,
    counter_ptr,
    n_cols,
    chunk_cols,
    sx_row,
    sx_col,
    so_row,
    so_col,
    BLOCK: tl.constexpr,
    PAIRS: tl.constexpr,
    MISTAKE: tl.constexpr,
):
    row, chunk, n_chunks = tl.program_id(0), tl.program_id(1), tl.num_programs(1)
    x_row = x_ptr + row * sx_row
    m = float("-inf")
    s = 0.0
    for tile in range(chunk * chunk_cols, tl.minimum(chunk * chunk_cols + chunk_cols, n_cols), BLOCK):
        cols = tile + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift), axis=0)
        m = m_new
    pair = pairs_ptr + 2 * (row * n_chunks + chunk)
    if MISTAKE == "stale pair":  # the ticket is taken before the pair is stored: the last reads it stale
        ticket = tl.atomic_add(counter_ptr + row, 1, sem="acq_rel")
        tl.store(pair, m)
        tl.store(pair + 1, s)
    else:
        tl.store(pair, m)
        tl.store(pair + 1, s)
        ticket = tl.atomic_add(counter_ptr + row, 1, sem="acq_rel")
    if ticket == n_chunks - 1:  # the row's last program: every other pair is published
        j = tl.arange(0, PAIRS)
        m_j = tl.load(pairs_ptr + 2 * (row * n_chunks + j), mask=j < n_chunks, other=float("-inf"))
        s_j = tl.load(pairs_ptr + 2 * (row * n_chunks + j) + 1, mask=j < n_chunks, other=0.0)
        m_row = tl.max(m_j, axis=0)
        shift = tl.where(m_row == float("-inf"), 0.0, m_row)
        total = tl.sum(s_j * tl.exp(m_j - shift), axis=0)
        scale = 1.0 / tl.where(total > 0, total, 1.0)
        for tile in range(0, n_cols, BLOCK):
            cols = tile + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
            p = (tl.exp(x - shift) * scale).to(out_ptr.dtype.element_ty)
            tl.store(out_ptr + row * so_row + cols * so_col, p, mask=cols < n_cols)
        if MISTAKE != "counter never reset":
            tl.store(counter_ptr + row, 0)


def _ticket(mistake="", chunk_cols=1024, block=256):
    """The ticket form, its workspace (pairs, counters) kept per (device, rows, chunks) across calls."""
    workspaces = {}

    def launch(x, out, CHUNK=None):  # CHUNK, where the call gives it, is the chunks' width
        n_rows, n_cols = x.shape
        width = CHUNK or chunk_cols
        n_chunks = triton.cdiv(n_cols, width)
        key = (x.device, n_rows, n_chunks)
        if key not in workspaces:
            workspaces[key] = (
                torch.empty(2 * n_rows * n_chunks, dtype=torch.float32, device=x.device),
                torch.zeros(n_rows, dtype=torch.int32, device=x.device),
            )
        pairs, counters = workspaces[key]
        pairs_block = max(2, triton.next_power_of_2(n_chunks))
        ticket_kernel[(n_rows, n_chunks)](
            x,
            out,
            pairs,
            counters,
            n_cols,
            width,
            *x.stride(),
            *out.stride(),
            BLOCK=min(block, triton.next_power_of_2(width)),
            PAIRS=pairs_block,
            MISTAKE=mistake,
        )

    launch.__name__ = "softmax_split_ticket" + ("_" + mistake.replace(" ", "_") if mistake else "")
    return launch


CORRECT.append(_ticket())
# The counter never reset: the second call on a shape of the same rows and chunks finds every ticket past
# K - 1, so no program writes the row. No prediction names it; the report says that a case right before
# is wrong when run again (utils.checker.second_looks.passed_before), so its result changes from one call
# to the next on the same input.
WRONG.append((_ticket("counter never reset"), "varies_between_runs"))
# The ticket taken before the pair is stored: on a GPU the last program can merge a pair not yet written.
# The interpreter runs each program to its end before the next, so every pair is stored in time: no run
# shows it, and the checker must not name a mistake it did not see.
UNSEEN = [_ticket("stale pair")]
