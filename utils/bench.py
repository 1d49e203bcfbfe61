"""Bandwidth benchmarks for the notebooks: GB/s from `triton.testing.do_bench`, and a copy-bandwidth ceiling.

Reductions and elementwise kernels do almost no arithmetic per byte, so the honest yardstick is memory
bandwidth: bytes moved divided by time, compared with what a plain device-to-device copy achieves in the
same run. On the CPU interpreter timings measure Python, not a GPU, so the notebooks skip them.
`sectors_touched` explains one cause of a low figure without timing anything: how many 32-byte pieces of
memory neighbouring lanes of a load touch, computed from a view's strides;
`recorded_gbps` gives the notebooks the README benchmark's H200 figures to show instead where there is
no GPU (notebook 04's roofline, drawn by `plot_roofline`).
"""

from __future__ import annotations

import math
import re
import statistics
import textwrap
import warnings
from dataclasses import dataclass

import torch

from utils.checker.model import Case
from utils.checker.tolerance import sum_tolerance

NO_GPU_NOTE = (
    "Benchmark skipped: no GPU here. In the interpreter a timing measures Python, not memory "
    "bandwidth; run this notebook on a GPU (e.g. Colab's T4) to see real numbers."
)


def _checked(fn, check) -> None:
    """One call of `fn()`, then `check()`, which raises if what the call left is wrong."""
    if check is not None:
        fn()
        check()


def gbps(fn, bytes_moved: int, check=None) -> float:
    """Median GB/s of `fn()` (which moves `bytes_moved` bytes), timed by triton.testing.do_bench.

    `check`, if given, runs after one call of `fn()` and before any timing, and raises if what that call
    left is wrong (`lambda: assert_sum(out, x)`, say): a kernel right on the checker's sizes can still
    be wrong at the size timed (a loop's second trip), and a figure for a wrong result means nothing.
    """
    import triton.testing

    _checked(fn, check)
    ms = triton.testing.do_bench(fn, return_mode="median")
    return bytes_moved / (ms * 1e-3) / 1e9


def assert_sum(out: torch.Tensor, x: torch.Tensor) -> None:
    """out[0] against the float64 sum of x, within the checker's tolerance for a float32 sum of x's
    length (utils.checker.tolerance.sum_tolerance); an AssertionError that says so otherwise."""
    atol, rtol = sum_tolerance(Case("timed", (x.flatten(),), (1,)))
    torch.testing.assert_close(
        out.flatten()[0].double(),
        x.double().sum(),
        atol=float(atol),  # one number: x is flattened, so its sum is one row
        rtol=rtol,
        msg=lambda m: f"wrong at the size timed, N = {x.numel():,}: {m}",
    )


def gbps_back_to_back(fn, bytes_moved: int, min_run_time: float = 0.2, check=None) -> float:
    """Median GB/s of `fn()` called back to back, as a program's loop calls it, by torch.utils.benchmark.

    Unlike `gbps`, every call pays its launch overhead in full and the L2 cache stays warm between calls:
    at small sizes this measures how fast the host launches kernels, which is what a caller waits for.
    `check` as for `gbps`.
    """
    from torch.utils.benchmark import Timer

    _checked(fn, check)
    measurement = Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=min_run_time)
    return bytes_moved / measurement.median / 1e9


CLOCKS = {
    "gpu": "GPU time (do_bench)",
    "loop": "back to back (a loop)",
    "synced": "one call, synchronised",
}


def us_per_call(fn, clock: str, min_run_time: float = 0.2) -> float:
    """Median µs per call of `fn()` on one of three clocks (notebook 07), each from a library timer:

    - "gpu": `triton.testing.do_bench`: the GPU's time between CUDA events, L2 flushed; no host cost.
    - "loop": `torch.utils.benchmark`, calls back to back: what a program's loop pays per call. When the
      host takes longer to launch than the GPU to run, this is the host's time.
    - "synced": the same timer around `fn(); torch.cuda.synchronize()`: what one call costs a caller
      that waits for its result (launch, the GPU's work, and the round trip back).
    """
    from torch.utils.benchmark import Timer

    if clock == "gpu":
        import triton.testing

        return triton.testing.do_bench(fn, return_mode="median") * 1e3
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {list(CLOCKS)}, not {clock!r}")
    stmt = "fn(); torch.cuda.synchronize()" if clock == "synced" else "fn()"
    timer = Timer(stmt=stmt, globals={"fn": fn, "torch": torch})
    return timer.blocked_autorange(min_run_time=min_run_time).median * 1e6


def fastest_us(calls: dict, clock: str, rounds: int = 3, min_run_time: float = 0.1) -> dict[str, float]:
    """{name: µs per call} for several calls compared on one clock (see `us_per_call`): each call timed
    `rounds` times, taking turns with the others, keeping its fastest median. A shared or throttling GPU
    can slow one measurement down by half; taking turns and keeping the best stops that from deciding
    a comparison, which one median each cannot do (torch.utils.benchmark times one statement at a time)."""
    best = {name: float("inf") for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            best[name] = min(best[name], us_per_call(call, clock, min_run_time))
    return best


@dataclass(frozen=True)
class Runs:
    """One call's µs per call over several timed rounds: its median and its spread, fastest to slowest."""

    us: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.us)

    def __str__(self) -> str:
        return f"{self.median:.1f} ({min(self.us):.1f}-{max(self.us):.1f})"

    def gbps(self, bytes_moved: int) -> str:
        """The rounds as GB/s for `bytes_moved` bytes a call: the median round's (slowest-fastest)."""
        rate = [f"{bytes_moved / us / 1e3:,.0f}" for us in (self.median, max(self.us), min(self.us))]
        return f"{rate[0]} ({rate[1]}-{rate[2]})"


def repeated_us(calls: dict, clock: str, repeats: int = 5, min_run_time: float = 0.05) -> dict[str, Runs]:
    """{name: Runs}: each call timed `repeats` times on one clock (see `us_per_call`), taking turns with the
    others, so that a slow stretch of the machine lands on every call alike. Where `fastest_us` keeps one
    best figure, this keeps them all, so that a comparison can tell a difference from the run's noise
    (`compare`)."""
    us: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            us[name].append(us_per_call(call, clock, min_run_time))
    return {name: Runs(tuple(values)) for name, values in us.items()}


def difference(runs: Runs, other: Runs, band: float = 0.0) -> str:
    """ "faster", "slower" or "level": `runs` against `other`. A difference needs every round of one to beat
    every round of the other (strict, so that two runs of a cell do not print opposite verdicts) and, with
    `band`, medians further apart than it. Pass LEVEL_BAND (1%) where a cell asks whether a cost exists at
    all: a 0.2% gap cleared the first test in one H200 run of notebook 06 and not in the one before."""
    ratio = other.median / runs.median  # above 1: `runs` takes less time
    if (max(runs.us) < min(other.us) or max(other.us) < min(runs.us)) and abs(ratio - 1) > band:
        return "faster" if ratio > 1 else "slower"
    return "level"


def compare(name: str, runs: Runs, other_name: str, other: Runs, band: float = 0.0) -> str:
    """Which of two calls is faster, in words, by `difference`; otherwise level, and within what."""
    ratio = other.median / runs.median
    found = difference(runs, other, band)
    if found != "level":
        return f"{name} is {found}, {ratio:.2f}x {other_name}'s speed, outside the run's variation"
    if difference(runs, other) != "level":  # the rounds were apart, the medians within the band
        return f"{name} and {other_name} are level: {ratio:.3f}x, within {band:.0%}"
    return f"{name} and {other_name} are level within the run's variation"


def dtype_name(dtype: torch.dtype) -> str:
    """'float16' for torch.float16: how the tables name a dtype."""
    return str(dtype).removeprefix("torch.")


def compiled_for_one_shape(fn):
    """`torch.compile(fn)` for timing against at one shape: a kernel specialised to the shape of its
    first call (`dynamic=False`), compiled after clearing torch's compile caches (`torch.compiler.reset`).

    Without `dynamic=False`, a function called at a second shape is recompiled for dynamic shapes (torch's
    automatic dynamic shapes) and runs that kernel from then on. Without the reset, lambdas written on one
    line of a loop share one code object, whose cache reaches torch's recompile limit (8 by default)
    and runs the later shapes eagerly. The default mode: `mode="max-autotune"` is not tried.
    """
    torch.compiler.reset()
    return torch.compile(fn, dynamic=False)


def copy_gbps(numel: int, device: str = "cuda", timer=gbps) -> float:
    """GB/s of a float32 device-to-device copy of `numel` elements, counting bytes read and written."""
    src = torch.empty(numel, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    return timer(lambda: dst.copy_(src), 2 * src.numel() * src.element_size())


SECTOR_BYTES = 32  # NVIDIA GPUs move global memory in 32-byte sectors (four to a 128-byte cache line)


def sectors_touched(view: torch.Tensor, lanes: int = 32, row: int = 0) -> list[tuple[int, int, int]]:
    """(lane, byte offset, sector) for the first `lanes` lanes of a row-sum tile on row `row` of the 2-D
    `view`: lane j reads element (row, j), at byte (row * stride(0) + j * stride(1)) * element_size from the
    view's start, which lies in sector offset // SECTOR_BYTES. Only strides are used: a "meta" tensor will do.
    """
    size = view.element_size()
    offsets = [(row * view.stride(0) + lane * view.stride(1)) * size for lane in range(lanes)]
    return [(lane, offset, offset // SECTOR_BYTES) for lane, offset in enumerate(offsets)]


def gpu_operations(fn) -> int:
    """How many operations (kernels, memsets, copies) one call of `fn` runs on the GPU, counted by
    torch.profiler: what an eager composite of torch calls costs in launches, beside a fused kernel's one."""
    with warnings.catch_warnings():
        # torch 2.11 warns, on reading the events, that a profiler keeps one cycle's: one is all we record
        warnings.filterwarnings("ignore", message=".*Profiler clears events")
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
            fn()
            torch.cuda.synchronize()
        events = profile.events()
    return sum(1 for event in events if event.device_type == torch.autograd.DeviceType.CUDA)


def versions() -> str:
    """The GPU and software a measurement came from, to print next to the numbers."""
    import triton

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    return f"{gpu}, torch {torch.__version__}, triton {triton.__version__}"


TABLE_WIDTH = 100  # characters: a table fits a laptop's notebook or terminal without wrapping
# A cell that reads as a number: 4,096, -0.5, 1.2e-05, 2^12, 74%, 1.03x, -inf
_NUMBER = re.compile(r"^[-+]?(?:\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|\d+\^\d+|inf|nan)(?:%|x)?$", re.IGNORECASE)


def _cell(value) -> str:
    """A float with one decimal, or two significant digits under 0.95, where one decimal would print
    0.0 or 0.1 for what may be 0.06 or 0.0002; anything else as str() writes it."""
    if not isinstance(value, float):
        return str(value)
    if value == 0 or not math.isfinite(value) or abs(value) >= 0.95:
        return f"{value:,.1f}"
    return f"{value:.2g}"


def print_table(headers: list[str], rows: list[list], width: int = TABLE_WIDTH) -> None:
    """A plain text table: columns of numbers right-aligned, columns of text left-aligned. Where the
    table would be wider than `width` characters, the widest text column wraps, then the next (never
    narrower than its longest word and the indent), its continuation lines indented by two."""
    table = [list(headers)] + [[_cell(v) for v in row] for row in rows]
    columns = [[row[i] for row in table] for i in range(len(headers))]
    numeric = [any(c[1:]) and all(_NUMBER.match(cell) or not cell for cell in c[1:]) for c in columns]
    widths = [max(map(len, c)) for c in columns]
    floors = [
        widths[i] if numeric[i] else max([8, *(len(word) + 2 for cell in c for word in cell.split())])
        for i, c in enumerate(columns)
    ]
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    while excess > 0:  # narrow the widest text column that can still narrow, one character at a time
        narrowable = [i for i in range(len(widths)) if widths[i] > floors[i]]
        if not narrowable:
            break
        widths[max(narrowable, key=lambda i: widths[i])] -= 1
        excess -= 1
    for row in table:
        wrapped = [
            textwrap.wrap(cell, w, subsequent_indent="  ") if len(cell) > w else [cell]
            for cell, w in zip(row, widths)
        ]
        for k in range(max(map(len, wrapped))):
            parts = []
            for lines, w, right in zip(wrapped, widths, numeric):
                text = lines[k] if k < len(lines) else ""
                parts.append(text.rjust(w) if right else text.ljust(w))
            print("  ".join(parts).rstrip())


def plot_gbps(sizes: list[int], series: dict[str, list[float]], title: str, ceiling: float | None = None):
    """GB/s against problem size (log x axis), one line per kernel, the copy bandwidth as a dashed ceiling."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, values in series.items():
        ax.plot(sizes, values, marker="o", label=name)
    if ceiling is not None:
        ax.axhline(ceiling, linestyle="--", color="grey", label=f"device copy ({ceiling:,.0f} GB/s)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.set_ylabel("GB/s")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    plt.close(fig)  # the caller displays the returned figure; an open one would be shown twice in Jupyter
    return fig


RECORDED = "benchmarks/h200/results.csv"  # the README benchmark's H200 run (back to back)


def recorded_gbps(reductions: list[str], elements: int) -> tuple[dict[str, float], float, str]:
    """GB/s that the README benchmark recorded in RECORDED for these rows at one size, the device copy's
    GB/s at that size, and the run's description: for a notebook on a CPU to show what a GPU measured."""
    import csv
    from pathlib import Path

    with open(Path(__file__).resolve().parent.parent / RECORDED, newline="") as f:
        records = [r for r in csv.DictReader(f) if int(r["elements"]) == elements]
    found = {r["reduction"]: float(r["course_gbps"]) for r in records if r["reduction"] in reductions}
    missing = [name for name in reductions if name not in found]
    if missing or not records:
        raise ValueError(f"{RECORDED} has no {missing or reductions} at {elements} elements")
    return found, float(records[0]["copy_gbps"]), records[0]["measured_on"]


def plot_roofline(
    points: dict[str, tuple[float, float]], ceilings: dict[str, float], peak_gflops: float, title: str
):
    """The roofline as GB/s: attainable GB/s = min(bandwidth, peak FLOP/s / intensity) against arithmetic
    intensity (FLOP per byte), one line per bandwidth ceiling ({label: GB/s}), and the measured kernels
    as points ({label: (FLOP per byte, GB/s)}). Log axes; the ridge, where compute starts to limit, is
    marked for each ceiling. matplotlib has no roofline plot, hence this one."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, ax = plt.subplots(figsize=(7, 4))
    intensities = [2.0 ** (k / 4) for k in range(-16, 33)]  # 1/16 to 256 FLOP per byte
    for (label, bandwidth), style in zip(ceilings.items(), ("--", ":")):
        ridge = peak_gflops / bandwidth
        ax.plot(
            intensities,
            [min(bandwidth, peak_gflops / i) for i in intensities],
            linestyle=style,
            color="grey",
            label=f"{label} ({bandwidth:,.0f} GB/s; ridge at {ridge:.0f} FLOP/byte)",
        )
    for label, (intensity, rate) in points.items():
        ax.plot([intensity], [rate], marker="o", linestyle="none", label=f"{label} ({rate:,.0f} GB/s)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v >= 1 else f"1/{1 / v:g}"))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel("arithmetic intensity (FLOP per byte read)")
    ax.set_ylabel("attainable GB/s")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    plt.close(fig)  # as in plot_gbps: the caller displays it
    return fig
