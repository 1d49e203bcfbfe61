"""utils.checker.tiled: the right settings give the right answer, and each wrong setting the effect a kernel
with that mistake has, on inputs small enough to work out by hand."""

import math

import pytest
import torch

from utils.checker.tiled import REDUCTIONS, Stage2, TiledReduction, argmax_ranks

X = torch.arange(1.0, 11.0)  # 1 .. 10: tiles of 4 are [1..4], [5..8], [9, 10] and two masked lanes


def _sum() -> TiledReduction:
    return TiledReduction(X, REDUCTIONS["sum"])


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("block", [1, 3, 4, 16])
def test_right_settings_give_the_reduction(op, block):
    x = torch.randn(37, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    sim = TiledReduction(x, REDUCTIONS[op])
    expected = REDUCTIONS[op].reduce(x)
    for programs in (None, 1, 2, 5, 64):  # one tile per program, or persistent grids, some past the tiles
        partials = sim.program_partials(block, programs=programs)
        for combine, stage_2 in (("atomic", Stage2()), ("stage 2", Stage2()), ("stage 2", Stage2(2))):
            torch.testing.assert_close(
                sim.combined(partials, combine, stage_2).values, expected.reshape(1, 1)
            )


def test_tiles_and_padding():
    sim = _sum()
    assert sim.grid(4) == 3
    assert sim.tile_partials(4).tolist() == [10.0, 26.0, 19.0]
    assert sim.tile_partials(4, other=1.0).tolist() == [10.0, 26.0, 21.0]  # two masked lanes load 1.0
    assert sim.tile_partials(5, other=1.0).tolist() == [15.0, 40.0]  # no masked lane: other= is unread
    maxima = TiledReduction(-X, REDUCTIONS["max"])
    assert maxima.tile_partials(4, other=0.0).tolist() == [-1.0, -5.0, 0.0]  # a max padded with 0.0


def test_which_tiles_the_programs_reduce():
    sim = _sum()
    assert sim.program_partials(4, tiles="whole").tolist() == [10.0, 26.0]  # n // BLOCK_SIZE programs
    assert sim.program_partials(4, tiles="first").tolist() == [10.0]
    assert sim.program_partials(4, offsets="none").tolist() == [10.0, 10.0, 10.0]
    # offsets pid + arange(4): windows [1..4], [2..5], [3..6]
    assert sim.program_partials(4, offsets="pid").tolist() == [10.0, 14.0, 18.0]
    with pytest.raises(ValueError, match="sums only"):
        TiledReduction(X, REDUCTIONS["max"]).program_partials(4, offsets="pid")


def test_persistent_programs():
    sim = _sum()  # tile partials 10, 26, 19
    assert sim.program_partials(4, programs=2).tolist() == [29.0, 26.0]  # tiles {0, 2} and {1}
    assert sim.program_partials(4, programs=5).tolist() == [10.0, 26.0, 19.0, 0.0, 0.0]  # two idle
    # Stepping one tile: program p sums tiles p .. 2.
    assert sim.program_partials(4, programs=2, stride="tile").tolist() == [55.0, 45.0]
    assert sim.program_partials(4, programs=3, stride="tile").tolist() == [55.0, 45.0, 19.0]


def _values(alternatives) -> list[float]:
    return alternatives.values.flatten().tolist()


def test_combines():
    sim = _sum()
    partials = sim.program_partials(4)
    assert _values(sim.combined(partials)) == [55.0]
    assert _values(sim.combined(partials, "store")) == [19.0]  # the last program's store stays
    assert _values(sim.combined(partials, "any store")) == [10.0, 26.0, 19.0]
    assert _values(sim.combined(partials, "stage 2", Stage2(2, loop=False))) == [36.0]  # first block
    assert _values(sim.combined(partials, "stage 2", Stage2(2, other=1.0))) == [56.0]  # 3 partials, pad 1
    assert _values(sim.combined(partials, "stage 2", Stage2(other=-math.inf))) == [-math.inf]  # block 4
    no_program = sim.combined(sim.program_partials(16, tiles="whole"))
    assert no_program.mask.flatten().tolist() == [False, True]  # out left as it was,
    assert no_program.values[1].item() == 0.0  # or reset to the identity


def test_logsumexp_combines_partials_as_a_logsumexp():
    x = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    sim = TiledReduction(x, REDUCTIONS["logsumexp"])
    every_program_first = sim.combined(sim.program_partials(2, offsets="none"))
    torch.testing.assert_close(
        every_program_first.values,
        (torch.tensor([0.0, 1.0], dtype=torch.float64).logsumexp(0) + math.log(3)).reshape(1, 1),
    )


def test_a_loop_that_assigns_its_accumulator_keeps_each_programs_last_tile():
    sim = _sum()  # tile partials 10, 26, 19
    # Two programs: program 0 visits tiles 0 and 2 and keeps 19; program 1 keeps 26.
    assert sim.program_partials(4, programs=2, accumulate="last tile").tolist() == [19.0, 26.0]
    assert sim.program_partials(4, programs=5, accumulate="last tile").tolist() == [
        10.0,
        26.0,
        19.0,
        0.0,
        0.0,
    ]
    y = torch.arange(1.0, 8.0)  # tiles of 1; three programs keep tiles 6, 4 and 5 (0-based)
    last = TiledReduction(y, REDUCTIONS["sum"]).program_partials(1, programs=3, accumulate="last tile")
    assert last.tolist() == [7.0, 5.0, 6.0]


def test_one_partial_left_out_or_twice_and_a_grid_for_another_block():
    sim = _sum()
    partials = sim.program_partials(4)  # 10, 26, 19
    assert sim.one_partial(partials, "first", 0).tolist() == [26.0, 19.0]
    assert sim.one_partial(partials, "last", 0).tolist() == [10.0, 26.0]
    assert sim.one_partial(partials, "first", 2).tolist() == [10.0, 10.0, 26.0, 19.0]
    assert sim.one_partial(partials, "last", 2).tolist() == [10.0, 26.0, 19.0, 19.0]
    assert sim.program_partials(4, tiles=2).tolist() == [10.0, 26.0]  # cdiv(10, 8) programs of tiles of 4


def test_an_argmax_is_the_max_of_ranks_on_any_subset():
    """Ties (the lowest index wins) and NaN (above every number, the first one wins), as torch.argmax."""
    x = torch.tensor([1.0, 3.0, 3.0, -math.inf, math.nan, 3.0, math.nan, 2.0], dtype=torch.float64)
    ranks, order = argmax_ranks(x)
    for start in range(len(x)):
        for stop in range(start + 1, len(x) + 1):
            winner = order[ranks[start:stop].max().long()].item()
            assert winner == start + x[start:stop].argmax().item(), (start, stop)
    sim = TiledReduction(ranks, REDUCTIONS["max"])
    assert order[sim.combined(sim.program_partials(2), "any store").values.long()].flatten().tolist() == [
        1.0,
        2.0,
        4.0,
        6.0,
    ]  # each program's winner: tiles [1, 3], [3, -inf], [nan, 3], [nan, 2]
