"""utils.bench: the table and plot helpers; the GPU timings themselves run only where there is a GPU."""

import matplotlib
import pytest
import torch

from utils.bench import (
    copy_gbps,
    gbps,
    gbps_back_to_back,
    plot_gbps,
    plot_roofline,
    print_table,
    recorded_gbps,
)
from utils.verdicts import goal_line, run_variation, standing, verdict

matplotlib.use("Agg")


def test_print_table_aligns_columns_and_formats_floats(capsys):
    print_table(["N", "GB/s"], [[4096, 7.125], [268435456, 4224.75]])
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["        N     GB/s", "     4096      7.1", "268435456  4,224.8"]


def test_print_table_left_aligns_text_and_right_aligns_numbers(capsys):
    print_table(["call", "launches", "share"], [["torch.sum", 1, "74%"], ["sum_two_stage (02)", 2, "1.03x"]])
    assert capsys.readouterr().out.splitlines() == [
        "call                launches  share",
        "torch.sum                  1    74%",
        "sum_two_stage (02)         2  1.03x",
    ]


def test_print_table_gives_small_floats_two_significant_digits(capsys):
    # 08's eager table on the CPU: a (64, 256) float32 matrix is 0.0625 MiB, a row's maxima 0.00024 MiB;
    # one decimal printed 0.1 and 0.0
    print_table(["MiB"], [[64 * 256 * 4 / 2**20], [64 * 4 / 2**20], [0.0], [256.03]])
    assert capsys.readouterr().out.splitlines() == ["    MiB", "  0.062", "0.00024", "    0.0", "  256.0"]


def test_a_table_too_wide_wraps_its_text_and_keeps_every_word(capsys):
    # notebook 07's launch count: the longest description alone is almost 100 characters
    descriptions = [
        "1 Triton launch (transform_sum_persistent_kernel) and 2 torch operations on the device "
        "(zero_, sqrt)",
        "1 torch operation on the device (sum)",
    ]
    rows = [["l2_norm_fast (04)", 3, descriptions[0]], ["torch.sum", 1, descriptions[1]]]
    print_table(["call", "launches", "what one call asked the device to do"], rows, width=80)
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 80 and len(lines) > 3, lines
    start = lines[0].index("what one call")
    assert all(line[:start].strip() == "" for line in lines if line.startswith(" "))  # continuation lines
    text = " ".join(line[start:].strip() for line in lines[1:])
    assert text.split() == " ".join(descriptions).split()
    assert lines[1].startswith("l2_norm_fast (04)") and lines[1][:start].rstrip().endswith(" 3")


def test_plot_has_one_line_per_series_and_the_ceiling():
    fig = plot_gbps([2**10, 2**20], {"a": [1.0, 2.0], "b": [3.0, 4.0]}, "title", ceiling=5.0)
    ax = fig.axes[0]
    assert len(ax.lines) == 3
    assert ax.get_xscale() == "log"
    assert "device copy" in ax.get_legend().get_texts()[-1].get_text()


def test_roofline_has_a_line_per_ceiling_and_a_point_per_kernel():
    fig = plot_roofline(
        {"sum": (0.25, 4000.0), "L2 norm": (0.5, 3900.0)}, {"copy": 4200.0, "spec": 4800.0}, 67_000.0, "title"
    )
    (ax,) = fig.axes
    ceilings, points = ax.lines[:2], ax.lines[2:]
    assert [max(line.get_ydata()) for line in ceilings] == [4200.0, 4800.0]  # flat under the ridge
    assert [list(line.get_xdata()) for line in points] == [[0.25], [0.5]]


def test_recorded_gbps_reads_the_h200_run_at_one_size():
    found, copy, measured_on = recorded_gbps(["L2 norm", "sum, two-stage"], 2**28)
    assert set(found) == {"L2 norm", "sum, two-stage"} and all(v > 0 for v in found.values())
    assert copy > 0 and "H200" in measured_on
    with pytest.raises(ValueError, match="no"):
        recorded_gbps(["not a row"], 2**28)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="timings need a GPU")
def test_copy_bandwidth_is_a_positive_rate():
    assert copy_gbps(2**20) > 0
    x = torch.ones(2**20, device="cuda")
    assert gbps(lambda: x.sum(), x.numel() * 4) > 0


def test_back_to_back_rate_counts_the_bytes_per_call():
    x = torch.ones(2**16)  # the timer is torch.utils.benchmark's: it runs on the CPU too
    rate = gbps_back_to_back(lambda: x.sum(), x.numel() * 4, min_run_time=0.05)
    assert 0 < rate < float("inf")


def test_us_per_call_names_its_clocks():
    from utils.bench import CLOCKS, us_per_call

    assert set(CLOCKS) == {"gpu", "loop", "synced"}
    with pytest.raises(ValueError, match="clock must be one of"):
        us_per_call(lambda: None, "wall")
    assert us_per_call(lambda: None, "loop", min_run_time=0.01) > 0  # the loop clock needs no GPU


def test_fastest_us_keeps_each_calls_best_round(monkeypatch):
    import utils.bench as bench

    times = iter([5.0, 9.0, 3.0, 12.0, 4.0, 8.0])  # a, b, a, b, a, b
    monkeypatch.setattr(bench, "us_per_call", lambda call, clock, min_run_time: next(times))
    assert bench.fastest_us({"a": None, "b": None}, "loop", rounds=3) == {"a": 3.0, "b": 8.0}


def test_rounds_read_as_gbps_give_the_median_then_the_slowest_and_fastest():
    from utils.bench import Runs

    runs = Runs((2.0, 1.0, 4.0))  # µs per call; 4,000 bytes a call
    assert runs.gbps(4000) == "2 (1-4)"
    assert Runs((1.0,)).gbps(2**20) == "1,049 (1,049-1,049)"  # thousands separated


def test_verdict_takes_the_first_band_the_value_is_under():
    bands = [(0.1, "nearly all"), (0.5, "part")]
    assert [verdict(v, bands, "most") for v in (0.05, 0.1, 0.3, 0.5, 2.0)] == [
        "nearly all",
        "part",
        "part",
        "most",
        "most",
    ]
    with pytest.raises(ValueError, match="lowest limit up"):
        verdict(0.3, [(0.5, "part"), (0.1, "nearly all")], "most")


def test_standing_widens_its_level_band_to_the_run_variation():
    assert [standing(r) for r in (0.985, 0.995, 1.0, 1.005, 1.02)] == [
        "behind",
        "level",
        "level",
        "level",
        "ahead",
    ]
    assert standing(0.985, band=0.02) == "level"
    assert standing(1.015, band=0.02) == "level"


def test_goal_line_tells_a_miss_from_the_run_variation():
    assert goal_line("g", {}, 0.015) == "goal (g): met"
    within = goal_line("g", {"a: 0.988x": 0.988}, 0.015)
    assert within.startswith("goal (g): met within the run's variation (1.5%)") and "a: 0.988x" in within
    missed = goal_line("g", {"a: 0.95x": 0.95, "b: 0.99x": 0.99}, 0.015)
    assert missed.startswith("goal (g): not met: a: 0.95x;") and missed.endswith("(1.5%): b: 0.99x")


def test_run_variation_is_the_spread_of_a_rate_that_should_not_move():
    assert run_variation([4000.0, 4060.0, 4020.0]) == pytest.approx(0.015)


def test_a_difference_needs_rounds_apart_and_with_a_band_medians_further_apart_than_it():
    from utils.bench import Runs, compare, difference

    fast, slow = Runs((1.00, 1.01, 1.02)), Runs((1.03, 1.04, 1.05))  # µs: apart in every round, 3% apart
    assert difference(fast, slow) == "faster" and difference(slow, fast) == "slower"
    assert difference(fast, slow, band=0.05) == "level"  # 3% is inside a 5% band
    overlapping = Runs((0.99, 1.02, 1.06))
    assert difference(fast, overlapping) == "level" == difference(overlapping, fast)
    assert compare("a", fast, "b", slow).startswith("a is faster, 1.03x b's speed")
    assert compare("a", fast, "b", slow, band=0.05) == "a and b are level: 1.030x, within 5%"
    assert compare("a", fast, "b", overlapping) == "a and b are level within the run's variation"
