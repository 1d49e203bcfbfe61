"""One program's lanes (`lane_diagram`) and how a grid cuts [0, n) into tiles (`tile_diagram`)."""

from __future__ import annotations

import torch

from utils.diagrams.style import (
    BOX_H,
    BOX_W,
    EDGE_COLOR,
    ELLIPSIS,
    GAP,
    INCH_PER_UNIT,
    LABEL_FONT,
    MASKED_TEXT_COLOR,
    MAX_FIG_WIDTH,
    MONO_CHAR_W,
    VALUE_FONT,
    cdiv,
    check_block_size,
    draw_box,
    draw_notes,
    elided,
    fmt,
    new_axes,
    program_color,
)


def lane_columns(block_size: int, n_valid: int, max_lanes: int) -> list:
    """The lanes to draw, None marking skipped lanes: at most max_lanes lanes and max_lanes + 1 columns.

    A long tile keeps its first and last lanes and, when the mask boundary (lane n_valid) falls inside,
    the lanes around it too: that is where the mask changes from True to False.
    """
    if block_size <= max_lanes:
        return list(range(block_size))
    if 0 < n_valid < block_size:
        k = (max_lanes - 1) // 3  # three groups, two ellipses
        starts = [0, n_valid - k // 2, block_size - k]
    else:
        k = max_lanes // 2  # two groups, one ellipsis
        starts = [0, block_size - k]
    lanes = sorted({lane for s in starts for lane in range(max(s, 0), min(s + k, block_size))})
    columns: list[int | None] = []
    for previous, lane in zip([None, *lanes], lanes):
        if previous is not None and lane != previous + 1:
            columns.append(None)  # an ellipsis between two groups
        columns.append(lane)
    return columns


def lane_diagram(x, block_size, pid=0, other=0.0, *, transform=None, ax=None, title=None, max_lanes=16):
    """One program's tile as `tl.load(x_ptr + offsets, mask=offsets < n, other=other)` sees it, lane by lane.

    x is the real 1-D input (any device), so n = x.numel(); masked lanes are drawn hatched and show `other`.
    transform, e.g. ("x * x", lambda v: v * v), adds a row with each lane's loaded value transformed, as
    in a reduce-of-transform: masked lanes show the transform of `other`, which the reduction adds in.
    """
    x = torch.as_tensor(x)
    if x.dim() != 1:
        raise ValueError(f"x must be a 1-D tensor (one element per offset), got shape {tuple(x.shape)}")
    check_block_size(block_size)
    if max_lanes < 4:
        raise ValueError(f"max_lanes must be at least 4, got {max_lanes}")
    n = x.numel()
    grid = cdiv(n, block_size)
    if not 0 <= pid < grid:
        raise ValueError(
            f"pid must be in range [0, {grid}): n={n} and BLOCK_SIZE={block_size} give "
            f"grid = cdiv(n, BLOCK_SIZE) = {grid} programs, got pid={pid}"
        )
    n_valid = min(n - pid * block_size, block_size)  # lanes 0..n_valid-1 are in bounds
    columns = lane_columns(block_size, n_valid, max_lanes)
    in_bounds = [pid * block_size + lane for lane in columns if lane is not None and lane < n_valid]
    # Only the drawn elements leave the GPU.
    index = torch.tensor(in_bounds, dtype=torch.long, device=x.device)
    loaded = dict(zip(in_bounds, x.detach()[index].cpu().tolist(), strict=True))

    def per_lane(text_of):  # one row's texts, None in the ellipsis columns
        return [None if lane is None else text_of(lane, pid * block_size + lane) for lane in columns]

    rows = {
        ("lane", "tl.arange(0, BLOCK_SIZE)"): per_lane(lambda lane, offset: str(lane)),
        ("offset", f"{pid} * {block_size} + lane"): per_lane(lambda lane, offset: str(offset)),
        ("mask", f"offset < {n}"): per_lane(lambda lane, offset: str(offset < n)),
        ("value", f"tl.load(..., other={other!r})"): per_lane(
            lambda lane, offset: fmt(loaded[offset] if offset < n else other)
        ),
    }
    if transform is not None:
        code, fn = transform
        rows["transformed", code] = per_lane(
            lambda lane, offset: fmt(fn(loaded[offset] if offset < n else other))
        )
    notes = []
    if n_valid < block_size:
        notes += [
            f"hatched: masked lanes (offset ≥ n = {n}) read no memory;",
            f"tl.load gives them other={other!r}",
        ]
    if None in columns:
        notes.append(
            f"{ELLIPSIS} stands for lanes not drawn ({len(columns) - columns.count(None)} of "
            f"{block_size} shown)"
        )
    label_w, step, line_h = 3.4, BOX_W + GAP, 0.42
    caption_h = line_h * len(notes) + 0.2
    height = caption_h + len(rows) * (BOX_H + GAP)
    fig, ax = new_axes(
        ax,
        label_w + len(columns) * step,
        height,
        title or f"program pid={pid} of {grid}, BLOCK_SIZE={block_size}, n={n}",
        notes,
    )
    for r, ((name, code), texts) in enumerate(rows.items()):
        y = height - (r + 1) * (BOX_H + GAP)
        ax.text(label_w - 0.2, y + BOX_H * 0.62, name, ha="right", va="center", weight="bold", **LABEL_FONT)
        ax.text(
            label_w - 0.2,
            y + BOX_H * 0.22,
            code,
            ha="right",
            va="center",
            color=MASKED_TEXT_COLOR,
            **{**VALUE_FONT, "size": 8},
        )
        # One font size per row, so that its numbers line up; smaller when a long text would crowd a box.
        longest = max(len(text) for text in texts if text is not None)
        size = max(8.0, VALUE_FONT["size"] - 0.75 * max(0, longest - 4))
        for c, (lane, text) in enumerate(zip(columns, texts, strict=True)):
            x0 = label_w + c * step
            if lane is None:
                ax.text(
                    x0 + BOX_W / 2,
                    y + BOX_H / 2,
                    ELLIPSIS,
                    ha="center",
                    va="center",
                    gid="ellipsis",
                    **LABEL_FONT,
                )
            else:  # out of bounds: every row but the lane index is drawn masked
                draw_box(
                    ax,
                    x0,
                    y,
                    text,
                    color=program_color(pid),
                    masked=lane >= n_valid and name != "lane",
                    gid=name,
                    size=size,
                )
    draw_notes(ax, notes, (label_w + len(columns) * step) / 2, caption_h, line_h)
    return fig


def tile_diagram(n, block_size, *, ax=None, title=None, max_programs=12):
    """[0, n) cut into one tile of BLOCK_SIZE elements per program; the last tile's part past n is masked."""
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"n must be a positive int (the number of elements), got {n!r}")
    check_block_size(block_size)
    if max_programs < 2:
        raise ValueError(f"max_programs must be at least 2, got {max_programs}")
    grid = cdiv(n, block_size)
    columns = elided(grid, max_programs - 1, 1)
    # Tiles as wide as the figure allows (up to 2.4 units); an index range that does not fit on one line
    # is split after its comma, and the tile widened only if even that does not fit.
    tile_w = min(2.4, max(1.5, MAX_FIG_WIDTH / INCH_PER_UNIT / len(columns) - 2 * GAP))
    longest = f"[{(grid - 1) * block_size}, {grid * block_size})"
    split = len(longest) * MONO_CHAR_W > tile_w - 0.1
    if split:
        tile_w = max(tile_w, MONO_CHAR_W * (len(longest) // 2 + 2))

    def range_text(a, b):
        return f"[{a},\n {b})" if split else f"[{a}, {b})"

    range_lines = 2 if split else 1
    masked_lines = 0 if n % block_size == 0 else 1 if split else 2  # "2 masked" and, if short, "[10, 12)"
    line_h, bar_h = 0.3, 1.0
    bar_y = 0.25 + line_h * (range_lines + masked_lines)
    height = bar_y + bar_h + 0.7
    programs = f"{grid} program" + "s" * (grid != 1)
    title = title or f"n={n}, BLOCK_SIZE={block_size}: grid = cdiv(n, BLOCK_SIZE) = {programs}"
    fig, ax = new_axes(ax, len(columns) * (tile_w + 2 * GAP), height, title)
    for c, pid in enumerate(columns):
        x0 = GAP + c * (tile_w + 2 * GAP)
        if pid is None:
            ax.text(
                x0 + tile_w / 2,
                bar_y + bar_h / 2,
                ELLIPSIS,
                ha="center",
                va="center",
                gid="ellipsis",
                **{**LABEL_FONT, "size": 16},
            )
            continue
        start, end = pid * block_size, min((pid + 1) * block_size, n)
        tail = (pid + 1) * block_size - end
        # True to scale, except that a sliver (1 element of 1024) stays visible.
        valid_w = tile_w if not tail else min(max(tile_w * (end - start) / block_size, 0.1), tile_w - 0.1)
        draw_box(ax, x0, bar_y, "", color=program_color(pid), w=valid_w, h=bar_h)
        below = bar_y - 0.1
        label = {"ha": "center", "va": "top", "linespacing": 1.1, **VALUE_FONT, "size": 9}
        ax.text(
            x0 + tile_w / 2,
            height - 0.35,
            f"pid {pid}",
            ha="center",
            va="center",
            gid="pid",
            weight="bold",
            **LABEL_FONT,
        )
        ax.text(x0 + tile_w / 2, below, range_text(start, end), gid="range", **label)
        if tail:
            draw_box(
                ax,
                x0 + valid_w,
                bar_y,
                "masked" if tile_w - valid_w >= 1.0 else "",
                w=tile_w - valid_w,
                h=bar_h,
                masked=True,
                size=9,
                gid="masked",
            )
            text = f"{tail} masked" if split else f"{tail} masked\n{range_text(end, end + tail)}"
            ax.text(
                x0 + tile_w / 2,
                below - line_h * range_lines,
                text,
                color=MASKED_TEXT_COLOR,
                gid="masked-range",
                **label,
            )
        if block_size <= 16:  # small tiles: show the individual elements
            for i in range(1, block_size):
                ax.plot(
                    [x0 + tile_w * i / block_size] * 2,
                    [bar_y, bar_y + bar_h],
                    color=EDGE_COLOR,
                    linewidth=0.4,
                    alpha=0.5,
                )
    return fig
