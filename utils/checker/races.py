"""What the interpreter's stores and atomics show about a call: stores that only the interpreter's order
makes right, and how many atomic lanes it sent.

The interpreter runs a launch's programs one after another, so two programs that store into one element
end the same way every run: the later one's value stays. On a GPU they run at once, and nothing orders two
plain stores of two programs unless an atomic does (a ticket, a lock, a barrier). So a launch with no atomic
in which two programs store different values into one element is a race, whatever the values that came
out: a running maximum read, updated and stored back by every program ends right in order here, and loses
updates on a GPU. utils.checker.bounds, which wraps the interpreter's stores and atomics to keep kernels
inside their tensors, reports each access here; `take()` says what the accesses since the last take show.
The reversed-order probe (utils.checker.probes) sees a race only where the order changes the values; this
sees it where it does not, as in a maximum or a sum whose parts arrive in any order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from utils.checker.access import Region
from utils.checker.model import Case, Exercise
from utils.checker.report import ExerciseFailed

# The launch running now: its tensor arguments (to name an element), its plain stores (program, addresses,
# value bits), its programs' ids by their number (to name them), and whether it ran an atomic
_regions: list[Region] = []
_stores: list[tuple[int, np.ndarray, np.ndarray]] = []
_programs: dict[int, tuple[int, ...]] = {}
_atomic_in_launch = False
_atomic_lanes = 0  # lanes the atomics let through, since the last take
_found: list[str] = []  # one sentence per launch whose stores raced


@dataclass(frozen=True)
class Accesses:
    unordered: list[str]  # one sentence per launch: two programs stored different values into an element
    atomic_lanes: int  # how many lanes the atomics let through (a scalar atomic is one)


def new_launch(regions: list[Region]) -> None:
    """A launch begins: judge the one before, and name elements by these tensor arguments from now on."""
    global _regions
    _judge_launch()
    _regions = regions


def note_store(
    program: tuple[int, ...], grid: tuple[int, ...], addresses: np.ndarray, values: np.ndarray
) -> None:
    """A plain store by `program` (its ids on the grid's axes) of `values` into `addresses` (the lanes its
    mask let through)."""
    values = np.ascontiguousarray(values).reshape(-1)
    bits = values.view(f"u{values.dtype.itemsize}").astype(np.uint64)
    number = program[0] + grid[0] * (program[1] + grid[1] * program[2])
    _programs[number] = tuple(p for p, size in zip(program, grid) if size > 1) or (0,)
    _stores.append((number, addresses.astype(np.uint64).reshape(-1), bits))


def note_atomic(lanes: int) -> None:
    global _atomic_in_launch, _atomic_lanes
    _atomic_in_launch = True
    _atomic_lanes += lanes


def take() -> Accesses:
    """What the accesses since the last take show; forgets them."""
    global _atomic_lanes
    _judge_launch()
    taken = Accesses(list(_found), _atomic_lanes)
    _found.clear()
    _atomic_lanes = 0
    return taken


def judge(exercise: Exercise, cases: list[Case], accesses: dict[str, Accesses]) -> None:
    """Fail a battery of right values whose stores race (see the module's docstring), or whose atomics are
    not the number the exercise asks for (`Exercise.atomic_lanes`). Run in the interpreter only."""
    unordered = [
        (case.name, accesses[case.name].unordered[0]) for case in cases if accesses[case.name].unordered
    ]
    if unordered:
        raise ExerciseFailed(
            f"{exercise.id}: every case gave the right values, in the order the interpreter runs programs, "
            f"one after another. But on {len(unordered)} of {len(cases)} cases two programs of one launch "
            f"stored into one element; on case '{unordered[0][0]}', {unordered[0][1]}. On a GPU the "
            "programs run at once, and which store lands last is not fixed.\n"
            f"Likely mistake: {exercise.mistakes['unordered_stores'].message}",
            ["unordered_stores"],
        )
    if exercise.atomic_lanes is None:
        return
    sent = [(case, accesses[case.name].atomic_lanes, exercise.atomic_lanes(case)) for case in cases]
    wrong = [(case, got, want) for case, got, want in sent if got != want]
    if wrong:
        case, got, want = wrong[0]
        code, asked = (
            ("atomics_used", "it asks for none")
            if want == 0
            else ("atomics_not_one_per_row", f"one per row is {want:,}")
        )
        raise ExerciseFailed(
            f"{exercise.id}: every case gave the right values, but the atomics are not the ones the exercise "
            f"asks for: on case '{case.name}' the call's atomics (of every kind: add, exchange, max, "
            f"...) let {got:,} lane{'s' if got != 1 else ''} through, where {asked} ({len(wrong)} of "
            f"{len(cases)} cases so).\n"
            f"Likely mistake: {exercise.mistakes[code].message}",
            [code],
        )


def _judge_launch() -> None:
    """If the launch now ending has no atomic, record the first element that two of its programs left with
    different values (each program's last store into it counts)."""
    global _atomic_in_launch
    stores, names, atomic = list(_stores), dict(_programs), _atomic_in_launch
    _stores.clear()
    _programs.clear()
    _atomic_in_launch = False
    if atomic or len(names) < 2:
        return
    addresses = np.concatenate([s[1] for s in stores]) if stores else np.empty(0, dtype=np.int64)
    if addresses.size == 0:  # every store of the launch was masked off
        return
    bits = np.concatenate([s[2] for s in stores])
    programs = np.concatenate([np.full(s[1].size, s[0], dtype=np.int64) for s in stores])
    sequence = np.arange(addresses.size)
    # each program's last store into each address
    order = np.lexsort((sequence, programs, addresses))
    addresses, programs, bits = addresses[order], programs[order], bits[order]
    last = np.r_[(addresses[1:] != addresses[:-1]) | (programs[1:] != programs[:-1]), True]
    addresses, programs, bits = addresses[last], programs[last], bits[last]
    starts = np.flatnonzero(np.r_[True, addresses[1:] != addresses[:-1]])
    differ = np.minimum.reduceat(bits, starts) != np.maximum.reduceat(bits, starts)
    several = np.minimum.reduceat(programs, starts) != np.maximum.reduceat(programs, starts)
    raced = np.flatnonzero(differ & several)
    if raced.size == 0:
        return
    first = starts[raced[0]]
    end = starts[raced[0] + 1] if raced[0] + 1 < starts.size else addresses.size
    who = sorted({names[int(p)] for p in programs[first:end]})
    ids = [str(w[0]) if len(w) == 1 else str(w) for w in who]
    shown = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
    _found.append(
        f"{_element(int(addresses[first]))} was stored by {len(who)} programs ({shown}) with plain "
        "tl.store, not all the same value, in a launch with no atomic to order them"
        + (f" ({raced.size:,} elements were so)" if raced.size > 1 else "")
    )


def _element(address: int) -> str:
    for r in _regions:
        if r.lo <= address < r.hi:
            offset = (address - r.start) // r.element_size
            return f"{r.name}'s element {offset}" if offset >= 0 else f"memory before {r.name}"
    return "an element outside the tensors the launch was given"
