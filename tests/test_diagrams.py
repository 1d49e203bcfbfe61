"""Tests for utils.diagrams: the lane and tile pictures show what the launch parameters say."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from utils.diagrams import lane_columns, lane_diagram, tile_diagram  # noqa: E402


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


@pytest.mark.parametrize("call, message", [
    (lambda: lane_diagram(torch.ones(10), block_size=6), "tl.arange needs a power-of-two length"),
    (lambda: tile_diagram(10, 0), "positive power of two"),
    (lambda: lane_diagram(torch.ones(10), block_size=4, pid=3), r"pid must be in range \[0, 3\)"),
    (lambda: lane_diagram(torch.ones(10), block_size=4, pid=-1), r"\[0, 3\)"),
    (lambda: lane_diagram(torch.ones(2, 5), block_size=4), "1-D"),
])
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
