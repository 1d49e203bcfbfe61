"""Bandwidth benchmarks for the notebooks: GB/s from `triton.testing.do_bench`, and a copy-bandwidth ceiling.

Reductions and elementwise kernels do almost no arithmetic per byte, so the honest yardstick is memory
bandwidth: bytes moved divided by time, compared with what a plain device-to-device copy achieves in the
same run. On the CPU interpreter timings measure Python, not a GPU, so the notebooks skip them.
`sectors_touched` explains one cause of a low figure without timing anything: how many 32-byte pieces of
memory neighbouring lanes of a load touch, computed from a view's strides.
"""

from __future__ import annotations

import torch

NO_GPU_NOTE = ("Benchmark skipped: no GPU here. In the interpreter a timing measures Python, not memory "
               "bandwidth; run this notebook on a GPU (e.g. Colab's T4) to see real numbers.")


def gbps(fn, bytes_moved: int) -> float:
    """Median GB/s of `fn()` (which moves `bytes_moved` bytes), timed by triton.testing.do_bench."""
    import triton.testing

    ms = triton.testing.do_bench(fn, return_mode="median")
    return bytes_moved / (ms * 1e-3) / 1e9


def gbps_back_to_back(fn, bytes_moved: int, min_run_time: float = 0.2) -> float:
    """Median GB/s of `fn()` called back to back, as a program's loop calls it, by torch.utils.benchmark.

    Unlike `gbps`, every call pays its launch overhead in full and the L2 cache stays warm between calls:
    at small sizes this measures how fast the host launches kernels, which is what a caller waits for.
    """
    from torch.utils.benchmark import Timer

    measurement = Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=min_run_time)
    return bytes_moved / measurement.median / 1e9


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


def versions() -> str:
    """The GPU and software a measurement came from, to print next to the numbers."""
    import triton

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    return f"{gpu}, torch {torch.__version__}, triton {triton.__version__}"


def print_table(headers: list[str], rows: list[list]) -> None:
    """A plain aligned text table: numbers right-aligned, floats with one decimal."""
    cells = [headers] + [[f"{v:,.1f}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))


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
