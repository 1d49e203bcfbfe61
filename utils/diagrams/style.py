"""The diagrams' shared look and drawing primitives: a colour per program, the masked style, fonts,
box sizes, boxes, arrows and row labels, for every diagram to reuse."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
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


def draw_notes(ax, notes, center_x, caption_h, line_h) -> None:
    """The grey notes under a diagram, one per line, centred on `center_x`, tagged "note"."""
    for i, note in enumerate(notes):
        ax.text(
            center_x,
            caption_h - 0.1 - (i + 0.5) * line_h,
            note,
            ha="center",
            va="center",
            color=MASKED_TEXT_COLOR,
            gid="note",
            **LABEL_FONT,
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
