"""Count the GPU work one call asks for: Triton launches and torch operations that run on the device.

    with counting() as seen:
        sum_two_stage(x, out)
    seen.triton   # ['partial_sum_kernel', 'sum_partials_kernel']
    seen.torch    # ['aten.zero_.default'] and the like: each a launch of its own (or a memset)

Notebook 07 uses it to show where a launcher's calls go, and the checker (utils.checker.runner) to hold a
one-launch exercise to exactly one Triton launch and no torch operation. It counts the same way on a GPU and
in the interpreter, because it counts requests rather than kernels: a Triton launch is a call of a
`@triton.jit` function's `run` (what `kernel[grid](...)` does, autotuned or not, and what a
`utils.launch.Launcher` does while this module watches), and a torch operation
is an ATen operation seen by a `TorchDispatchMode` that computes or writes values. Allocations
(`torch.empty`: the caching allocator, no kernel), views and metadata are not counted, and neither are
the copies the interpreter makes of a launch's arguments.

`limited_programs` stops any launch over a number of programs before it runs: the checker's time budget
in the interpreter, which runs programs one after another.

Why not `torch.profiler`: it sees kernels only on a GPU, and then also Triton's own internal launches
(none today, but a cache warm-up would count), while a lesson and a test both need the same count on a CPU.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

from torch.utils._python_dispatch import TorchDispatchMode

# ATen operations that only allocate or describe memory: no kernel runs for them.
_FREE = {
    "empty",
    "empty_strided",
    "empty_like",
    "new_empty",
    "new_empty_strided",
    "resize_",
    "set_",
    "_local_scalar_dense",  # .item(): a copy to the host, counted apart below
}


@dataclass
class Launches:
    """What one stretch of code asked the device to do."""

    triton: list[str] = field(default_factory=list)  # kernel names, one per launch
    torch: list[str] = field(default_factory=list)  # ATen operations that run a kernel or a memset
    to_host: int = 0  # .item() and the like: each waits for the GPU

    @property
    def total(self) -> int:
        return len(self.triton) + len(self.torch)

    def describe(self) -> str:
        """'2 Triton launches (a_kernel, b_kernel) and 1 torch operation (zero_)', for a report."""
        parts = []
        if self.triton:
            s = "" if len(self.triton) == 1 else "es"
            parts.append(f"{len(self.triton)} Triton launch{s} ({', '.join(self.triton)})")
        if self.torch:
            names = ", ".join(op.split(".")[1] if op.startswith("aten.") else op for op in self.torch)
            s = "" if len(self.torch) == 1 else "s"
            parts.append(f"{len(self.torch)} torch operation{s} on the device ({names})")
        if self.to_host:
            parts.append(f"{self.to_host} copy to the host (.item(), .tolist(), print of a tensor)")
        return " and ".join(parts) or "nothing on the device"


class _TorchOps(TorchDispatchMode):
    def __init__(self, record: Launches):
        super().__init__()
        self.record = record
        self.paused = 0  # > 0 while a Triton launch runs: the interpreter's own copies are not the caller's

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not self.paused:
            name = func.__name__.split(".")[0]
            schema = func._schema
            is_view = any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)
            if name == "_local_scalar_dense":
                self.record.to_host += 1
            elif name not in _FREE and not is_view and _touches_values(func, args, kwargs):
                self.record.torch.append(str(func))
        return func(*args, **kwargs)


def _touches_values(func, args, kwargs) -> bool:
    """False for operations that only read metadata (sizes, strides), which return no tensor."""
    returns = func._schema.returns
    return any(str(r.type).startswith("Tensor") for r in returns) or func._schema.is_mutable


def _jit_classes() -> list[Any]:
    """The classes whose `run` a launch calls: the compiler's JITFunction and the interpreter's."""
    import triton.runtime.jit as jit

    classes = [jit.JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        classes.append(InterpretedFunction)
    except ImportError:  # pragma: no cover - every supported triton has it
        pass
    return classes


def kernel_name(kernel) -> str:
    """A launched kernel's name: its own, or its Python function's (an autotuner's, say)."""
    return str(
        getattr(kernel, "__name__", None) or getattr(getattr(kernel, "fn", None), "__name__", "kernel")
    )


@contextlib.contextmanager
def wrapped_launches(wrap):
    """Inside the block, every launch's `run` (see _jit_classes) is `wrap(original run)`: how this module
    counts launches, and utils.checker.stages looks at what each one left behind."""
    from utils import launch

    originals = {cls: cls.run for cls in _jit_classes()}
    for cls, original in originals.items():
        cls.run = wrap(original)
    launch.watchers += 1  # a utils.launch.Launcher goes through `run` too while this block runs
    try:
        yield
    finally:
        launch.watchers -= 1
        for cls, original in originals.items():
            cls.run = original


@contextlib.contextmanager
def counting():
    """Record every Triton launch and every device-side torch operation made inside the block."""
    record = Launches()
    mode = _TorchOps(record)

    def wrap(original):
        def run(self, *args, **kwargs):
            record.triton.append(kernel_name(self))
            mode.paused += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                mode.paused -= 1

        return run

    with wrapped_launches(wrap), mode:
        yield record


class TooManyPrograms(Exception):
    """A launch that `limited_programs` stopped before it ran: its kernel and its number of programs."""

    def __init__(self, kernel: str, programs: int):
        super().__init__(f"{kernel}: a launch of {programs:,} programs")
        self.kernel, self.programs = kernel, programs


def _programs(grid, kwargs) -> int | None:
    """How many programs a launch's grid asks for (a tuple, an int, or a function of the meta-parameters)."""
    if callable(grid):
        try:
            grid = grid(kwargs)
        except Exception:  # a grid function this cannot evaluate: not limited
            return None
    dims = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
    try:
        return math.prod(int(d) for d in dims)
    except (TypeError, ValueError):
        return None


@contextlib.contextmanager
def limited_programs(limit: int):
    """Inside the block, a launch of more than `limit` programs raises TooManyPrograms instead of running.
    The interpreter runs a kernel's programs one after another, about a millisecond each: utils.checker.runner
    uses this to skip a case that would take minutes once the battery has already failed."""

    def wrap(original):
        def run(self, *args, **kwargs):
            programs = _programs(kwargs.get("grid"), kwargs)
            if programs is not None and programs > limit:
                name = kernel_name(self)
                raise TooManyPrograms(name, programs)
            return original(self, *args, **kwargs)

        return run

    with wrapped_launches(wrap):
        yield


def launches_of(fn, *args) -> Launches:
    """What one call `fn(*args)` asks the device to do (see `counting`)."""
    with counting() as record:
        fn(*args)
    return record


__all__ = [
    "Launches",
    "TooManyPrograms",
    "counting",
    "launches_of",
    "limited_programs",
    "wrapped_launches",
    "kernel_name",
]
