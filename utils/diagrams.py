"""Pictures of a Triton launch drawn from the launch's own parameters: `lane_diagram` shows one program's
lanes (`tl.arange`, offsets, mask, loaded values), `tile_diagram` how the grid `cdiv(n, BLOCK_SIZE)` cuts
[0, n) into one tile per program, `loop_diagram` how one program walks one row in tiles with `acc` carried
from trip to trip, `row_tile_diagram` a 2-D tile of several rows reduced along axis=1,
`reduction_tree_diagram` how `tl.sum` turns one tile into a scalar, and
`combine_diagram` how the programs' partial sums meet in one output through atomic adds. The shared look
(a colour per program, the masked style, fonts, box sizes) is the constants and helpers at the top, for
later diagrams to reuse. Each function returns its Figure already closed to pyplot: a cell ending with the
call shows it once, and no figure stays open.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import FancyArrowPatch, Rectangle

# The shared look. Program `pid` is always PROGRAM_COLORS[pid % 9]: matplotlib's tab10 without its grey
# (grey means "masked"), mixed half-way to white so that black text on it stays readable.
PROGRAM_COLORS = (
    "#8fbbda",
    "#ffbf87",
    "#96d096",
    "#eb9394",
    "#cab3de",
    "#c6aba5",
    "#f1bbe1",
    "#dede91",
    "#8bdfe7",
)
EDGE_COLOR = "#404040"
MASKED_STYLE = {"facecolor": "#f2f2f2", "edgecolor": "#9a9a9a", "hatch": "///", "linestyle": "--"}
MASKED_TEXT_COLOR = "#6a6a6a"
VALUE_FONT: dict[str, Any] = {"family": "DejaVu Sans Mono", "size": 10}  # numbers in boxes, index ranges
LABEL_FONT = {"family": "DejaVu Sans", "size": 10}  # row names, captions, titles
BOX_W, BOX_H, GAP = 1.0, 0.8, 0.12  # data units; on a new figure one unit is INCH_PER_UNIT inches
INCH_PER_UNIT = 0.6
CHAR_W = 0.16  # data units per character of LABEL_FONT text, to size a figure to its title and captions
MONO_CHAR_W = 0.125  # data units per character of VALUE_FONT text at 9 pt
MAX_FIG_WIDTH = 14.0  # inches
ELLIPSIS = "…"


def program_color(pid: int) -> str:
    return PROGRAM_COLORS[pid % len(PROGRAM_COLORS)]


def fmt(value) -> str:
    """Compact text for a value in a box: whole numbers as they are (1016, not 1.02e+03), else 3 digits."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e6 else f"{value:.3g}"


def cdiv(a: int, b: int) -> int:
    """`triton.cdiv` without importing triton: the number of programs that cover a elements, b each."""
    return -(-a // b)


def draw_box(ax, x, y, text, *, color=None, masked=False, w=BOX_W, h=BOX_H, gid=None, **font):
    """A box with (x, y) its lower-left corner and `text` centred in it, in a program's colour or masked."""
    style = MASKED_STYLE if masked else {"facecolor": color, "edgecolor": EDGE_COLOR}
    ax.add_patch(Rectangle((x, y), w, h, linewidth=1, **style))
    if text:
        # A background behind masked text keeps it readable over the hatching.
        bbox = {"facecolor": MASKED_STYLE["facecolor"], "edgecolor": "none", "pad": 1} if masked else None
        ax.text(
            x + w / 2,
            y + h / 2,
            text,
            ha="center",
            va="center",
            gid=gid,
            bbox=bbox,
            color=MASKED_TEXT_COLOR if masked else "black",
            **{**VALUE_FONT, **font},
        )


def new_axes(ax, width, height, title, lines=()):
    """Axes showing data [0, width] x [0, height] centred, without frame. When ax is None: a new figure
    sized to the drawing, widened (drawing centred) so that the title and text `lines` fit."""
    margin = 0.0
    if ax is None:
        margin = max(0.0, CHAR_W * max(len(s) for s in (title, *lines)) - width) / 2
        title_in = 0.5
        fig_w = min(MAX_FIG_WIDTH, (width + 2 * margin) * INCH_PER_UNIT)
        fig_h = height * INCH_PER_UNIT + title_in
        fig, ax = plt.subplots(figsize=(fig_w, fig_h))
        plt.close(fig)  # the caller gets the figure; pyplot keeps no reference, so it is shown only once
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1 - title_in / fig_h)
    ax.set_xlim(-margin, width + margin)
    ax.set_ylim(0, height)
    ax.axis("off")
    ax.set_title(title, **{**LABEL_FONT, "size": 11})
    return ax.figure, ax


def check_block_size(block_size) -> None:
    if (
        isinstance(block_size, bool)
        or not isinstance(block_size, int)
        or block_size <= 0
        or block_size & (block_size - 1)
    ):
        raise ValueError(
            f"block_size must be a positive power of two (tl.arange needs a power-of-two "
            f"length), got {block_size!r}"
        )


def elided(count: int, first: int, last: int) -> list:
    """0..count-1, or the first `first` and last `last` of them with None where the rest are skipped."""
    if count <= first + last + 1:
        return list(range(count))
    return [*range(first), None, *range(count - last, count)]


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
    for i, note in enumerate(notes):
        ax.text(
            (label_w + len(columns) * step) / 2,
            caption_h - 0.1 - (i + 0.5) * line_h,
            note,
            ha="center",
            va="center",
            color=MASKED_TEXT_COLOR,
            gid="note",
            **LABEL_FONT,
        )
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
    for i, note in enumerate(notes):
        ax.text(
            width / 2,
            caption_h - 0.1 - (i + 0.5) * line_h,
            note,
            ha="center",
            va="center",
            color=MASKED_TEXT_COLOR,
            gid="note",
            **LABEL_FONT,
        )
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
    for i, note in enumerate(notes):
        ax.text(
            width / 2,
            caption_h - 0.1 - (i + 0.5) * line_h,
            note,
            ha="center",
            va="center",
            color=MASKED_TEXT_COLOR,
            gid="note",
            **LABEL_FONT,
        )
    return fig


def arrow(ax, start, end, *, gid=None, **style):
    """A thin arrow from start to end (data coordinates) in the edge colour: data flowing between boxes."""
    style = {"arrowstyle": "-|>", "mutation_scale": 9, "color": EDGE_COLOR, "linewidth": 0.9, **style}
    ax.add_patch(FancyArrowPatch(start, end, shrinkA=1, shrinkB=1, gid=gid, **style))


def row_label(ax, x, y, name, code):
    """A row's name in bold and, under it in small grey code font, what computes it; right-aligned at x,
    (x, y) the lower-right corner of a box-high row. The same labels as `lane_diagram`'s rows."""
    ax.text(x, y + BOX_H * 0.62, name, ha="right", va="center", weight="bold", gid="row", **LABEL_FONT)
    ax.text(
        x,
        y + BOX_H * 0.22,
        code,
        ha="right",
        va="center",
        color=MASKED_TEXT_COLOR,
        **{**VALUE_FONT, "size": 8},
    )


def value_size(texts) -> float:
    """One font size for a row of numbers, so that they line up; smaller when a long text would crowd a box.
    The same rule as `lane_diagram`'s rows."""
    return max(8.0, VALUE_FONT["size"] - 0.75 * max(0, max(len(text) for text in texts) - 4))


def is_power_of_two(k) -> bool:
    return not isinstance(k, bool) and isinstance(k, int) and k > 0 and not k & (k - 1)


MAX_TREE_LANES = 16  # more lanes make boxes too narrow for their numbers within MAX_FIG_WIDTH


def reduction_tree_diagram(values, *, num_warps=None, threads_per_warp=32, ax=None, title=None):
    """How `tl.sum` reduces one tile: a balanced tree of pairwise sums, log2(n) steps from n lanes to one.

    values is the tile: n values, n a power of two from 2 to MAX_TREE_LANES. With num_warps, the tile is drawn
    spread over the program's num_warps * threads_per_warp threads as the course's vocabulary has it: a warp
    is threads_per_warp threads, and each thread holds n / (num_warps * threads_per_warp) of the tile's lanes
    (coloured by warp). The first log2(lanes per thread) steps add inside a thread's registers, the next
    log2(threads_per_warp) combine the threads of a warp (register shuffles, `shfl.sync.bfly`), the last
    log2(num_warps) go across warps (shared memory and a barrier). A real warp has 32 threads, more than a
    drawable tile has lanes, so pass a smaller threads_per_warp to draw a toy GPU; the figure says so. The
    drawing gives each thread neighbouring lanes and pairs neighbours; the compiler chooses which lanes a
    thread holds (its layout) and pairs them in another order, with the same shape: log2(n) steps, each
    halving the number of partial sums.
    """
    values = torch.as_tensor(values)
    if values.dim() != 1:
        raise ValueError(f"values must be 1-D (one tile), got shape {tuple(values.shape)}")
    n = values.numel()
    if not is_power_of_two(n) or n < 2:
        raise ValueError(
            f"values must hold a power-of-two number of elements (tl.sum's tree needs a "
            f"power-of-two tile: every step adds pairs), got {n}"
        )
    if n > MAX_TREE_LANES:
        raise ValueError(
            f"at most {MAX_TREE_LANES} lanes fit the drawing, got {n}: draw a slice such as "
            f"x[:{MAX_TREE_LANES}]"
        )
    if num_warps is not None:
        if not is_power_of_two(num_warps) or not is_power_of_two(threads_per_warp):
            raise ValueError(
                f"num_warps and threads_per_warp must be powers of two, got {num_warps!r} and "
                f"{threads_per_warp!r}"
            )
        if num_warps * threads_per_warp > n:
            threads = num_warps * threads_per_warp
            raise ValueError(
                f"{num_warps} warps of {threads_per_warp} threads are {threads} threads, more than the {n} "
                f"lanes drawn (with fewer lanes than threads, threads hold copies): draw a toy GPU with a "
                f"smaller threads_per_warp, at most {n // num_warps}"
            )
    steps = n.bit_length() - 1
    levels = [values.detach().cpu().tolist()]  # levels[k][j]: the sum of lanes j * 2**k ..< (j + 1) * 2**k
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([below[2 * j] + below[2 * j + 1] for j in range(len(below) // 2)])
    threads = num_warps * threads_per_warp if num_warps else 1
    lanes_per_thread = n // threads
    lanes_per_warp = lanes_per_thread * threads_per_warp if num_warps else n
    thread_steps = lanes_per_thread.bit_length() - 1  # steps 1..thread_steps add inside one thread
    warp_steps = lanes_per_warp.bit_length() - 1  # steps up to warp_steps stay inside one warp

    def color(k, j):  # a warp's colour while the partial sum stays in that warp; white once warps combine
        if num_warps is None:
            return program_color(0)
        return program_color(j * 2**k // lanes_per_warp) if k <= warp_steps else "white"

    step, rise, line_h = BOX_W + GAP, 0.6, 0.42  # rise: the gap between levels, for the arrows
    label_w = 2.5
    scope_w = 2.9 if num_warps else 0.0
    top_h = 0.95 if num_warps else 0.15  # a row of warp names over a row of thread names
    notes = ["a fixed tree: every run adds the same pairs in the same order"]
    if num_warps and threads_per_warp != 32:
        notes.append(
            f"a toy GPU: warps of {threads_per_warp} threads (a real warp has 32); "
            f"each thread holds {lanes_per_thread} lane" + "s" * (lanes_per_thread != 1)
        )
    caption_h = line_h * len(notes) + 0.35
    height = top_h + (steps + 1) * BOX_H + steps * rise + caption_h
    width = label_w + n * step + scope_w
    article = "an" if n == 8 else "a"
    title = title or f"tl.sum of {article} {n}-lane tile: log2({n}) = {steps} step" + "s" * (steps != 1)
    fig, ax = new_axes(ax, width, height, title, notes)

    def y_of(k):  # lower edge of level k's boxes
        return height - top_h - BOX_H - k * (BOX_H + rise)

    def x_of(k, j):  # centre of level k's box j: under the middle of the lanes it sums
        return label_w + (j * 2**k + (2**k - 1) / 2) * step + BOX_W / 2

    for k, level in enumerate(levels):
        y = y_of(k)
        if k == 0:
            row_label(ax, label_w - 0.2, y, "lanes", f"{n} values")
        else:
            sums = f"{len(level)} sum" + "s" * (len(level) > 1)
            row_label(ax, label_w - 0.2, y, f"step {k}", f"{sums} of {2**k}")
        texts = [fmt(v) for v in level]
        size = value_size(texts)
        for j, text in enumerate(texts):
            draw_box(
                ax,
                x_of(k, j) - BOX_W / 2,
                y,
                text,
                color=color(k, j),
                gid="root" if k == steps else "lane" if k == 0 else "sum",
                size=size,
            )
            if k:
                for child in (2 * j, 2 * j + 1):
                    arrow(ax, (x_of(k - 1, child), y_of(k - 1)), (x_of(k, j), y + BOX_H), gid="edge")
    ax.patches[-3].set_linewidth(2)  # the root's box (its two arrows follow it): the scalar tl.sum returns
    if num_warps:

        def x_mid(first_lane, lanes):  # centre above lanes first_lane ..< first_lane + lanes
            return label_w + (first_lane + lanes / 2) * step - GAP / 2

        warp_y, thread_y = height - 0.25, height - 0.7
        for w in range(num_warps):
            ax.text(
                x_mid(w * lanes_per_warp, lanes_per_warp),
                warp_y,
                f"warp {w}" if lanes_per_warp > 1 else f"w{w}",
                ha="center",
                va="center",
                weight="bold",
                gid="warp",
                **LABEL_FONT,
            )
        for t in range(threads):
            ax.text(
                x_mid(t * lanes_per_thread, lanes_per_thread),
                thread_y,
                f"thread {t}" if lanes_per_thread > 1 else f"t{t}",
                ha="center",
                va="center",
                color=MASKED_TEXT_COLOR,
                gid="thread",
                **{**LABEL_FONT, "size": 9},
            )
        scopes = [
            (1, thread_steps, "within a thread", "adds in the thread's\nown registers"),
            (thread_steps + 1, warp_steps, "within a warp", "register shuffles\n(shfl.sync.bfly)"),
            (warp_steps + 1, steps, "across warps", "shared memory\n+ barrier"),
        ]
        x_bracket = label_w + n * step + 0.2
        for first, last, name, detail in scopes:
            if first > last:
                continue
            top, bottom = y_of(first) + BOX_H, y_of(last)
            ax.plot(
                [x_bracket - 0.15, x_bracket, x_bracket, x_bracket - 0.15],
                [top, top, bottom, bottom],
                color=EDGE_COLOR,
                linewidth=1,
            )
            middle = (top + bottom) / 2
            ax.text(
                x_bracket + 0.3,
                middle + 0.05,
                name,
                ha="left",
                va="bottom",
                weight="bold",
                gid="scope",
                **LABEL_FONT,
            )
            ax.text(
                x_bracket + 0.3,
                middle,
                detail,
                ha="left",
                va="top",
                color=MASKED_TEXT_COLOR,
                gid="scope-detail",
                linespacing=1.1,
                **{**LABEL_FONT, "size": 9},
            )
    for i, note in enumerate(notes):
        ax.text(
            width / 2,
            caption_h - 0.1 - (i + 0.5) * line_h,
            note,
            ha="center",
            va="center",
            color=MASKED_TEXT_COLOR,
            gid="note",
            **LABEL_FONT,
        )
    return fig


def combine_diagram(
    partials,
    *,
    partial_code="tl.sum(x, axis=0)",
    ax=None,
    title=None,
    max_programs=8,
    target="out",
    finish=None,
):
    """The combine step of a sum with atomics: each of G programs adds its partial sum to target[0] with
    `tl.atomic_add(target_ptr, partial)`; target[0] ends up holding their total. partials holds the G
    per-program partial sums (any device), partial_code is how a program computed its partial; beyond
    max_programs programs only the first max_programs - 1 and the last are drawn.

    target names the buffer the atomics add into: "out" when the total is the result (notebook 02), or
    e.g. "scratch" when a finish step follows. finish = (code, fn) draws that step below the total, one
    arrow to out[0] = fn(total), with code saying what computes it (notebook 04's
    ("torch.sqrt(scratch), on the host", math.sqrt))."""
    partials = torch.as_tensor(partials)
    if partials.dim() != 1 or partials.numel() == 0:
        raise ValueError(
            f"partials must be a non-empty 1-D tensor (one partial sum per program), got shape "
            f"{tuple(partials.shape)}"
        )
    if max_programs < 2:
        raise ValueError(f"max_programs must be at least 2, got {max_programs}")
    grid = partials.numel()
    columns = elided(grid, max_programs - 1, 1)
    drawn = [pid for pid in columns if pid is not None]
    # Only the drawn partials and the total leave the GPU.
    partials = partials.detach()
    index = torch.tensor(drawn, dtype=torch.long, device=partials.device)
    shown = dict(zip(drawn, partials[index].cpu().tolist(), strict=True))
    total = (partials.double() if partials.is_floating_point() else partials).sum().item()
    adds = f"{grid} atomic add" + "s" * (grid != 1)
    notes = [
        f"{adds} to one address, applied one at a time in an order the hardware chooses",
        f"(float addition is not associative: the last bits of {target}[0] can change from run to run)",
    ]
    if None in columns:
        notes.append(f"{ELLIPSIS} stands for programs not drawn ({len(drawn)} of {grid} shown)")
    texts = [fmt(shown[pid]) for pid in drawn]
    box_w = max(1.4, MONO_CHAR_W * max(len(t) for t in texts) + 0.4)
    codes = [partial_code, f"tl.atomic_add({target}_ptr, partial)", finish[0] if finish else ""]
    label_w = max(4.0, 0.11 * max(len(code) for code in codes) + 0.4)  # the row labels' 8-pt code fits
    col_w, line_h, pid_h, fall = box_w + 2 * GAP, 0.42, 0.45, 1.4
    out_text = fmt(total)
    finish_text = fmt(finish[1](total)) if finish else None
    out_w = max(2.0, MONO_CHAR_W * max(len(out_text), len(finish_text or "")) + 0.6)
    caption_h = line_h * len(notes) + 0.35
    finish_h = BOX_H + fall if finish else 0.0  # the finish box and the arrow down to it
    height = pid_h + 2 * BOX_H + fall + finish_h + caption_h
    # The programs' columns, centred over a wide enough out box when there are only one or two of them.
    col_x = label_w + max(0.0, out_w + 0.4 - len(columns) * col_w) / 2
    width = max(label_w + len(columns) * col_w, label_w + out_w + 0.4)
    who = f"{grid} programs: each adds its" if grid > 1 else "1 program: it adds its"
    fig, ax = new_axes(ax, width, height, title or f"grid = {who} partial sum to {target}[0]", notes)
    y_partial, y_out = height - pid_h - BOX_H, caption_h + finish_h
    x_out = (label_w + width) / 2  # centre of the out box
    row_label(ax, label_w - 0.2, y_partial, "partial", partial_code)
    row_label(
        ax,
        label_w - 0.2,
        y_partial - BOX_H / 2 - fall / 2,
        "combine",
        f"tl.atomic_add({target}_ptr, partial)",
    )
    row_label(ax, label_w - 0.2, y_out, f"{target}[0]", "zeroed before launch")
    size = value_size(texts)
    spread = (out_w - 0.4) / max(len(columns) - 1, 1)  # arrows end side by side along the out box's top
    for c, pid in enumerate(columns):
        x_mid = col_x + (c + 0.5) * col_w
        end = (x_out + (c - (len(columns) - 1) / 2) * spread, y_out + BOX_H)
        if pid is None:
            ax.text(
                x_mid,
                y_partial + BOX_H / 2,
                ELLIPSIS,
                ha="center",
                va="center",
                gid="ellipsis",
                **{**LABEL_FONT, "size": 16},
            )
            arrow(ax, (x_mid, y_partial), end, color=MASKED_TEXT_COLOR, linestyle="--", gid="edge")
            continue
        ax.text(
            x_mid,
            height - pid_h / 2,
            f"pid {pid}",
            ha="center",
            va="center",
            gid="pid",
            weight="bold",
            **LABEL_FONT,
        )
        draw_box(
            ax,
            x_mid - box_w / 2,
            y_partial,
            fmt(shown[pid]),
            color=program_color(pid),
            w=box_w,
            gid="partial",
            size=size,
        )
        arrow(ax, (x_mid, y_partial), end, gid="edge")
    draw_box(ax, x_out - out_w / 2, y_out, out_text, color="white", w=out_w, gid="total")
    ax.patches[-1].set_linewidth(2)
    if finish:
        y_finish = caption_h
        row_label(ax, label_w - 0.2, y_finish + BOX_H / 2 + fall / 2, "finish", finish[0])
        arrow(ax, (x_out, y_out), (x_out, y_finish + BOX_H), gid="finish-edge")
        row_label(ax, label_w - 0.2, y_finish, "out[0]", "the result")
        draw_box(ax, x_out - out_w / 2, y_finish, finish_text, color="white", w=out_w, gid="finished")
        ax.patches[-1].set_linewidth(2)
    for i, note in enumerate(notes):
        ax.text(
            width / 2,
            caption_h - 0.2 - (i + 0.5) * line_h,
            note,
            ha="center",
            va="center",
            color=MASKED_TEXT_COLOR,
            gid="note",
            **LABEL_FONT,
        )
    return fig
