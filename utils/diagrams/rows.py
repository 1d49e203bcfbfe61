"""A row walked in tiles with `acc` carried across trips (`loop_diagram`), and a 2-D tile of several rows
reduced along axis=1 (`row_tile_diagram`)."""

from __future__ import annotations

import torch

from utils.diagrams.style import (
    BOX_H,
    BOX_W,
    GAP,
    LABEL_FONT,
    MASKED_TEXT_COLOR,
    VALUE_FONT,
    arrow,
    cdiv,
    check_block_size,
    draw_box,
    draw_notes,
    fmt,
    new_axes,
    program_color,
    row_label,
    value_size,
)

MAX_LOOP_LANES = 16  # columns of one tile drawn box by box; more would not fit MAX_FIG_WIDTH


def loop_diagram(row, block_size, *, ax=None, title=None):
    """One program walking one row in tiles of BLOCK_SIZE: each trip round the loop adds a tile into `acc`,
    which stays in registers from trip to trip, written as column addition; then `tl.sum(acc)` once.

    row is the row's values (1-D, at most MAX_LOOP_LANES long tiles); masked lanes of the last tile add 0.0.
    """
    row = torch.as_tensor(row).detach().cpu().double()
    if row.dim() != 1 or row.numel() == 0:
        raise ValueError(f"row must be a non-empty 1-D tensor, got shape {tuple(row.shape)}")
    check_block_size(block_size)
    if block_size > MAX_LOOP_LANES:
        raise ValueError(f"block_size must be at most {MAX_LOOP_LANES} to draw every lane, got {block_size}")
    n = row.numel()
    trips = cdiv(n, block_size)
    label_w, step = 4.6, BOX_W + GAP
    lines_ = [("acc", "tl.zeros((BLOCK_SIZE,))", [0.0] * block_size, [False] * block_size, "acc")]
    acc = [0.0] * block_size
    for t in range(trips):
        cols = [t * block_size + lane for lane in range(block_size)]
        tile = [row[c].item() if c < n else 0.0 for c in cols]
        acc = [a + v for a, v in zip(acc, tile, strict=True)]
        lines_.append(
            (f"+ tile, trip {t}", f"cols {cols[0]}..{cols[-1]}", tile, [c >= n for c in cols], "tile")
        )
        lines_.append(("= acc", "acc += tile", list(acc), [False] * block_size, "acc"))
    notes = [
        "one program, one row: acc carries each lane's running sum from trip to trip (in registers)",
        f"after the loop, one tl.sum(acc, axis=0) = {fmt(sum(acc))} is stored to out[row]",
    ]
    if n % block_size:
        notes.insert(1, f"hatched: masked lanes (col ≥ n_cols = {n}) load other=0.0")
    line_h = 0.42
    caption_h = line_h * len(notes) + 0.2
    header_h = 0.5
    height = header_h + len(lines_) * (BOX_H + GAP) + caption_h
    width = label_w + block_size * step
    trip_word = "trip" if trips == 1 else "trips"
    title = title or f"one program, one row of {n}, tiles of {block_size}: {trips} {trip_word} of its loop"
    fig, ax = new_axes(ax, width, height, title, notes)
    for lane in range(block_size):
        ax.text(
            label_w + lane * step + BOX_W / 2,
            height - header_h / 2,
            f"lane {lane}",
            ha="center",
            va="center",
            gid="lane",
            color=MASKED_TEXT_COLOR,
            **{**LABEL_FONT, "size": 8},
        )
    for r, (name, code, values, masked, gid) in enumerate(lines_):
        y = height - header_h - (r + 1) * (BOX_H + GAP)
        row_label(ax, label_w - 0.2, y, name, code)
        texts_ = [fmt(v) for v in values]
        size = value_size(texts_)
        color = "white" if gid == "acc" else program_color(0)
        for lane, (text, is_masked) in enumerate(zip(texts_, masked, strict=True)):
            draw_box(ax, label_w + lane * step, y, text, color=color, masked=is_masked, gid=gid, size=size)
    draw_notes(ax, notes, width / 2, caption_h, line_h)
    return fig


def row_tile_diagram(x, block_rows, block_size, pid=0, *, ax=None, title=None):
    """Program `pid`'s 2-D tile of a multi-row row sum: BLOCK_ROWS rows x BLOCK_SIZE columns, rows past
    n_rows and columns past n_cols masked, and `tl.sum(acc, axis=1)` turning it into BLOCK_ROWS partials,
    one per row, stored with the row mask.

    x is the real 2-D input (n_rows, n_cols); the tile drawn is the first trip's (columns 0..BLOCK_SIZE-1),
    and each partial is the row's whole sum (after every trip). Both block sizes at most MAX_LOOP_LANES.
    """
    x = torch.as_tensor(x).detach().cpu().double()
    if x.dim() != 2 or x.numel() == 0:
        raise ValueError(f"x must be a non-empty 2-D tensor (rows, columns), got shape {tuple(x.shape)}")
    for name, value in (("block_rows", block_rows), ("block_size", block_size)):
        check_block_size(value)
        if value > MAX_LOOP_LANES:
            raise ValueError(f"{name} must be at most {MAX_LOOP_LANES} to draw every box, got {value}")
    n_rows, n_cols = x.shape
    grid = cdiv(n_rows, block_rows)
    if not 0 <= pid < grid:
        raise ValueError(
            f"pid must be in range [0, {grid}): n_rows={n_rows} and BLOCK_ROWS={block_rows} "
            f"give cdiv(n_rows, BLOCK_ROWS) = {grid} programs, got pid={pid}"
        )
    rows = [pid * block_rows + i for i in range(block_rows)]
    trips = cdiv(n_cols, block_size)
    label_w, step, header_h, line_h, sum_w = 3.6, BOX_W + GAP, 0.5, 0.42, 2.0
    gap_w = 2.4  # room for the axis=1 arrows between the tile and the partials
    notes = [
        f"hatched: masked, rows ≥ n_rows = {n_rows} or columns ≥ n_cols = {n_cols} "
        "(mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols))"
    ]
    if trips > 1:
        notes.append(f"drawn: trip 0 of {trips} (columns 0..{block_size - 1}); partials: after every trip")
    caption_h = line_h * len(notes) + 0.2
    height = header_h + block_rows * (BOX_H + GAP) + caption_h
    width = label_w + block_size * step + gap_w + sum_w + 0.2
    title = title or (
        f"program pid={pid} of {grid}: a tile of BLOCK_ROWS={block_rows} rows x "
        f"BLOCK_SIZE={block_size} columns, reduced along axis=1"
    )
    fig, ax = new_axes(ax, width, height, title, notes)
    x_sum = label_w + block_size * step + gap_w
    for j in range(block_size):
        ax.text(
            label_w + j * step + BOX_W / 2,
            height - header_h / 2,
            f"col {j}",
            ha="center",
            va="center",
            gid="col",
            color=MASKED_TEXT_COLOR,
            **{**LABEL_FONT, "size": 8},
        )
    ax.text(
        x_sum + sum_w / 2,
        height - header_h / 2,
        "tl.sum(acc, axis=1)",
        ha="center",
        va="center",
        gid="axis",
        **{**VALUE_FONT, "size": 8},
    )
    for i, r in enumerate(rows):
        y = height - header_h - (i + 1) * (BOX_H + GAP)
        in_rows = r < n_rows
        row_label(ax, label_w - 0.2, y, f"row {r}", "in bounds" if in_rows else "masked: ≥ n_rows")
        texts_ = [fmt(x[r, j].item()) if in_rows and j < n_cols else "0" for j in range(block_size)]
        size = value_size(texts_)
        for j, text in enumerate(texts_):
            draw_box(
                ax,
                label_w + j * step,
                y,
                text,
                color=program_color(pid),
                masked=not (in_rows and j < n_cols),
                gid="tile",
                size=size,
            )
        style = {} if in_rows else {"color": MASKED_TEXT_COLOR, "linestyle": "--"}
        y_mid = y + BOX_H / 2
        arrow(ax, (label_w + block_size * step + 0.1, y_mid), (x_sum - 0.1, y_mid), gid="edge", **style)
        partial = fmt(x[r].sum().item()) if in_rows else "not stored"
        draw_box(
            ax,
            x_sum,
            y,
            partial,
            color="white",
            masked=not in_rows,
            w=sum_w,
            gid="partial",
            size=value_size([partial]) if in_rows else 8,
        )
    draw_notes(ax, notes, width / 2, caption_h, line_h)
    return fig
