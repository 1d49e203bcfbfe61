"""Look inside a call: what each Triton launch left in the scratch tensors it was given.

    with recording(known=[x, out]) as stages:
        sum_two_stage(x, out)
    stages[0].kernel, stages[0].grid, stages[0].scratch   # 'partial_sum_kernel', (4,), [tensor([...])]

A multi-stage reduction passes partials from one launch to the next through scratch tensors (or keeps
them in a workspace, for a one-launch one). When only the final output is judged, a right stage 1
followed by a wrong combine looks like any other wrong result. utils.checker.runner re-runs a failing case
under `recording` and utils.checker.describe compares each snapshot with the input's tiles
(`partials_finding`), so the report can say "the partials are right; the error comes after them".

A snapshot is taken of every tensor argument of a launch that is not one of `known` (the inputs and
out) and shares no memory with them, as float64 on the CPU, right after the launch returns. It wraps
the `run` that every launch calls (utils.launches.wrapped_launches), on a GPU and in the interpreter.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import _disable_current_modes

from utils.checker.data import padded, tiles
from utils.launches import kernel_name, wrapped_launches


@dataclass(frozen=True)
class Stage:
    """One launch: the kernel's name, its grid as given, and copies of its scratch tensors after it:
    the floating-point ones (partials) in `scratch`, the integer ones (a ticket, a counter) in
    `counters`; `programs`, the grid's number of programs, when it can be read off the grid."""

    kernel: str
    grid: object
    scratch: list[torch.Tensor]
    counters: list[torch.Tensor] = field(default_factory=list)
    programs: int | None = None


def _programs(grid: object, meta: dict) -> int | None:
    """The number of programs of a launch's grid: a tuple of ints, or a function of the launch's
    keyword arguments (the meta-parameters); None when neither gives one."""
    if callable(grid):
        try:
            grid = grid(meta)
        except Exception:  # a grid function that needs what only the JIT binds: not known here
            return None
    if isinstance(grid, int):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)) or not all(isinstance(g, int) for g in grid):
        return None
    return math.prod(grid)


def _overlaps(a: torch.Tensor, others: list[torch.Tensor]) -> bool:
    start = a.untyped_storage().data_ptr()
    end = start + a.untyped_storage().nbytes()
    for b in others:
        b_start = b.untyped_storage().data_ptr()
        if b_start < end and start < b_start + b.untyped_storage().nbytes():
            return True
    return False


@contextlib.contextmanager
def recording(known: list[torch.Tensor], into: list[Stage] | None = None) -> Iterator[list[Stage]]:
    """Record every Triton launch made inside the block, with copies of its scratch tensors after it,
    into the list it yields (`into`, if given)."""
    stages: list[Stage] = [] if into is None else into

    def wrap(original):
        def run(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            tensors = [
                a
                for a in list(args) + list(kwargs.values())
                if isinstance(a, torch.Tensor) and not _overlaps(a, known)
            ]
            # Outside any dispatch mode: a launch counter (utils.launches.counting) must not count these.
            with _disable_current_modes():
                scratch = [a.detach().double().cpu().clone() for a in tensors if a.is_floating_point()]
                counters = [a.detach().cpu().clone() for a in tensors if not a.is_floating_point()]
            grid = kwargs.get("grid")
            stages.append(Stage(kernel_name(self), grid, scratch, counters, _programs(grid, kwargs)))
            return result

        return run

    with wrapped_launches(wrap):
        yield stages


__all__ = ["Stage", "recording"]


# ----------------------------------------------------------------------------------------------------
# Comparing the snapshots with the input's tiles

# What a stage 1 may keep per tile: name, tile reducer (rows of tiles -> one value each), its padding.
_PARTIALS = [
    ("sum", lambda t: t.sum(1), 0.0),
    ("maximum", lambda t: t.max(1).values, -torch.inf),
    ("minimum", lambda t: t.min(1).values, torch.inf),
    ("sum of squares", lambda t: (t * t).sum(1), 0.0),
    ("sum of absolute values", lambda t: t.abs().sum(1), 0.0),
    ("count of non-zeros", lambda t: (t != 0).double().sum(1), 0.0),
]
_SUMS = {"sum", "sum of squares", "sum of absolute values"}


def _close(got: torch.Tensor, want: torch.Tensor, scale: torch.Tensor, rounding: bool) -> bool:
    if got.shape != want.shape:
        return False
    if not rounding:
        return bool((got == want).all())
    # an infinite partial is matched by itself alone: a tolerance scaled by it would take any finite value
    finite = want.isfinite() & scale.isfinite()
    tol = torch.where(finite, 1e-5 * want.abs() + 1e-5 * scale, 0.0)
    near = torch.where(finite, (got - want).abs() <= tol, got == want)
    return bool(near.all())


def partials_finding(
    x: torch.Tensor, stages: list[Stage], out_written: bool = True
) -> tuple[str, bool] | None:
    """The first scratch, in launch order, that holds the right partial of every tile of some power-of-two
    size of the 1-D input `x` (float64), one per tile or one per program of a persistent grid (program p:
    tiles p, p + P, ...), as a sentence, and whether every other scratch of that launch holds right
    partials too (a launch that writes maxima and sums, say, may have right maxima and wrong sums, or
    maxima and an integer scratch of their indices: the error then need not come after it); None if no
    scratch does. Tiles whose partials are all equal (an input of zeros, or of ties) prove nothing. Later
    launches show the same scratch again, so the first is the one to name. `out_written`: whether the run
    stored into out (a combine ran), for what a scratch's extra slots would do to it."""
    for i, stage in enumerate(stages):
        found = [_right_partials(x, scratch.reshape(-1), out_written) for scratch in stage.scratch]
        # An integer scratch of more than one element (a ticket is one) holds partials too (an argmax's
        # indices): not judged here.
        indices = any(c.numel() > 1 for c in stage.counters)
        for scratch, said in zip(stage.scratch, found):
            if said is not None:
                where = f"after launch {i + 1} ({stage.kernel}), a scratch of {scratch.numel()} holds"
                return f"{where} {said}", all(f is not None for f in found) and not indices
    return None


def _right_partials(x: torch.Tensor, flat: torch.Tensor, out_written: bool = True) -> str | None:
    """What right partials of x the scratch `flat` holds (see partials_finding), in words; None if none.
    Where several reductions give the same partials (the sum and the sum of absolute values of positive
    data), all are named."""
    found: list[tuple[str, int, str, float]] = []  # (reduction, tile, form, pad), form "tile" or "program"
    for name, reduce, pad in _PARTIALS:
        rounding = name in _SUMS
        for b in (2**k for k in range(5, 17)):
            by_tile = tiles(x, b, pad)
            if len(by_tile) < 2 or len(by_tile) > len(flat):
                continue
            per_tile = reduce(by_tile)
            if per_tile.unique().numel() < 2:  # every tile's partial the same (zeros, ties): no evidence
                continue
            scale = reduce(by_tile.abs()).abs() if rounding else per_tile.abs()
            if _close(flat[: len(by_tile)], per_tile, scale, rounding):
                found.append((name, b, "tile", pad))
            programs = len(flat)
            if 1 < programs < len(by_tile):  # a persistent grid: program p strides over tiles
                per_program = padded(per_tile, programs, pad).view(-1, programs)
                extreme = name in ("maximum", "minimum")
                strided = reduce(per_program.t()) if extreme else per_program.sum(0)
                if _close(flat, strided, scale.sum() if rounding else strided.abs(), rounding):
                    found.append((name, b, "program", pad))
    if not found:
        return None
    _, b, form, pad = found[0]
    names = [name for name, size, how, _ in found if (size, how) == (b, form)]
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if form == "tile":
        count = -(-x.numel() // b)
        rest = flat[count:]
        if len(rest) and not bool((rest == pad).all()):  # slots past the tiles: a combine that reads them
            # takes them in; said only where out was written, by a combine that may have read them
            reads = " (a combine that reads every slot takes them in)" if out_written else ""
            return (
                f"the right {said} of each tile of {b} elements in its first {count} slots, and in its "
                f"other {len(rest)} values that are no tile's {said}{reads}"
            )
        return f"the right {said} of each tile of {b} elements"
    return f"the right {said} of the tiles of {b} elements that each of {len(flat)} programs strides over"


@contextlib.contextmanager
def programs_reversed() -> Iterator[bool]:
    """In Triton's interpreter, run every launch's programs in the reverse order: program i is given the
    id of program (grid - 1 - i) on each axis. The interpreter runs programs one after another in order,
    so a race (two programs storing one element) always ends the same way there; run both ways, a result
    that changes shows the race. Yields False, and changes nothing, where the interpreter's builder is
    not the one this expects (another Triton version): the caller then has no evidence either way."""
    try:
        from triton.runtime import interpreter
    except ImportError:  # pragma: no cover - every supported triton has it
        yield False
        return
    builder: Any = getattr(interpreter, "interpreter_builder", None)
    original = getattr(type(builder), "set_grid_idx", None)
    if builder is None or original is None or not hasattr(builder, "set_grid_dim"):
        yield False
        return

    def set_grid_idx(self, x, y, z):
        nx, ny, nz = self.grid_dim
        original(self, nx - 1 - x, ny - 1 - y, nz - 1 - z)

    builder.set_grid_idx = set_grid_idx.__get__(builder)
    try:
        yield True
    finally:
        del builder.set_grid_idx


def counter_values(stages: list[Stage]) -> tuple[int, ...] | None:
    """The integer scratch (a ticket) as the call's last launch left it; None if the call had none or
    it is large (a table of flags, not a counter)."""
    if not stages or not stages[-1].counters:
        return None
    values = torch.cat([c.flatten() for c in stages[-1].counters])
    return tuple(int(v) for v in values) if values.numel() <= 4 else None


def slots_left(calls: list[list[Stage]]):
    """From the launches of four calls (after A, a call C, after B, C again): (slots, numel) of the first
    scratch in which C's launch left slots as A's launch wrote them, and as B's did after B, where A's and
    B's differ: the slots C's programs did not write; None if there are none."""
    if not all(calls):
        return None
    for s, t, u, v in zip(*(launches[-1].scratch for launches in calls)):
        if not s.shape == t.shape == u.shape == v.shape:
            continue
        left = ((t == s) & (v == u) & (s != u)).reshape(-1)
        if left.any():
            return left.nonzero().flatten().tolist(), s.numel()
    return None
