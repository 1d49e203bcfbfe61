"""How `tl.sum` turns a tile into a scalar (`reduction_tree_diagram`) and how programs' partials meet
in one output (`combine_diagram`)."""

from __future__ import annotations

import torch

from utils.diagrams.style import (
    BOX_H,
    BOX_W,
    EDGE_COLOR,
    ELLIPSIS,
    GAP,
    LABEL_FONT,
    MASKED_TEXT_COLOR,
    MONO_CHAR_W,
    arrow,
    draw_box,
    draw_notes,
    elided,
    fmt,
    is_power_of_two,
    new_axes,
    program_color,
    row_label,
    value_size,
)

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
    draw_notes(ax, notes, width / 2, caption_h, line_h)
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
