"""utils.bench: the table and plot helpers; the GPU timings themselves run only where there is a GPU."""

import matplotlib
import pytest
import torch

from utils.bench import copy_gbps, gbps, gbps_back_to_back, plot_gbps, print_table

matplotlib.use("Agg")


def test_print_table_aligns_columns_and_formats_floats(capsys):
    print_table(["N", "GB/s"], [[4096, 7.125], [268435456, 4224.75]])
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["        N     GB/s", "     4096      7.1", "268435456  4,224.8"]


def test_plot_has_one_line_per_series_and_the_ceiling():
    fig = plot_gbps([2**10, 2**20], {"a": [1.0, 2.0], "b": [3.0, 4.0]}, "title", ceiling=5.0)
    ax = fig.axes[0]
    assert len(ax.lines) == 3
    assert ax.get_xscale() == "log"
    assert "device copy" in ax.get_legend().get_texts()[-1].get_text()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="timings need a GPU")
def test_copy_bandwidth_is_a_positive_rate():
    assert copy_gbps(2**20) > 0
    x = torch.ones(2**20, device="cuda")
    assert gbps(lambda: x.sum(), x.numel() * 4) > 0


def test_back_to_back_rate_counts_the_bytes_per_call():
    x = torch.ones(2**16)  # the timer is torch.utils.benchmark's: it runs on the CPU too
    rate = gbps_back_to_back(lambda: x.sum(), x.numel() * 4, min_run_time=0.05)
    assert 0 < rate < float("inf")
