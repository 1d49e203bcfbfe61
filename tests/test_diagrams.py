"""Tests for utils.diagrams: the lane, tile, tree and combine pictures show what their inputs say."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from utils.diagrams import (  # noqa: E402
    combine_diagram,
    lane_columns,
    lane_diagram,
    loop_diagram,
    program_color,
    reduction_tree_diagram,
    row_tile_diagram,
    tile_diagram,
)


def texts(fig, gid=None):
    """The strings drawn in a figure's (only) axes, optionally only those tagged with `gid`."""
    (ax,) = fig.axes
    return [t.get_text() for t in ax.texts if gid is None or t.get_gid() == gid]


def test_lane_diagram_three_elements_block_four():
    fig = lane_diagram(torch.tensor([1.0, 1.0, 1.0]), block_size=4)
    assert texts(fig, "lane") == ["0", "1", "2", "3"]
    assert texts(fig, "offset") == ["0", "1", "2", "3"]
    assert texts(fig, "mask") == ["True", "True", "True", "False"]
    assert texts(fig, "value") == ["1", "1", "1", "0"]
    assert any("other=0.0" in t for t in texts(fig))
    assert "pid=0" in fig.axes[0].get_title() and "BLOCK_SIZE=4" in fig.axes[0].get_title()


def test_lane_diagram_masked_lane_shows_other():
    fig = lane_diagram(torch.tensor([1.0, 1.0, 1.0]), block_size=4, other=float("-inf"))
    assert texts(fig, "value") == ["1", "1", "1", "-inf"]
    assert any("other=-inf" in t for t in texts(fig, "note"))


def test_lane_diagram_last_program_of_three():
    x = torch.arange(10, dtype=torch.float32) * 10
    fig = lane_diagram(x, block_size=4, pid=2)
    assert texts(fig, "offset") == ["8", "9", "10", "11"]
    assert texts(fig, "mask") == ["True", "True", "False", "False"]
    assert texts(fig, "value") == ["80", "90", "0", "0"]  # x[8], x[9], then other twice
    hatched = [p for p in fig.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 2 * 3  # two masked lanes, each masked in the offset, mask and value rows


def test_lane_diagram_transform_row_applies_to_masked_lanes_too():
    fig = lane_diagram(
        torch.tensor([2.0, -3.0, 1.0]), block_size=4, other=1.0, transform=("x * x", lambda v: v * v)
    )
    assert texts(fig, "transformed") == ["4", "9", "1", "1"]  # the masked lane: other squared, added in
    assert "x * x" in texts(fig)
    hatched = [p for p in fig.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 4  # the masked lane in the offset, mask, value and transformed rows


def test_combine_diagram_shows_how_partials_were_made():
    fig = combine_diagram([1.0, 2.0], partial_code="tl.sum(x * x, axis=0)")
    assert "tl.sum(x * x, axis=0)" in texts(fig)


def test_combine_diagram_into_a_scratch_draws_the_finish():
    # Notebook 04: the atomics add into the scratch, and the sqrt on the host writes out[0].
    fig = combine_diagram(
        [9.0, 16.0],
        partial_code="tl.sum(x * x, axis=0)",
        target="scratch",
        finish=("torch.sqrt(scratch), on the host", math.sqrt),
    )
    drawn = texts(fig)
    assert "tl.atomic_add(scratch_ptr, partial)" in drawn and "scratch[0]" in drawn
    assert not [t for t in drawn if "out_ptr" in t]
    assert texts(fig, "total") == ["25"] and texts(fig, "finished") == ["5"]
    assert "torch.sqrt(scratch), on the host" in drawn and "out[0]" in drawn
    assert len([p for p in fig.axes[0].patches if p.get_gid() == "finish-edge"]) == 1


def test_combine_diagram_without_a_finish_adds_into_out():
    drawn = texts(combine_diagram([1.0, 2.0]))
    assert "tl.atomic_add(out_ptr, partial)" in drawn and "out[0]" in drawn and "finish" not in drawn


def test_lane_diagram_without_masked_lanes_has_no_hatching():
    fig = lane_diagram(torch.ones(8), block_size=4, pid=1)
    assert texts(fig, "mask") == ["True"] * 4
    assert not [p for p in fig.axes[0].patches if p.get_hatch()]


@pytest.mark.parametrize("n", [1024 * 3, 2048 + 700])  # boundary outside the tile, then inside it
def test_lane_diagram_large_block_is_compressed(n):
    fig = lane_diagram(torch.randn(n), block_size=1024, pid=2, max_lanes=16)
    lanes = [int(t) for t in texts(fig, "lane")]
    columns = len(lanes) + len(texts(fig, "ellipsis")) // 4  # one ellipsis per row of 4
    assert len(lanes) <= 16 and columns <= 16 + 1
    assert texts(fig, "ellipsis")
    assert lanes[0] == 0 and lanes[-1] == 1023
    if n % 1024:  # the mask boundary (lane 700) is drawn, from both sides
        assert 699 in lanes and 700 in lanes
        assert "True" in texts(fig, "mask") and "False" in texts(fig, "mask")


def test_lane_columns_marks_gaps_with_none():
    assert lane_columns(8, 8, max_lanes=16) == list(range(8))
    assert lane_columns(64, 64, max_lanes=8) == [0, 1, 2, 3, None, 60, 61, 62, 63]
    assert lane_columns(64, 30, max_lanes=10) == [0, 1, 2, None, 29, 30, 31, None, 61, 62, 63]


def test_lane_diagram_accepts_a_list_and_draws_into_given_axes():
    fig, ax = plt.subplots()
    try:
        assert lane_diagram([1.0, 2.0], block_size=2, ax=ax, title="mine") is fig
        assert ax.get_title() == "mine"
    finally:
        plt.close(fig)


def test_tile_diagram_ten_elements_block_four():
    fig = tile_diagram(10, 4)
    assert texts(fig, "pid") == ["pid 0", "pid 1", "pid 2"]
    assert texts(fig, "range") == ["[0, 4)", "[4, 8)", "[8, 10)"]
    assert texts(fig, "masked-range") == ["2 masked\n[10, 12)"]
    (tail,) = [p for p in fig.axes[0].patches if p.get_hatch()]
    (first, *_) = [p for p in fig.axes[0].patches if not p.get_hatch()]
    assert tail.get_width() == pytest.approx(first.get_width() / 2)  # 2 of 4 elements
    assert "= 3 programs" in fig.axes[0].get_title()


def test_tile_diagram_exact_multiple_has_no_masked_tail():
    fig = tile_diagram(8, 4)
    assert texts(fig, "range") == ["[0, 4)", "[4, 8)"]
    assert not texts(fig, "masked-range")
    assert not [p for p in fig.axes[0].patches if p.get_hatch()]


def test_tile_diagram_many_programs_is_compressed():
    fig = tile_diagram(1_000_001, 1024, max_programs=12)
    pids = texts(fig, "pid")
    assert len(pids) == 12 and pids[0] == "pid 0" and pids[-1] == "pid 976"  # cdiv(1_000_001, 1024) = 977
    assert texts(fig, "ellipsis") == ["…"]
    assert texts(fig, "masked-range") == ["447 masked"]  # 977 * 1024 - 1_000_001


def test_loop_diagram_labels_trips_not_programs_and_draws_acc_carried():
    fig = loop_diagram(torch.arange(1.0, 7.0), 4)  # one row of 1..6 in tiles of 4: two trips
    assert not texts(fig, "pid")  # one program: the trips are not programs
    assert [t for t in texts(fig, "row") if "trip" in t] == ["+ tile, trip 0", "+ tile, trip 1"]
    assert texts(fig, "tile") == ["1", "2", "3", "4", "5", "6", "0", "0"]
    assert texts(fig, "acc") == ["0"] * 4 + ["1", "2", "3", "4"] + ["6", "8", "3", "4"]  # carried, then added
    assert any("= 21" in t for t in texts(fig, "note"))
    assert len([p for p in fig.axes[0].patches if p.get_hatch()]) == 2  # the two masked lanes of trip 1


def test_row_tile_diagram_masks_rows_and_columns_and_reduces_along_axis_1():
    x = torch.arange(36.0).view(6, 6)
    fig = row_tile_diagram(x, block_rows=4, block_size=8, pid=1)  # rows 4..7 of 6, columns 0..7 of 6
    assert [t for t in texts(fig, "row") if t.startswith("row")] == ["row 4", "row 5", "row 6", "row 7"]
    assert texts(fig, "partial") == [str(int(x[4].sum())), str(int(x[5].sum())), "not stored", "not stored"]
    assert texts(fig, "tile")[:8] == ["24", "25", "26", "27", "28", "29", "0", "0"]
    hatched = [p for p in fig.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 2 * 2 + 2 * 8 + 2  # two masked columns in rows 4-5, rows 6-7, their partials
    assert "axis=1" in fig.axes[0].get_title()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: lane_diagram(torch.ones(10), block_size=6), "tl.arange needs a power-of-two length"),
        (lambda: tile_diagram(10, 0), "positive power of two"),
        (lambda: lane_diagram(torch.ones(10), block_size=4, pid=3), r"pid must be in range \[0, 3\)"),
        (lambda: lane_diagram(torch.ones(10), block_size=4, pid=-1), r"\[0, 3\)"),
        (lambda: lane_diagram(torch.ones(2, 5), block_size=4), "1-D"),
        (lambda: loop_diagram(torch.ones(10), 32), "at most 16"),
        (lambda: row_tile_diagram(torch.ones(6, 6), 4, 8, pid=2), r"pid must be in range \[0, 2\)"),
        (lambda: row_tile_diagram(torch.ones(6), 4, 8), "2-D"),
    ],
)
def test_bad_arguments_say_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_figures_render_and_stay_closed(tmp_path):
    before = plt.get_fignums()
    lane = lane_diagram(torch.arange(10.0), block_size=4, pid=2)
    tile = tile_diagram(10, 4)
    assert plt.get_fignums() == before  # returned to the caller, not left open in pyplot
    for name, fig in [("lane", lane), ("tile", tile)]:
        fig.savefig(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 5_000


def boxes(fig):
    """The rectangles drawn in a figure's (only) axes, in drawing order."""
    return [p for p in fig.axes[0].patches if isinstance(p, Rectangle)]


def test_reduction_tree_of_eight_values():
    fig = reduction_tree_diagram([3, 1, 4, 1, 5, 9, 2, 6])
    assert len(boxes(fig)) == 8 + 4 + 2 + 1
    assert texts(fig, "lane") == ["3", "1", "4", "1", "5", "9", "2", "6"]
    assert texts(fig, "sum") == ["4", "5", "14", "8", "9", "22"]  # neighbours' sums, then sums of those
    assert texts(fig, "root") == ["31"]
    assert len([p for p in fig.axes[0].patches if p.get_gid() == "edge"]) == 2 * (4 + 2 + 1)
    assert [t for t in texts(fig, "row") if t.startswith("step")] == ["step 1", "step 2", "step 3"]
    assert fig.axes[0].get_title() == "tl.sum of an 8-lane tile: log2(8) = 3 steps"
    assert not texts(fig, "warp") and not texts(fig, "scope")  # no num_warps, no warp marking


def test_reduction_tree_marks_steps_within_a_thread_a_warp_and_across_warps():
    # A toy GPU: 2 warps of 4 threads are 8 threads, so each thread holds 2 of the 16 lanes.
    fig = reduction_tree_diagram(torch.arange(1.0, 17.0), num_warps=2, threads_per_warp=4)
    assert texts(fig, "root") == ["136"]
    assert fig.axes[0].get_title() == "tl.sum of a 16-lane tile: log2(16) = 4 steps"
    assert texts(fig, "warp") == ["warp 0", "warp 1"]
    assert texts(fig, "thread") == [f"thread {t}" for t in range(8)]  # threads hold lanes; warps hold threads
    assert texts(fig, "scope") == ["within a thread", "within a warp", "across warps"]
    in_thread, in_warp, across = texts(fig, "scope-detail")
    assert "registers" in in_thread and "shfl.sync.bfly" in in_warp
    assert "shared memory" in across and "barrier" in across
    assert any("toy GPU" in t and "a real warp has 32" in t for t in texts(fig, "note"))
    colors = [to_hex(p.get_facecolor()) for p in boxes(fig)]
    # 8 lanes per warp: steps 1 to 3 (8, 4 and 2 boxes) keep a warp's colour, step 4 combines the warps
    assert colors[:16] == [program_color(lane // 8) for lane in range(16)]
    step_colors = [program_color(j // 4) for j in range(8)] + [program_color(j // 2) for j in range(4)]
    assert colors[16:30] == step_colors + [program_color(j) for j in range(2)]
    assert colors[30:] == ["#ffffff"]


def test_reduction_tree_with_real_warps_needs_a_tile_as_large_as_the_threads():
    with pytest.raises(ValueError, match="128 threads, more than the 16 lanes drawn.*threads_per_warp"):
        reduction_tree_diagram(torch.ones(16), num_warps=4)  # 4 warps of 32 threads
    fig = reduction_tree_diagram(torch.ones(16), num_warps=1, threads_per_warp=16)  # a toy warp fits
    assert any("warps of 16 threads" in t for t in texts(fig, "note"))


@pytest.mark.parametrize(
    "num_warps, threads_per_warp, scopes",
    [
        (1, 16, ["within a warp"]),
        (16, 1, ["across warps"]),
        (1, 4, ["within a thread", "within a warp"]),
    ],
)
def test_reduction_tree_scopes_follow_lanes_per_thread_and_warp(num_warps, threads_per_warp, scopes):
    fig = reduction_tree_diagram(torch.ones(16), num_warps=num_warps, threads_per_warp=threads_per_warp)
    assert texts(fig, "scope") == scopes
    assert len(texts(fig, "warp")) == num_warps
    assert len(texts(fig, "thread")) == num_warps * threads_per_warp


def test_combine_diagram_four_programs():
    fig = combine_diagram([10.0, 26.0, 42.0, 58.0])
    assert texts(fig, "pid") == ["pid 0", "pid 1", "pid 2", "pid 3"]
    assert texts(fig, "partial") == ["10", "26", "42", "58"]
    assert texts(fig, "total") == ["136"]
    assert len([p for p in fig.axes[0].patches if p.get_gid() == "edge"]) == 4  # one atomic add each
    assert [to_hex(p.get_facecolor()) for p in boxes(fig)[:4]] == [program_color(pid) for pid in range(4)]
    assert any(
        t.startswith("4 atomic adds to one address") and "order the hardware chooses" in t
        for t in texts(fig, "note")
    )
    assert not texts(fig, "ellipsis")


def test_combine_diagram_many_programs_is_compressed():
    fig = combine_diagram(torch.arange(1000.0), max_programs=8)
    assert texts(fig, "pid") == [f"pid {pid}" for pid in range(7)] + ["pid 999"]
    assert texts(fig, "partial") == ["0", "1", "2", "3", "4", "5", "6", "999"]
    assert texts(fig, "ellipsis") == ["…"]
    assert texts(fig, "total") == ["499500"]  # all 1000 partials, not only the drawn ones
    assert any("8 of 1000 shown" in t for t in texts(fig, "note"))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: reduction_tree_diagram([1.0, 2.0, 3.0]), "power-of-two tile"),
        (lambda: reduction_tree_diagram([1.0]), "power-of-two"),
        (lambda: reduction_tree_diagram(torch.ones(32)), "at most 16 lanes"),
        (lambda: reduction_tree_diagram(torch.ones(2, 4)), "1-D"),
        (
            lambda: reduction_tree_diagram(torch.ones(8), num_warps=3, threads_per_warp=1),
            "must be powers of two",
        ),
        (
            lambda: reduction_tree_diagram(torch.ones(8), num_warps=2, threads_per_warp=3),
            "must be powers of two",
        ),
        (
            lambda: reduction_tree_diagram(torch.ones(8), num_warps=16, threads_per_warp=1),
            "16 threads, more than the 8 lanes drawn",
        ),
        (lambda: combine_diagram([]), "non-empty 1-D"),
        (lambda: combine_diagram(torch.ones(4), max_programs=1), "at least 2"),
    ],
)
def test_bad_reduction_arguments_say_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_reduction_figures_render_stay_closed_and_draw_into_given_axes(tmp_path):
    before = plt.get_fignums()
    tree = reduction_tree_diagram(torch.randn(16), num_warps=2, threads_per_warp=4)
    combine = combine_diagram(torch.randn(300))
    assert plt.get_fignums() == before
    for name, fig in [("tree", tree), ("combine", combine)]:
        fig.savefig(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 5_000
    fig, (left, right) = plt.subplots(1, 2)
    try:
        assert reduction_tree_diagram([1, 2, 3, 4], ax=left, title="tree") is fig
        assert combine_diagram([1, 2], ax=right, title="combine") is fig
        assert (left.get_title(), right.get_title()) == ("tree", "combine")
    finally:
        plt.close(fig)


def test_ticket_order_diagram_marks_the_program_that_drew_the_last_ticket():
    from utils.diagrams import ticket_order_diagram

    fig = ticket_order_diagram([2, 0, 3, 1])
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "last ticket: program 2 combines" in labels
    assert list(ax.collections[0].get_offsets()[:, 1]) == [2, 0, 3, 1]
