"""Benchmark every reduction the course teaches, in its final tuned form, against torch and the device copy.

Rows marked `step_of` are earlier forms that a later notebook replaces; they are timed and shown, and the
goal verdict holds their final form's row to the goals instead. The softmax rows are notebook 08's
`softmax_best`, the norm rows notebook 09's `rms_norm` and `layer_norm`.

    ./course.sh bench                  # or: python benchmarks/run.py [--quick] [--out DIR]

The kernels and the host functions that launch them are the solution notebooks' exported cells
(`utils/exported/`, loaded by `utils.kernels.load`), so this runs exactly what the notebooks teach. Each
course function is first checked against its torch counterpart, then both are timed on sizes from
launch-bound (4 Ki elements) to bandwidth-bound (256 Mi elements, 1 GiB of float32), next to a
device-to-device copy of the same size.
The timer is torch.utils.benchmark (`utils.bench.fastest_us` on its "loop" clock, the copy's
`gbps_back_to_back`): calls back to back, as a program's loop makes them, so at
small sizes the numbers say how fast each side launches its kernels. Every row is timed in two modes
(`--modes`): eager, the calls themselves, and graphed (rows named "... [graphed]"), where each side's
call is captured once in a CUDA graph by notebook 07's `capture` and the replays are timed back to back,
so eager is compared with eager and graphed with graphed. Each side is timed twice, alternating, and
keeps its better time, so that a clock change in between does not decide a comparison. It prints a
table (GB/s, % of the copy's GB/s, ratio to torch) and writes `results.md`, `results.csv` and
`results.png` to --out. Without a GPU it says so and exits; `--from-csv` rebuilds the table and plot
from an earlier run's results.csv.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

import torch  # noqa: E402

# Goals the table marks: at or above torch at every size; at or above 95% of the copy's GB/s at
# bandwidth-bound sizes. At 2^28 float32 (1 GiB) a read takes about 250 us on an H200, so the few us of
# launching and of a second stage cost about 2%. At 2^26 a read takes 64 us and torch.sum itself reached
# only 94% of the copy (H200, triton 3.6), so smaller sizes are not held to the copy goal.
COPY_GOAL = 0.95
BANDWIDTH_BOUND_ELEMENTS = 2**28
# Within 1% of torch counts as level: two runs on the H200 gave the same kernel at 2^28 up to 5% apart.
LEVEL = 0.99


@dataclass(frozen=True)
class Row:
    """One line of the benchmark: a course function, its torch counterpart, and how to feed both."""

    name: str
    function: str  # a host function that one solution notebook exports (see utils.kernels)
    torch_fn: Callable  # (inputs, out) -> the same result computed by torch
    # (n, device) -> (inputs, out); by default one vector of n floats and a 1-element out
    make: Callable | None = None
    graphed: bool = False  # time replays of a CUDA graph of each side's call instead of the calls
    # A teaching step that a later notebook improves on: the name of the row that holds its final form.
    # The goals apply to that row; this one is timed and shown so that the table says what the step cost.
    step_of: str | None = None

    @property
    def notebook(self) -> str:
        """Where the function is taught: the notebook whose exported cells define it."""
        from utils.kernels import exporting_notebook

        return exporting_notebook(self.function)

    def prepare(self, n: int, device: str):
        return self.make(n, device) if self.make is not None else vector(n, device)


def bytes_moved(inputs, out) -> int:
    """Bytes a kernel must read (every input) and write (out): one float for a full reduction."""
    return sum(t.numel() * t.element_size() for t in (*inputs, out))


def power(n: int) -> str:
    """A size as the table writes it: 2^k for n = 2 ** k."""
    return f"2^{n.bit_length() - 1}"


def vector(n, device, out_size=1):
    return (torch.rand(n, device=device) - 0.25,), torch.empty(out_size, device=device)


def rows_of(columns):
    def make(n, device):
        rows = max(1, n // columns)
        return (torch.rand(rows, columns, device=device) - 0.25,), torch.empty(rows, device=device)

    return make


def softmax_rows_of(columns, dtype=torch.float32):
    def make(n, device):
        rows = max(1, n // columns)
        x = torch.randn(rows, columns, device=device, dtype=dtype)
        return (x,), torch.empty_like(x)

    return make


def norm_rows_of(columns, with_bias, dtype=torch.float32):
    """(x, weight[, bias]) and out for notebook 09's norms: rows of `columns`, one weight per column."""

    def make(n, device):
        rows = max(1, n // columns)
        x = torch.randn(rows, columns, device=device, dtype=dtype)
        weight = (torch.rand(columns, device=device) + 0.5).to(dtype)
        bias = torch.randn(columns, device=device).to(dtype)
        return ((x, weight, bias) if with_bias else (x, weight)), torch.empty_like(x)

    return make


NORM_EPS = 1e-5  # notebook 09's eps, inside the square root


def softmax_backward_rows_of(columns, dtype=torch.float32):
    """(y, dy) and out (dx) for notebook 10's softmax backward: y a softmax of rows of `columns`."""

    def make(n, device):
        rows = max(1, n // columns)
        y = torch.softmax(torch.randn(rows, columns, device=device), dim=1).to(dtype)
        return (y, torch.randn_like(y)), torch.empty_like(y)

    return make


def layer_norm_backward_rows_of(columns, dtype=torch.float32):
    """(x, w, dy, mean, rstd) and out (dx) for notebook 10's LayerNorm backward: the forward's saved mean
    and rstd, in float32, one per row."""

    def make(n, device):
        rows = max(1, n // columns)
        x = torch.randn(rows, columns, device=device, dtype=dtype)
        variance, mean = torch.var_mean(x.float(), dim=1, correction=0)
        w = (torch.rand(columns, device=device) + 0.5).to(dtype)
        inputs = (x, w, torch.randn_like(x), mean, torch.rsqrt(variance + NORM_EPS))
        return inputs, torch.empty_like(x)

    return make


def torch_softmax_backward(inputs, out):
    """The kernel torch's autograd runs for torch.softmax's backward: dx from y and dy."""
    y, dy = inputs
    return torch._softmax_backward_data(dy, y, 1, y.dtype)


def torch_layer_norm_backward(inputs, out):
    """The kernels torch's autograd runs for F.layer_norm's backward (dx, dW and db); dx is compared."""
    x, w, dy, mean, rstd = inputs
    # the bias's values do not enter any gradient: w stands in for it, so that db is computed too
    grads = torch.ops.aten.native_layer_norm_backward(
        dy, x, [x.shape[1]], mean[:, None], rstd[:, None], w, w, [True, True, True]
    )
    return grads[0]


def torch_mean_var(inputs, out):
    """[mean, variance] as a torch user computes them: one var_mean kernel, and the stack into one tensor."""
    return torch.stack(torch.var_mean(inputs[0], correction=0)[::-1])


def torch_rms_norm(inputs, out):
    x, weight = inputs
    return torch.nn.functional.rms_norm(x, x.shape[-1:], weight, eps=NORM_EPS)


def torch_layer_norm(inputs, out):
    x, weight, bias = inputs
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps=NORM_EPS)


ROWS = [
    Row(
        "copy (elementwise)",
        "copy",
        lambda i, out: out.copy_(i[0]),
        make=lambda n, d: ((torch.rand(n, device=d),), torch.empty(n, device=d)),
    ),
    Row(
        "vector add (elementwise)",
        "vector_add",
        lambda i, out: torch.add(*i, out=out),
        make=lambda n, d: ((torch.rand(n, device=d), torch.rand(n, device=d)), torch.empty(n, device=d)),
    ),
    Row("sum, persistent + atomics", "sum_persistent", lambda i, out: i[0].sum(), step_of="sum, one launch"),
    Row("sum, two-stage", "sum_two_stage", lambda i, out: i[0].sum(), step_of="sum, one launch"),
    Row("sum, one launch", "sum_one_launch", lambda i, out: i[0].sum()),
    Row("max, two-stage", "max_two_stage", lambda i, out: i[0].amax(), step_of="max, one launch"),
    Row("max, one launch", "max_one_launch", lambda i, out: i[0].amax()),
    Row("min, two-stage", "min_two_stage", lambda i, out: i[0].amin(), step_of="min, one launch"),
    Row("min, one launch", "min_one_launch", lambda i, out: i[0].amin()),
    Row(
        "L2 norm",
        "l2_norm_fast",
        lambda i, out: torch.linalg.vector_norm(i[0]),
        step_of="L2 norm, one launch",
    ),
    Row("L2 norm, one launch", "l2_norm_one_launch", lambda i, out: torch.linalg.vector_norm(i[0])),
    Row(
        "L1 norm",
        "l1_norm_fast",
        lambda i, out: torch.linalg.vector_norm(i[0], 1),
        step_of="L1 norm, one launch",
    ),
    Row("L1 norm, one launch", "l1_norm_one_launch", lambda i, out: torch.linalg.vector_norm(i[0], 1)),
    Row("count non-zeros", "count_nonzero_fast", lambda i, out: torch.count_nonzero(i[0])),
    Row("logsumexp", "logsumexp_online", lambda i, out: torch.logsumexp(i[0], 0)),
    Row(
        "mean and variance",
        "mean_var",
        torch_mean_var,
        make=lambda n, d: vector(n, d, out_size=2),
        step_of="mean and variance, one launch",
    ),
    Row(
        "mean and variance, one launch",
        "mean_var_one_launch",
        torch_mean_var,
        make=lambda n, d: vector(n, d, out_size=2),
    ),
    Row(
        "row sum, 4096 columns",
        "row_sum_best",
        lambda i, out: i[0].sum(dim=1),
        make=rows_of(4096),
    ),
    Row(
        "row sum, 256 columns",
        "row_sum_best",
        lambda i, out: i[0].sum(dim=1),
        make=rows_of(256),
    ),
    Row(
        "softmax, 128 columns",
        "softmax_best",
        lambda i, out: torch.softmax(i[0], dim=1),
        make=softmax_rows_of(128),
    ),
    Row(
        "softmax, 4096 columns",
        "softmax_best",
        lambda i, out: torch.softmax(i[0], dim=1),
        make=softmax_rows_of(4096),
    ),
    Row(
        "softmax, 4096 columns, float16",
        "softmax_best",
        lambda i, out: torch.softmax(i[0], dim=1),
        make=softmax_rows_of(4096, torch.float16),
    ),
    Row(  # a long row: split across programs where the rows are few or overflow the L2
        "softmax, 262144 columns",
        "softmax_best",
        lambda i, out: torch.softmax(i[0], dim=1),
        make=softmax_rows_of(262144),
    ),
    Row("RMSNorm, 4096 columns", "rms_norm", torch_rms_norm, make=norm_rows_of(4096, False)),
    Row("LayerNorm, 4096 columns", "layer_norm", torch_layer_norm, make=norm_rows_of(4096, True)),
    Row(
        "LayerNorm, 4096 columns, float16",
        "layer_norm",
        torch_layer_norm,
        make=norm_rows_of(4096, True, torch.float16),
    ),
    Row(
        "softmax backward, 4096 columns",
        "softmax_backward_best",
        torch_softmax_backward,
        make=softmax_backward_rows_of(4096),
    ),
    Row(
        "LayerNorm backward, 4096 columns",
        "layer_norm_backward_best",
        torch_layer_norm_backward,
        make=layer_norm_backward_rows_of(4096),
    ),
]


GRAPHED = " [graphed]"


def graphed(row: Row) -> Row:
    """The same row timed as replays of a CUDA graph, on both sides."""
    step_of = row.step_of + GRAPHED if row.step_of else None
    return replace(row, name=row.name + GRAPHED, graphed=True, step_of=step_of)


def course_functions(rows=ROWS, launcher: bool = True) -> dict[str, Callable]:
    """Each row's course function, loaded from its solution notebook (see utils.kernels.load). With
    `launcher`, every kernel of those notebooks is launched through `utils.launch.Launcher` (notebook
    07), as a user who has read 07 would launch them; otherwise through kernel[grid](...), as written."""
    from utils.kernels import load
    from utils.launch import with_launchers

    modules = {nb: load(nb) for nb in sorted({row.notebook for row in rows})}
    if launcher:
        for module in modules.values():
            with_launchers(module)
    functions = {row.name: getattr(modules[row.notebook], row.function) for row in rows}
    return functions | {graphed(row).name: functions[row.name] for row in rows}


def agrees(row: Row, function: Callable, n: int, device: str) -> str | None:
    """None if the course function matches torch on n elements, else what differs."""
    inputs, out = row.prepare(n, device)
    function(*inputs, out)
    got = out.clone()  # before torch runs: some torch counterparts write into out too
    want = row.torch_fn(inputs, out)
    try:
        torch.testing.assert_close(got.double().reshape(want.shape), want.double(), rtol=1e-3, atol=1e-3)
    except AssertionError as error:
        return str(error).splitlines()[0]
    return None


def sizes(quick: bool, free_bytes: int) -> list[int]:
    """Powers of two, launch-bound to bandwidth-bound, capped so 3 vectors fit in a third of free memory."""
    exponents = range(12, 29, 4) if quick else range(12, 29, 2)
    return [2**k for k in exponents if 3 * 4 * 2**k <= free_bytes // 3]


def time_both(row: Row, function: Callable, n: int, device: str) -> tuple[float, float]:
    """GB/s of the course function and of its torch counterpart, on the same inputs, back to back: the
    calls, or for a graphed row replays of each call's CUDA graph. Each side is timed twice, alternating
    with the other, and keeps its better figure."""
    from utils.bench import fastest_us

    inputs, out = row.prepare(n, device)
    moved = bytes_moved(inputs, out)
    calls = {"course": lambda: function(*inputs, out), "torch": lambda: row.torch_fn(inputs, out)}
    if row.graphed:
        from utils.kernels import load

        capture = load("07_launch_bound").capture
        calls = {side: capture(call).replay for side, call in calls.items()}
    us = fastest_us(calls, "loop", rounds=2, min_run_time=0.05)
    return moved / us["course"] / 1e3, moved / us["torch"] / 1e3


def measure(rows, functions, ns, device):
    """{(row name, n): (course GB/s, torch GB/s)} and {n: copy GB/s}, with a progress bar."""
    from tqdm import tqdm

    from utils.bench import copy_gbps, gbps_back_to_back

    copy = {}
    results = {}
    with tqdm(total=len(ns) * (len(rows) + 1), unit="run", desc="benchmark") as bar:
        for n in ns:
            copy[n] = copy_gbps(n, device, timer=gbps_back_to_back)
            bar.update()
            for row in rows:
                bar.set_postfix_str(f"{row.name}, n={power(n)}")
                wrong = agrees(row, functions[row.name], n, device)  # at the size timed, not only n_check
                if wrong:
                    raise RuntimeError(f"{row.name} disagrees with torch at n = {power(n)}: {wrong}")
                results[row.name, n] = time_both(row, functions[row.name], n, device)
                bar.update()
    return results, copy


def table(rows, ns, results, copy):
    """Rows of the printed table, with what falls short of the goals spelled out."""
    lines = []
    for row in rows:
        for n in ns:
            course, reference = results[row.name, n]
            share, ratio = course / copy[n], course / reference
            short = []
            if ratio < LEVEL:
                short.append("below torch")
            if n >= BANDWIDTH_BOUND_ELEMENTS and share < COPY_GOAL:
                short.append(f"below {COPY_GOAL:.0%} of copy")
            goal = ", ".join(short) or "ok"
            if row.step_of:
                goal = f"step ({goal}); goal: '{row.step_of}'"
            lines.append([row.name, power(n), course, f"{share:.0%}", reference, f"{ratio:.2f}x", goal])
    return lines


HEADERS = ["reduction", "elements", "course GB/s", "% of copy", "torch GB/s", "vs torch", "goal"]


def markdown(headers, lines) -> str:
    cells = [[f"{v:,.0f}" if isinstance(v, float) else str(v) for v in line] for line in lines]
    return "\n".join(
        ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        + ["| " + " | ".join(c) + " |" for c in cells]
    )


def plot(rows, ns, results, copy, title):
    """GB/s of each course function (left) and its ratio to torch (right) against size."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
    colours = [plt.get_cmap("tab20")(i) for i in range(20)]  # its 20 colours
    eager = [row.name.removesuffix(GRAPHED) for row in rows]
    for row in rows:
        colour = colours[list(dict.fromkeys(eager)).index(row.name.removesuffix(GRAPHED)) % len(colours)]
        style = "--" if row.graphed else "-"  # a graphed row in its eager row's colour, dashed
        left.plot(ns, [results[row.name, n][0] for n in ns], style, marker="o", color=colour, label=row.name)
        right.plot(
            ns,
            [vs_torch(row, n, results) for n in ns],
            style,
            marker="o",
            color=colour,
            label=row.name,
        )
    left.plot(ns, [copy[n] for n in ns], linestyle="--", color="black", label="device copy (torch)")
    right.axhline(1.0, linestyle="--", color="black", label="torch")
    right.set_yscale("log", base=2)
    right.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}x"))
    for ax, ylabel in ((left, "GB/s"), (right, "course / torch (higher is better)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements (float32)")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    left.legend(fontsize=6, loc="upper left", ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def vs_torch(row: Row, n: int, results) -> float:
    """Course GB/s over torch GB/s for a row at size n."""
    course, reference = results[row.name, n]
    return course / reference


def below_torch(row: Row, ns, results) -> list[str]:
    """The sizes at which a row is below torch, outside the LEVEL band."""
    return [power(n) for n in ns if vs_torch(row, n, results) < LEVEL]


def shortfalls(rows, ns, results) -> list[str]:
    """One line per row: the sizes at which it is below torch, or none; a step says which row is its goal."""
    lines = []
    for row in rows:
        below = below_torch(row, ns, results)
        lines.append(
            f"- {row.name}: "
            + (f"below torch at {', '.join(below)}" if below else "at or above torch at every size")
            + (f" (a step; its final form is the row '{row.step_of}')" if row.step_of else "")
        )
    return lines


def goal_verdict(rows, ns, results) -> str:
    """One line per mode: which reduction rows, steps aside, are below torch at some size."""
    lines = []
    for mode, graphed_mode in (("eager", False), ("graphed", True)):
        held = [
            r for r in rows if r.graphed == graphed_mode and not r.step_of and "elementwise" not in r.name
        ]
        if not held:
            continue
        below = {r.name: below_torch(r, ns, results) for r in held}
        missed = [f"{name} ({', '.join(where)})" for name, where in below.items() if where]
        lines.append(
            f"- {mode}: "
            + (
                f"{len(missed)} of {len(held)} reduction rows below torch at some size: {'; '.join(missed)}"
                if missed
                else f"all {len(held)} reduction rows at or above torch at every size"
            )
        )
    return "\n".join(lines)


def ratio_table(rows, ns, results) -> str:
    """Markdown: each row's course-over-torch ratio at every size, the table the README shows."""
    return markdown(
        ["reduction", *(power(n) for n in ns)],
        [[row.name, *(f"{vs_torch(row, n, results):.2f}x" for n in ns)] for row in rows],
    )


def launch_floor(device: str) -> dict[str, float]:
    """{tier: median µs per call, back to back, over 5 rounds}: an empty Triton launch (notebook 07's
    `empty_kernel`) through each of 07's `launch_tiers`, and torch's cheapest launch (`zero_()` on one
    float): the floor each way of launching puts under an eager call."""
    from utils.bench import repeated_us
    from utils.kernels import load

    notebook = load("07_launch_bound")
    one = torch.zeros(1, device=device)
    calls = notebook.launch_tiers(notebook.empty_kernel, (1, 1, 1), one) | {"torch zero_()": one.zero_}
    return {tier: runs.median for tier, runs in repeated_us(calls, "loop").items()}


def floor_line(floor: dict[str, float]) -> str:
    """The floor as the results and the README print it."""
    tiers = "; ".join(f"{tier} {us:.1f}" for tier, us in floor.items())
    return f"Eager floor, an empty launch back to back (µs per call): {tiers}."


def results_markdown(rows, ns, results, copy, title, floor: dict[str, float] | None = None) -> str:
    """One run's results as markdown: the largest size's table, the rows below torch, the goal's verdict,
    the floor and the ratios at every size. results.md and benchmarks/README.md (benchmarks/tables.py)
    are made of it."""
    largest = power(ns[-1])
    summary = [line for line in table(rows, ns, results, copy) if line[1] == largest]
    if "launched through" not in title:  # a run from before the benchmark had notebook 07's launcher
        title += ", launched through kernel[grid](...)"
    return (
        f"{title}\n\nAt {largest} elements (device copy {copy[ns[-1]]:,.0f} GB/s):\n\n"
        f"{markdown(HEADERS, summary)}\n\nBelow torch, row by row (outside the 1% level band):\n\n"
        + "\n".join(shortfalls(rows, ns, results))
        + f"\n\nThe goal (every reduction row at or above torch at every size; a step's goal is its final "
        f"form's row):\n\n{goal_verdict(rows, ns, results)}"
        + (f"\n\n{floor_line(floor)}" if floor else "")
        + f"\n\nCourse over torch (ratio of GB/s; 0.99x or more counts as level):\n\n"
        f"{ratio_table(rows, ns, results)}"
    )


def results_file(rows, ns, results, copy, title, floor: dict[str, float] | None = None) -> str:
    """results.md: `results_markdown`, then every size's row and the copy's GB/s by size."""
    return (
        results_markdown(rows, ns, results, copy, title, floor)
        + f"\n\nAll sizes:\n\n{markdown(HEADERS, table(rows, ns, results, copy))}\n"
        "\nDevice copy GB/s by size: " + ", ".join(f"{power(n)}: {copy[n]:,.0f}" for n in ns) + "\n"
    )


def report(rows, ns, results, copy, title, out: Path, floor: dict[str, float] | None = None) -> None:
    """Print the table (all sizes, then the largest), and write results.md, results.csv and results.png."""
    from utils.bench import print_table

    rows = without_absent_finals(rows)
    lines = table(rows, ns, results, copy)
    largest = power(ns[-1])
    summary = [line for line in lines if line[1] == largest]
    below = shortfalls(rows, ns, results)
    floor_text = floor_line(floor) if floor else ""
    print(title)
    print_table(HEADERS, lines)
    print(f"\nAt {largest} elements (device copy {copy[ns[-1]]:,.0f} GB/s):")
    print_table(HEADERS, summary)
    print("\nBelow torch (a ratio under the 1% level band):\n" + "\n".join(below))
    verdict = goal_verdict(rows, ns, results)
    print("\nThe goal (every reduction row at or above torch at every size, steps aside):\n" + verdict)
    if floor_text:
        print(floor_text)

    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text(results_file(rows, ns, results, copy, title, floor))
    if floor:
        with open(out / "floor.csv", "w", newline="") as f:
            csv.writer(f).writerows([["tier", "us_per_call"], *([t, f"{us:.3g}"] for t, us in floor.items())])
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            for n in ns:
                writer.writerow(
                    [
                        row.name,
                        row.notebook,
                        row.function,
                        n,
                        f"{results[row.name, n][0]:.4g}",
                        f"{results[row.name, n][1]:.4g}",
                        f"{copy[n]:.4g}",
                        title,
                    ]
                )
    plot(rows, ns, results, copy, title).savefig(out / "results.png", dpi=120)
    print(f"\nwrote {out / 'results.md'}, results.csv{', floor.csv' if floor else ''} and results.png")


CSV_COLUMNS = [
    "reduction",
    "notebook",
    "function",
    "elements",
    "course_gbps",
    "torch_gbps",
    "copy_gbps",
    "measured_on",
]


def read_floor(path: Path) -> dict[str, float] | None:
    """The floor from the floor.csv next to a results.csv, if `report` wrote one."""
    if not (path.parent / "floor.csv").exists():
        return None
    with open(path.parent / "floor.csv", newline="") as f:
        return {r["tier"]: float(r["us_per_call"]) for r in csv.DictReader(f)}


def without_absent_finals(rows: list[Row]) -> list[Row]:
    """The rows, each step whose final form is not among them made a goal row itself: a run that timed a
    step without its final form (an earlier run, or an --only that left it out) holds the step to the
    goals, instead of pointing to a row with no figures."""
    names = {row.name for row in rows}
    return [replace(row, step_of=None) if row.step_of and row.step_of not in names else row for row in rows]


def read_csv(path: Path) -> tuple[list[Row], list[int], dict, dict[int, float], str]:
    """(rows, sizes, results, copy, title) from a results.csv that `report` wrote."""
    with open(path, newline="") as f:
        records = list(csv.DictReader(f))
    by_name = {row.name: row for row in ROWS} | {graphed(row).name: graphed(row) for row in ROWS}
    unknown = {r["reduction"] for r in records} - set(by_name)
    if unknown:
        raise SystemExit(f"{path}: rows this version of the benchmark does not know: {sorted(unknown)}")
    rows = without_absent_finals([by_name[name] for name in dict.fromkeys(r["reduction"] for r in records)])
    ns = sorted({int(r["elements"]) for r in records})
    results = {
        (r["reduction"], int(r["elements"])): (float(r["course_gbps"]), float(r["torch_gbps"]))
        for r in records
    }
    copy = {int(r["elements"]): float(r["copy_gbps"]) for r in records}
    return rows, ns, results, copy, records[0]["measured_on"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="five sizes instead of nine")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "results",
        help="folder for results.md, results.csv and results.png (default: %(default)s)",
    )
    parser.add_argument("--only", nargs="*", help="benchmark only rows whose name contains one of these")
    parser.add_argument(
        "--modes",
        nargs="+",
        choices=["eager", "graphed"],
        default=["eager", "graphed"],
        help="eager calls, replays of CUDA graphs, or both (default: both)",
    )
    parser.add_argument(
        "--jit",
        action="store_true",
        help="launch the kernels through kernel[grid](...), as the notebooks write them, instead of through "
        "utils.launch.Launcher (notebook 07)",
    )
    parser.add_argument(
        "--from-csv",
        type=Path,
        metavar="CSV",
        help="no timing: rebuild the table and plot from an earlier run's results.csv",
    )
    args = parser.parse_args(argv)
    if args.from_csv:
        report(*read_csv(args.from_csv), args.out, floor=read_floor(args.from_csv))
        return 0
    if not torch.cuda.is_available():
        print(
            "No CUDA GPU here: the benchmark measures GPU memory bandwidth, so there is nothing to run "
            "(on a CPU the Triton interpreter times Python, not kernels)."
        )
        return 0

    from utils.bench import versions

    device = "cuda"
    rows = [r for r in ROWS if not args.only or any(word in r.name for word in args.only)]
    functions = course_functions(rows, launcher=not args.jit)
    n_check = 3 * 2**16 + 7  # not a multiple of any block: the masked tail is exercised
    wrong = {row.name: why for row in rows if (why := agrees(row, functions[row.name], n_check, device))}
    for name, why in wrong.items():
        print(f"{name}: the course function disagrees with torch, so it is not timed: {why}")
    rows = [r for r in rows if r.name not in wrong]
    rows = [r for r in rows if "eager" in args.modes] + [graphed(r) for r in rows if "graphed" in args.modes]
    ns = sizes(args.quick, torch.cuda.mem_get_info()[0])
    results, copy = measure(rows, functions, ns, device)
    floor = launch_floor(device)
    from utils.setup import gpu_driver

    properties = torch.cuda.get_device_properties(0)
    title = (
        f"{versions()}, driver {gpu_driver()}, {properties.multi_processor_count} SMs, "
        f"{date.today().isoformat()}, launched through "
        + ("kernel[grid](...)" if args.jit else "utils.launch.Launcher")
    )
    report(rows, ns, results, copy, title, args.out, floor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
