"""One simulator of the course's tiled reduction of a 1-D input, stage by stage: a mistake is a setting.

The course's kernels that reduce a whole array (notebooks 02, 03, 04 and 07) share their stages:
1. **tiles**: the input cut into tiles of BLOCK_SIZE lanes; a lane past the end loads `other=` (the
   reduction's identity, when right);
2. **programs**: which tiles each program reduces (one tile per program, or a persistent program that
   strides over them), and which tiles the grid covers at all;
3. **the combine across programs**: atomics (every partial reduced into out), a plain store (the last
   writer's partial stays), or a scratch of partials and a stage 2 with its own block and padding.

`TiledReduction(x, reduction)` holds one case's input. `program_partials` runs stages 1 and 2 with the
settings of a learner's kernel, `combined` runs stage 3, and the result is what the kernel would leave
in out: Alternatives (a race leaves one per program that may have won). An argmax is reduced as the max of
each element's rank in its order (`argmax_ranks`): the index is the winning rank's element. The
families predict a mistake by calling them with its settings (utils.checker.families.reductions and
.sums); the right settings give the right answer (tests/test_tiled.py).

Why a simulator of partials, not the interpreter running a kernel with the mistake: a case is predicted
for 17 block sizes and dozens of settings each, thousands of interpreted launches. Here each block
size's tile partials are computed once and every setting reuses them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch

from utils.checker.predictions import Alternatives

Tiles = Literal["all", "whole", "first"] | int
Offsets = Literal["pid * BLOCK_SIZE", "none", "pid"]
Stride = Literal["grid", "tile"]
Accumulate = Literal["every tile", "last tile"]
Combine = Literal["atomic", "stage 2", "store", "any store"]


@dataclass(frozen=True)
class Reduction:
    """How a whole-array reduction behaves: what the simulator needs of it."""

    reduce: Callable[[torch.Tensor], torch.Tensor]  # 1-D float64 -> 0-d
    reduce_tiles: Callable[[torch.Tensor], torch.Tensor]  # (tiles, BLOCK_SIZE) -> one result per tile
    prefix: Callable[[torch.Tensor], torch.Tensor]  # 1-D -> [reduce(x[:1]), reduce(x[:2]), ...]
    identity: float  # what a masked lane must load
    wrong_others: tuple[float, ...]  # paddings a learner might use instead
    idempotent: bool = False  # reducing copies of a value gives the value (max, min)


REDUCTIONS = {
    "sum": Reduction(
        lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.cumsum(0), 0.0, (-math.inf, math.inf, 1.0)
    ),
    "max": Reduction(
        lambda t: t.max(),
        lambda t: t.max(1).values,
        lambda t: t.cummax(0).values,
        -math.inf,
        (0.0, math.inf),
        idempotent=True,
    ),
    "min": Reduction(
        lambda t: t.min(),
        lambda t: t.min(1).values,
        lambda t: t.cummin(0).values,
        math.inf,
        (0.0, -math.inf),
        idempotent=True,
    ),
    "logsumexp": Reduction(
        lambda t: t.logsumexp(0),
        lambda t: t.logsumexp(1),
        lambda t: t.logcumsumexp(0),
        -math.inf,
        (0.0, 1.0),
    ),
}


def argmax_ranks(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(ranks, order) for a 1-D x: ranks[i] is x[i]'s place in torch.argmax's order (NaN above every
    number; among equal values, the lower index above), and order[r] the element of rank r, both float64.
    The max of the ranks of any set of elements is the rank of torch.argmax's winner among them, so the
    simulator runs an argmax as a max of ranks, and `order` turns the winning rank back into an index."""
    n = x.numel()
    nan = x.isnan().numpy()
    values = np.where(nan, 0.0, x.double().numpy())
    order = np.lexsort((-np.arange(n), values, nan))  # ascending: NaN last, then the lowest index last
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.arange(n)
    return torch.from_numpy(ranks), torch.from_numpy(order).double()


@dataclass(frozen=True)
class Stage2:
    """How a second stage reads the partials: in blocks of `block` (None: one block of
    triton.next_power_of_2(partials)), looping over them or reading the first block only (`loop=False`);
    its masked lanes load `other` (None: the identity)."""

    block: int | None = None
    loop: bool = True
    other: float | None = None


class TiledReduction:
    """One case's 1-D input, reduced the way the course's kernels do, with any stage set as a mistake
    sets it. Each block size's partials are computed once (a case asks for 17 sizes)."""

    def __init__(self, x: torch.Tensor, reduction: Reduction):
        self.x = x.double().reshape(-1)
        self.n = self.x.numel()
        self.reduction = reduction
        self._full_tiles: dict[int, torch.Tensor] = {}  # block -> partials of the tiles with no masked lane
        self._tiles: dict[tuple[int, float], torch.Tensor] = {}  # (block, other) -> every tile's partial
        self._suffix_memo: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # id -> (partials, suffixes)
        self._running_sum: torch.Tensor | None = None
        self._last_reduced: tuple[torch.Tensor, torch.Tensor] | None = None

    def grid(self, block: int) -> int:
        """triton.cdiv(n, block): the right number of programs of one tile each."""
        return -(-self.n // block)

    def tile_partials(self, block: int, other: float | None = None) -> torch.Tensor:
        """Stage 1: each tile's reduction, the last tile's masked lanes loading `other` (None: the
        identity)."""
        how, whole = self.reduction, self.n // block
        other = how.identity if other is None or not self.n % block else other
        if (block, other) not in self._tiles:
            if block not in self._full_tiles:
                body = self.x[: whole * block].view(whole, block)
                self._full_tiles[block] = how.reduce_tiles(body) if whole else self.x.new_empty(0)
            partials = self._full_tiles[block]
            if self.n % block:
                pad = self.x.new_full((-self.n % block,), other)
                tail = how.reduce(torch.cat([self.x[whole * block :], pad]))
                partials = torch.cat([partials, tail.reshape(1)])
            self._tiles[block, other] = partials
        return self._tiles[block, other]

    def program_partials(
        self,
        block: int,
        *,
        other: float | None = None,
        tiles: Tiles = "all",
        offsets: Offsets = "pid * BLOCK_SIZE",
        programs: int | None = None,
        stride: Stride = "grid",
        accumulate: Accumulate = "every tile",
    ) -> torch.Tensor:
        """Stage 2: what each program reduced, in program order.

        `tiles`: the grid covers them "all" (triton.cdiv(n, BLOCK_SIZE) programs), only the "whole" ones
        (n // BLOCK_SIZE: the ragged tail left out), the "first" alone (one program, no loop), or the
        first k (a grid computed for another block size).
        `offsets`: "pid * BLOCK_SIZE" (right); "none" (every program reads the first tile); "pid" (program
        p reads x[p : p + BLOCK_SIZE], masked at n; sums only).
        `programs`: None, one program per tile; P, a persistent grid of P programs looping over the tiles,
        `stride` tiles a step: "grid" (P, right) or "tile" (1: program p reduces tile p and every tile
        after it). A program with no tile to reduce contributes the identity.
        `accumulate`: a persistent program reduces "every tile" it visits, or keeps its "last tile" only
        (the loop assigns to its accumulator instead of combining into it)."""
        how = self.reduction
        partials = self.tile_partials(block, other)
        if tiles == "whole":
            partials = partials[: self.n // block]
        elif tiles == "first":
            partials = partials[:1]
        elif not isinstance(tiles, str):
            partials = partials[:tiles]
        if offsets == "none":
            partials = partials[:1].expand(len(partials))
        elif offsets == "pid":
            if how is not REDUCTIONS["sum"]:
                raise ValueError("offsets='pid' is simulated for sums only")
            partials = self._windows(block, len(partials))
        if programs is None:
            return partials
        count = len(partials)
        if stride == "tile":  # program p: tiles p .. count - 1; programs past the tiles reduce nothing
            idle = partials.new_full((max(programs - count, 0),), how.identity)
            return torch.cat([self._suffixes(partials)[:programs], idle])
        if accumulate == "last tile":  # program p's last tile is the last t < count with t % P == p
            kept = partials[max(count - programs, 0) :]
            idle = partials.new_full((max(programs - count, 0),), how.identity)
            return torch.cat([kept.roll(count % programs) if count >= programs else kept, idle])
        # program p: tiles p, p + P, p + 2P, ... (the padding: programs past the tiles reduce nothing)
        padding = partials.new_full((-count % programs,), how.identity)
        return how.reduce_tiles(torch.cat([partials, padding]).view(-1, programs).T)

    @staticmethod
    def one_partial(partials: torch.Tensor, which: Literal["first", "last"], times: int) -> torch.Tensor:
        """`partials` with the first or the last one left out (`times` 0: its program skipped its atomic
        or its store, or stage 2's mask left its slot out) or counted twice (`times` 2)."""
        index = 0 if which == "first" else len(partials) - 1
        copies = partials[index : index + 1].expand(times)
        return torch.cat([partials[:index], copies, partials[index + 1 :]])

    def _suffixes(self, partials: torch.Tensor) -> torch.Tensor:
        """For each t, the reduction of partials[t:], remembered per tensor (a case tries 21 grids)."""
        memo = self._suffix_memo.get(id(partials))
        if memo is None or memo[0] is not partials:
            memo = self._suffix_memo[id(partials)] = (
                partials,
                self.reduction.prefix(partials.flip(0)).flip(0),
            )
        return memo[1]

    def _windows(self, block: int, count: int) -> torch.Tensor:
        """The sums of x[p : p + block] for p < count (offsets pid + tl.arange(0, BLOCK_SIZE))."""
        if self._running_sum is None:
            self._running_sum = torch.cat([self.x.new_zeros(1), self.x.cumsum(0)])
        starts = torch.arange(count)
        return self._running_sum[(starts + block).clamp(max=self.n)] - self._running_sum[starts]

    def combined(
        self, partials: torch.Tensor, combine: Combine = "atomic", stage_2: Stage2 = Stage2()
    ) -> Alternatives:
        """Stage 3: what out[0] holds once the programs' partials are combined, as alternatives.

        "atomic": every partial reduced into out (reset to the identity); "stage 2": a second kernel
        reduces the scratch of partials as `stage_2` says; "store": each program stores its partial
        into out, and the last one's stays (the interpreter runs programs in order); "any store": the
        same on a GPU, where any program may be the last. With no partial at all (a grid of no program),
        out either keeps what it held (nothing written) or, reset or reduced by a stage 2, holds the
        identity."""
        how = self.reduction
        if not len(partials):
            return Alternatives.none_written(1) + Alternatives.of([how.identity])
        return Alternatives.of(self._combined_values(partials, combine, stage_2).reshape(-1, 1))

    def _combined_values(self, partials: torch.Tensor, combine: Combine, stage_2: Stage2) -> torch.Tensor:
        how = self.reduction
        if combine == "store":
            return partials[-1:]
        if combine == "any store":
            return partials
        if combine == "stage 2":
            block = stage_2.block or 1 << (len(partials) - 1).bit_length()
            if not stage_2.loop:
                partials = partials[:block]
            pad = how.identity if stage_2.other is None else stage_2.other
            padding = partials.new_full((-len(partials) % block,), pad)
            # The padding joins the reduction of the partials, reduced once (a case tries many paddings)
            return how.reduce(torch.cat([self._reduced(partials).reshape(1), padding])).reshape(1)
        return self._reduced(partials).reshape(1)

    def _reduced(self, partials: torch.Tensor) -> torch.Tensor:
        """The reduction of `partials`, remembered for the last tensor asked about."""
        if self._last_reduced is None or self._last_reduced[0] is not partials:
            self._last_reduced = (partials, self.reduction.reduce(partials))
        return self._last_reduced[1]
