"""The state probe of a one-launch exercise (notebook 07): calls in a row, each after the one before.

A one-launch reduction keeps its partials and its ticket in a workspace that outlives the call, so a call
can go wrong because of the calls before it, which a battery of separate cases need not show. Before the
battery, `one_launch` calls the learner's function, each call after the one before, on

    S, A, A, B, A, then C1, C2, C3, C4, then S again

S is a small case of the battery (one tile of any common size), A its largest of at most 2^16 elements
(several programs), B A's shape with other values, and Ck the first 3T - 5 elements of A for T = 8,192,
4,096, 2,048 and 1,024: three tiles of T, so a grid of 3 programs after one of more, whichever of those
tiles a kernel takes. What each call's launches leave in their scratch is recorded
(utils.checker.stages), and a mistake is named from the effects:

- a call that repeats an earlier call's shape (A, and S at the end) must make one Triton launch and
  nothing else (`extra_launches`); a call on a new shape may set up (allocate a workspace);
- a later call that stores past the end of a tensor of as many elements as the first call had programs:
  a workspace sized by the first call (`workspace_sized_by_first_call`);
- every wrong call holding the right answer plus what out held before it: the total added into out
  (`added_into_out`);
- a ticket holding a value that no count of this check's calls so far reaches: it did not start the
  check at 0 (`ticket_not_zeroed`), unless it started where the last call of the check before, ended by
  this probe, left it, and each call moved it by its programs: a ticket never put back to 0, checked
  again (`state_not_reset`, below);
- the first call that moves the ticket taking it from 0 to its number of programs and leaving out
  unwritten: no program passed the test for the last ticket (`last_ticket_missed`);
- on A, A, B, A: a ticket that keeps changing or stays at one value other than 0, or a right call followed
  by a wrong one on the same input (`state_not_reset`); right only after the same input
  (`stale_partials`); results on A that differ otherwise (`varies_between_runs`);
- a Ck whose result after A differs from its result after B: with a ticket that never returns to where
  it was, the count the call before left decides which program combines (`state_not_reset`); otherwise,
  while its launch left slots of a scratch as A's call (B's call) wrote them, the combine read slots that
  its own programs did not write (`stale_slots`).

A failure alike on every call goes on to the battery, which describes it; a Ck wrong alike after A and
after B is returned, for the battery to describe with the rest.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from utils.checker.access import find_out_of_bounds
from utils.checker.judge import Run, agree, close, correct, stale_slack
from utils.checker.model import Case, Exercise
from utils.checker.probes import other_input
from utils.checker.report import ExerciseFailed, failing_row, passed_row, table
from utils.checker.stages import Stage, counter_values, slots_left
from utils.launches import Launches

Call = Callable[..., Run]  # call(case, seed, launches=None, stages=None), from utils.checker.runner

CHAIN_TILES = (8192, 4096, 2048, 1024)  # Ck: 3 tiles of each, after a call of more programs
# The ticket as the last call of a check left it, when this probe ended that check (it raised): a check
# run again on a ticket that is never put back to 0 starts where that call left it, which is not a ticket
# that was never zeroed. Kept for the next check of the exercise only: the battery moves the ticket too.
_LEFT_BY_LAST_CHECK: dict[str, tuple[int, ...]] = {}


def _prefix(case: Case, n: int) -> Case:
    return dataclasses.replace(
        case, name=f"the first {n:,} elements of A", inputs=(case.inputs[0][:n].clone(),)
    )


class _Calls:
    """Calls of the learner's function, each after the one before, with what each left in its scratch."""

    def __init__(self, exercise: Exercise, call: Call):
        self.exercise, self.call = exercise, call
        self.shapes: set[tuple] = set()  # the shapes called so far: a call on one of them sets nothing up
        self.first: tuple[Case, list[Stage]] | None = None  # the first call: its case and launches
        self.seed = 0

    def __call__(self, order: list[Case]) -> tuple[list[Run], list[list[Stage]]]:
        runs: list[Run] = []
        stages: list[list[Stage]] = []
        for case in order:
            launched: list[Launches] = []
            stage: list[Stage] = []
            self.seed += 1
            try:
                run = self.call(case, seed=self.seed, launches=launched, stages=stage)
            except ExerciseFailed as failed:
                self._outgrown(case, failed)
                raise
            shape = tuple(tuple(x.shape) for x in case.inputs)
            made = launched[0]
            if shape in self.shapes and (len(made.triton) != 1 or made.torch):
                raise ExerciseFailed(
                    f"{self.exercise.id}: a call on '{case.name}', a shape called before, made "
                    f"{made.describe()}.\nLikely mistake: {self.exercise.mistakes['extra_launches'].message}",
                    ["extra_launches"],
                )
            self.shapes.add(shape)
            if self.first is None:
                self.first = (case, stage)
            runs.append(run)
            stages.append(stage)
        return runs, stages

    def _outgrown(self, case: Case, failed: ExerciseFailed) -> None:
        """Raise `workspace_sized_by_first_call` if `failed` is a store or load just past a tensor of as
        many elements as the first call's launch had programs. Inputs and out sit inside guard zones of
        4,096 elements or more, so an access this near their end stays in their memory: the tensor is
        one the function allocated itself."""
        far = find_out_of_bounds(failed.__cause__)
        if self.first is None or far is None or not far.elements_past or not 0 < far.elements_past < 4096:
            return
        first_case, first_stages = self.first
        programs = [s.programs for s in first_stages if s.programs]
        if far.numel not in programs:
            return
        raise ExerciseFailed(
            f"{self.exercise.id}: the check's first call, on '{first_case.name}', launched {far.numel} "
            f"program{'s' if far.numel != 1 else ''}. A later call, on '{case.name}', then reached past "
            f"the end of a tensor of {far.numel} element{'s' if far.numel != 1 else ''} that the function "
            f"allocated itself, and the checker stopped it:\n    {far}\n"
            f"Likely mistake: {self.exercise.mistakes['workspace_sized_by_first_call'].message}",
            ["workspace_sized_by_first_call"],
        ) from failed


def one_launch(exercise: Exercise, call: Call, cases: list[Case]) -> list[Case]:
    """The state probe (see the module's docstring): raises ExerciseFailed with what the calls show, or
    returns the cases of the chain that failed alike whatever came before (for the battery)."""
    left = _LEFT_BY_LAST_CHECK.pop(exercise.id, None)
    a = max((c for c in cases if c.n <= 1 << 16), key=lambda c: c.n)
    s = min((c for c in cases if c.n >= 100), key=lambda c: c.n)
    b, how = other_input(exercise, a)
    order = [s, a, a, b, a]
    calls = _Calls(exercise, call)
    runs, stages = calls(order)
    right = [correct(exercise, run) for run in runs]
    if not all(right[1:]):
        _name_state(exercise, order, runs, stages, right, left, how)
        return []  # wrong alike on every call: the battery describes it
    chain = [_prefix(a, 3 * t - 5) for t in CHAIN_TILES if 3 * t - 5 < a.n]
    chain_runs, _ = calls(chain)
    for ck, run in zip(chain, chain_runs):
        if not correct(exercise, run):
            return _stale_slots(exercise, calls, a, b, ck)
    calls([s])  # S's shape again: its launches are counted too (a path of its own for small inputs)
    return []


def _name_state(
    exercise: Exercise, order: list[Case], runs: list[Run], stages, right, left, how: str
) -> None:
    """Raise ExerciseFailed if the calls S, A, A, B, A show a mistake that depends on the calls before;
    `left`, the ticket as the last check's last call left it, if that call ended the check; `how`, how B
    was made from A."""
    counters = [counter_values(s) for s in stages]
    seen: list[str] = []
    carried = left is not None and _before_first_call(stages, counters) == left
    if carried:
        seen.append(
            f"Before call 1 the ticket held {', '.join(map(str, left))}, as the last call of the check "
            "before left it, and each call since moved it by its programs: none put it back to 0. A ticket "
            "that starts above 0 never meets the test for the last ticket, so a kernel with a right reset "
            "stays stuck on it too: after mending the kernel, allocate the workspace again (run the cell "
            "that creates it)."
        )
    code = _named_by_out_or_ticket(exercise, order, runs, stages, right, counters, seen, carried)
    if code is None:
        code = _named_by_calls_on_a(exercise, runs[1:], right[1:], counters[1:], seen)
    if code is None:
        return
    if not carried and counters[0] is not None and any(counters[0]) and right[0]:  # S's own call
        left_by_s = ", ".join(map(str, counters[0]))
        seen.insert(
            0, f"Call 1, on S, was right and left the ticket at {left_by_s}, not 0: call 2 started there."
        )
    names = {id(order[0]): "S", id(order[1]): "A", id(order[3]): "B"}
    shown = table(
        ("call", "input", "expected", "got", ""),
        [
            (str(i), names[id(run.case)], *(passed_row(run) if ok else failing_row(exercise, run)))
            for i, (run, ok) in enumerate(zip(runs, right), start=1)
        ],
    )
    lines = [f"S is '{order[0].name}', A is '{order[1].name}'; B is {how}.", *seen]
    measured = "".join(f"\n  - {line}" for line in lines)
    if counters[-1] is not None:
        _LEFT_BY_LAST_CHECK[exercise.id] = counters[-1]
    raise ExerciseFailed(
        f"{exercise.id}: five calls in a row, on inputs S, A, A, B, A; {right.count(False)} wrong:\n{shown}\n"
        f"What the calls show:{measured}\nLikely mistake: {exercise.mistakes[code].message}",
        [code],
    )


def _before_first_call(stages, counters) -> tuple[int, ...] | None:
    """The ticket before the first call, where calls 2 to 5 each moved it by their programs (a ticket that
    counts programs and is not put back to 0): after call 1, less call 1's programs."""
    if any(c is None or len(c) != 1 for c in counters) or not all(s and s[-1].programs for s in stages):
        return None
    moves = [after[0] - before[0] for before, after in zip(counters, counters[1:])]
    if moves != [s[-1].programs for s in stages[1:]]:
        return None
    return (counters[0][0] - stages[0][-1].programs,)


def _named_by_out_or_ticket(exercise, order, runs, stages, right, counters, seen, carried) -> str | None:
    """added_into_out, ticket_not_zeroed or last_ticket_missed, with what shows it appended to `seen`;
    `carried`: the ticket started where the last check left it, which names neither of the last two."""
    wrong = [run for run, ok in zip(runs, right) if not ok]
    if all(
        not run.untouched
        and close(exercise, run.case, run.result, run.expected + run.garbage, slack=stale_slack(run))
        for run in wrong
    ):
        seen.append("Each wrong call holds the right answer plus what out held before the call.")
        return "added_into_out"
    if carried:
        return None  # state_not_reset, from the calls on A
    reach = 0  # what one count per element of every call so far could reach
    for i, (run, values) in enumerate(zip(runs, counters), start=1):
        reach += run.case.n
        if values is not None and any(abs(v) > reach for v in values):
            seen.append(
                f"After call {i} the ticket held {', '.join(map(str, values))}: more than one count per "
                f"element of this check's calls so far ({reach:,}) reaches, so it did not start this check "
                "at 0."
            )
            return "ticket_not_zeroed"
    for i, (run, values, launches) in enumerate(zip(runs, counters, stages), start=1):
        if values is None or not any(values):
            continue  # the ticket has not moved yet (a one-program call may not use it)
        programs = launches[-1].programs
        before = counters[i - 2] if i > 1 else None
        if values == (programs,) and run.untouched and (before is None or not any(before)):
            seen.append(
                f"Call {i}, the first to move the ticket, launched {programs} programs: the ticket went "
                f"from 0 to {programs}, one count per program, and out was never written."
            )
            return "last_ticket_missed"
        return None
    return None


def _named_by_calls_on_a(exercise, runs, right, counters, seen: list[str]) -> str | None:
    """state_not_reset, stale_partials or varies_between_runs from the calls A, A, B, A."""
    counting = all(c is not None for c in counters) and len(set(counters)) > 1
    # the same ticket after every call, and not 0: each call hands the next one a ticket that does not
    # start at 0 (a reset by another program than the last, or to another value)
    stuck = all(c is not None for c in counters) and len(set(counters)) == 1 and any(counters[0] or ())
    same_a = [runs[0], runs[1], runs[3]]
    # Compared where every call wrote: an element left holding out's garbage (which changes from call
    # to call) says "never written", not "varies".
    written = torch.stack([run.result != run.garbage for run in same_a]).all(0)
    varies = any(
        not agree(exercise, run.case, run.result[written], same_a[0].result[written]).all() for run in same_a
    )
    # Does a call's outcome depend on the calls before it? A verdict on A that changes, results on A that
    # change, or a ticket that keeps counting while out is left unwritten (no program drew the last
    # ticket). A ticket that keeps counting beside results wrong alike on every call is not enough: a
    # kernel may number its calls on purpose (a ticket taken modulo the programs) and be wrong elsewhere.
    depends = varies or right[0] != right[1] or right[1] != right[3]
    if not (depends or (counting and any(run.untouched for run in runs))):
        return None
    if all(c is not None for c in counters):
        held = ", ".join("[" + ", ".join(map(str, c or ())) + "]" for c in counters)
        seen.append(
            f"The integer workspace (a ticket) held {held} after calls 2 to 5"
            + (
                ": it does not return to where it was, so each call starts from another state."
                if counting
                else ": the same after every call, not 0: each call starts counting from it."
                if stuck
                else ": the same after every call."
            )
        )
    if right[1] and not right[2] and not right[3]:
        seen.append(
            "Right only when the call before had the same input: the answer depends on what the call "
            "before left in the workspace."
        )
    elif varies:
        seen.append("The same input A gave different results on calls 2, 3 and 5.")
    if counting or stuck or (right[0] and not right[1]):
        return "state_not_reset"
    if right[1] and not right[2] and not right[3]:
        return "stale_partials"
    return "varies_between_runs"


def _stale_slots(exercise: Exercise, calls: _Calls, a: Case, b: Case, ck: Case) -> list[Case]:
    """`ck` failed after a longer call: call it after A and after B. If its result changed with the call
    before, raise state_not_reset where the ticket never returns to where it was, or stale_slots where its
    launch left slots of a scratch as that call wrote them; otherwise return [ck], wrong whatever came
    before, for the battery."""
    runs, stages = calls([a, ck, b, ck])
    after_a, after_b = runs[1], runs[3]
    left = slots_left(stages)
    # Both written (out's garbage differs from call to call), by a launch of programs that ran
    written = not (after_a.untouched or after_b.untouched) and stages[1] and stages[1][-1].programs != 0
    if not written or close(exercise, ck, after_a.result, after_b.result):
        return [ck]
    shown = table(
        ("call", "input", "expected", "got", ""),
        [
            (str(i), name, *(passed_row(run) if correct(exercise, run) else failing_row(exercise, run)))
            for i, (name, run) in enumerate(zip(("A", "C", "B", "C"), runs), start=1)
        ],
    )
    counters = [counter_values(s) for s in stages]
    programs = stages[1][-1].programs
    seen = "C's result changed with the call before it. Its launch" + (
        f" of {programs} programs" if programs else ""
    )
    if all(c is not None for c in counters) and len(set(counters)) > 1:
        # a ticket that keeps counting: which of C's programs passes the test for the last ticket, and
        # when, depends on the count the call before left; the slots left as it wrote them are no proof
        held = ", ".join("[" + ", ".join(map(str, c or ())) + "]" for c in counters)
        code = "state_not_reset"
        seen += (
            f" found the integer workspace (a ticket) as the call before left it: it held {held} after "
            "these four calls, never back where it was. A test for the last ticket that holds while every "
            "call has the same programs can pick another program, too early, once their number changes."
        )
    elif left is not None:
        slots, numel = left
        listed = ", ".join(map(str, slots[:8])) + (", ..." if len(slots) > 8 else "")
        many = len(slots) > 1
        code = "stale_slots"
        seen += (
            f" left slot{'s' if many else ''} {listed} of a scratch of {numel} as that call wrote "
            f"{'them' if many else 'it'} (A's values after A, B's after B)."
        )
    else:
        return [ck]
    raise ExerciseFailed(
        f"{exercise.id}: every call on S, A, A, B and A was right. Then four more calls, A, C, B, C, C being "
        f"'{ck.name}', a shorter input:\n{shown}\nWhat the calls show:\n  - {seen}\n"
        f"Likely mistake: {exercise.mistakes[code].message}",
        [code],
    )
