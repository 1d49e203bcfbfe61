"""The probes a check makes beyond the battery: four calls in a row for a one-launch exercise (the
state probe), two calls of one shape with other values after a battery that passed (`same_shape_again`),
and repeated calls for bit-identity on a GPU.

They call the learner's function through `call(case, seed, launches=None, stages=None) -> Run`, which
utils.checker.runner provides: one call on one case inside guard zones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from utils.checker.judge import Run, agree, close, correct
from utils.checker.model import Case, Exercise
from utils.checker.report import ExerciseFailed, failing_row, passed_row, table
from utils.checker.stages import Stage, programs_reversed
from utils.launches import Launches

Call = Callable[..., Run]  # call(case, seed, launches=None, stages=None)


def _other_input(case: Case) -> Case:
    """A case of the same shape, dtype and layout as `case`, with other values (and another answer)."""
    inputs = tuple((x.double() * -1.5 + 0.25).to(x.dtype) for x in case.inputs)
    return dataclasses.replace(case, name=f"{case.name}, times -1.5, plus 0.25", inputs=inputs)


def _counter_values(stages: list[Stage]) -> tuple[int, ...] | None:
    """The integer scratch (a ticket) as the call's last launch left it; None if the call had none or
    it is large (a table of flags, not a counter)."""
    if not stages or not stages[-1].counters:
        return None
    values = torch.cat([c.flatten() for c in stages[-1].counters])
    return tuple(int(v) for v in values) if values.numel() <= 4 else None


def one_launch(exercise: Exercise, call: Call, cases: list[Case]) -> None:
    """Before the battery, the state probe: four calls on inputs A, A, B, A (one case with several
    programs' worth of elements, and the same case with other values), each after the one before, with
    what each call's launches left in their scratch recorded (utils.checker.stages). Every call after the
    first must be one Triton launch and nothing else (the first may set up a workspace). Then, from the
    effects alone:

    - a ticket (an integer scratch) that holds other values after each call does not return to where
      it started, and the outcome depends on the calls before (or out was left unwritten):
      `state_not_reset`; so is a first call right and the same input wrong right after it (a stale
      partial cannot do that: the same input leaves the same partials);
    - right only when the call before had the same input (calls 2 right, calls 3 and 4 wrong): the
      combine read partials the call before left: `stale_partials`;
    - the same input A giving different results on calls 1, 2 and 4 otherwise: `varies_between_runs`.

    Any other failure is the same on every call and goes on to the battery, which describes it: the
    names above need the outcome to depend on the calls before.
    """
    a = max((c for c in cases if c.n <= 1 << 16), key=lambda c: c.n)
    b = _other_input(a)
    order = (a, a, b, a)
    seen: list[Launches] = []
    stages: list[list[Stage]] = [[] for _ in order]
    calls = [
        call(case, seed=i, launches=seen if i else None, stages=stages[i]) for i, case in enumerate(order)
    ]
    for i, launched in enumerate(seen, start=2):
        if len(launched.triton) > 1 or launched.torch:  # none at all: the battery says what that left
            message = (
                f"{exercise.id}: call {i} on '{order[i - 1].name}' made {launched.describe()}.\n"
                f"Likely mistake: {exercise.mistakes['extra_launches'].message}"
            )
            raise ExerciseFailed(message, ["extra_launches"])
    right = [correct(exercise, run) for run in calls]
    if all(right):
        return
    counters = [_counter_values(s) for s in stages]
    counting = all(c is not None for c in counters) and len(set(counters)) > 1
    same_a = [calls[0], calls[1], calls[3]]
    # Compared where every call wrote: an element left holding out's garbage (which changes from call
    # to call) says "never written", not "varies".
    written = torch.stack([run.result != run.garbage for run in same_a]).all(0)
    varies = any(
        not agree(exercise, a, run.result[written], same_a[0].result[written], equal_nan=True).all()
        for run in same_a
    )
    # Does a call's outcome depend on the calls before it? A verdict on A that changes, results on A that
    # change, or a ticket that keeps counting while out is left unwritten (no program drew the last
    # ticket). A ticket that keeps counting beside results wrong alike on every call is not enough: a
    # kernel may number its calls on purpose (a ticket taken modulo the programs) and be wrong elsewhere.
    depends = varies or right[0] != right[1] or right[1] != right[3]
    if not (depends or (counting and any(run.untouched for run in calls))):
        return  # wrong alike on every call: the battery describes it
    if counting or (right[0] and not right[1]):
        code = "state_not_reset"
    elif right[1] and not right[2] and not right[3]:
        code = "stale_partials"
    else:
        code = "varies_between_runs"
    names = {id(a): "A", id(b): "B"}
    shown = table(
        ("call", "input", "expected", "got", ""),
        [
            (str(i), names[id(run.case)], *(passed_row(run) if ok else failing_row(exercise, run)))
            for i, (run, ok) in enumerate(zip(calls, right), start=1)
        ],
    )
    seen_lines = [f"A is '{a.name}'; B is A times -1.5, plus 0.25."]
    if all(c is not None for c in counters):
        held = ", ".join("[" + ", ".join(map(str, c or ())) + "]" for c in counters)
        seen_lines.append(
            f"The integer workspace (a ticket) held {held} after calls 1 to 4"
            + (
                ": it does not return to where it was, so each call starts from another state."
                if counting
                else ": the same after every call."
            )
        )
    if right[1] and not right[2] and not right[3]:
        seen_lines.append(
            "Right only when the call before had the same input: the answer depends on what the call "
            "before left in the workspace."
        )
    elif varies:
        seen_lines.append("The same input A gave different results on calls 1, 2 and 4.")
    measured = "".join(f"\n  - {line}" for line in seen_lines)
    message = (
        f"{exercise.id}: four calls in a row, on inputs A, A, B, A; {right.count(False)} wrong:\n{shown}\n"
        f"What the calls show:{measured}\nLikely mistake: {exercise.mistakes[code].message}"
    )
    raise ExerciseFailed(message, [code])


def same_shape_again(exercise: Exercise, call: Call, cases: list[Case]) -> None:
    """After a battery that passed: a case A again, then A's shape with other values (B). A function that
    keeps something computed from an input between calls (a cached copy, result, grid or workspace keyed
    on the shape, or kept from the first call) was right on every case of the battery, each of another
    shape, and is wrong on B. Named `earlier_input_reused` only when B's result is A's answer (the effect
    proves the reuse); otherwise B's failure is reported as it is, with `wrong_values`."""
    # Any shape shows a reuse; a small one keeps the two calls cheap in the interpreter.
    a = max((c for c in cases if c.n <= 1 << 12), key=lambda c: c.n, default=min(cases, key=lambda c: c.n))
    b = _other_input(a)
    first, second = call(a, seed=0), call(b, seed=1)
    if correct(exercise, first) and correct(exercise, second):
        return
    reused = not correct(exercise, second) and close(exercise, b, second.result, first.expected)
    code = "earlier_input_reused" if reused else "wrong_values"
    shown = table(
        ("call", "input", "expected", "got", ""),
        [
            (str(i), name, *(passed_row(run) if correct(exercise, run) else failing_row(exercise, run)))
            for i, (name, run) in enumerate((("A", first), ("B", second)), start=1)
        ],
    )
    if not correct(exercise, first):
        seen = "A, right in the battery, is wrong when it is called again after the battery."
    else:
        seen = "B's result is A's answer." if reused else "B's result is wrong, and is not A's answer."
    message = (
        f"{exercise.id}: every case of the battery passed. Then two calls of one shape, in a row: A is "
        f"'{a.name}', B is A times -1.5, plus 0.25:\n{shown}\nWhat the calls show: {seen}\n"
        f"Likely mistake: {exercise.mistakes[code].message}"
    )
    raise ExerciseFailed(message, [code])


def reversed_order(exercise: Exercise, call: Call, cases: list[Case]) -> None:
    """In the interpreter, after a battery that passed: its largest case of at most 2^16 elements once more,
    with every launch's programs run in the reverse order (utils.checker.stages.programs_reversed). The
    interpreter runs programs one after another in order, so a race (a program storing into another's
    part, one reading what another has not stored yet) ends the same way on every run there and can pass
    the battery; a GPU runs programs in any order. Right in order and wrong in reverse: the result depends
    on the order the programs run in. A GPU needs no such look: it varies the order itself."""
    # at 2^14, a split softmax whose store spilled into the next chunk still passed
    small = [c for c in cases if c.n <= 1 << 16]
    if not small:
        return
    case = max(small, key=lambda c: c.n)
    with programs_reversed() as reversed_order:
        if not reversed_order:  # another Triton's interpreter: no evidence either way
            return
        run = call(case, seed=0)
    if correct(exercise, run):
        return
    shown = table(("case", "expected", "got", ""), [(case.name, *failing_row(exercise, run))])
    raise ExerciseFailed(
        f"{exercise.id}: every case of the battery passed, with the programs run in order as the interpreter "
        f"runs them. Run again with every launch's programs in the reverse order, a case is wrong:\n{shown}\n"
        "What this shows: on the same inputs, with only the programs' order changed, the result changed; a "
        "GPU does not fix the order. Likely mistake: programs that race, such as a store whose mask lets a "
        "program write into another program's part (the last to store wins), or a program that reads what "
        "another has not stored yet; or memory that no program wrote (a torch.empty buffer read before any "
        "store), which can differ from one run to the next.",
        ["varies_between_runs"],
    )


def repeat_case(cases: list[Case]) -> Case:
    """The case that shows an order-dependent sum best: the largest whose values are not all integers
    (small integers add up exactly in float32 in any order, so their sums repeat even with atomics)."""
    rounding = [c for c in cases if not all(torch.equal(x, x.round()) for x in c.inputs)]
    return max(rounding or cases, key=lambda c: c.n)


def repeatable(exercise: Exercise, call: Call, case: Case) -> None:
    results = [call(case, seed=0).result for _ in range(exercise.repeats)]
    distinct = {tuple(r.flatten().tolist()) for r in results}
    if len(distinct) > 1:
        message = (
            f"{exercise.id}: {len(distinct)} different results in {exercise.repeats} runs on "
            f"'{case.name}'.\nLikely mistake: {exercise.mistakes['not_deterministic'].message}"
        )
        raise ExerciseFailed(message, ["not_deterministic"])
