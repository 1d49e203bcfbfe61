"""The probes a check makes beyond the battery: two calls of one shape with other values after a battery
that passed (`same_shape_again`), the programs run in the reverse order, and repeated calls for
bit-identity on a GPU. A one-launch exercise's calls in a row are utils.checker.one_launch's.

They call the learner's function through `call(case, seed, launches=None, stages=None) -> Run`, which
utils.checker.runner provides: one call on one case inside guard zones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from utils.checker.judge import Run, close, correct
from utils.checker.model import Case, Exercise, Layout
from utils.checker.report import ExerciseFailed, failing_row, passed_row, table
from utils.checker.stages import programs_reversed
from utils.launches import Launches

Call = Callable[..., Run]  # call(case, seed, launches=None, stages=None)


OTHER_VALUES = ", other values"  # the end of B's name


def other_input(exercise: Exercise, case: Case) -> tuple[Case, str]:
    """(B, how B was made from `case`): a case of the same shape, dtype and layout as `case`, with other
    values (and another answer) that the exercise allows (Exercise.other_values)."""
    inputs, how = exercise.other_values(case.inputs)
    return dataclasses.replace(case, name=case.name + OTHER_VALUES, inputs=inputs), how


def same_shape_again(exercise: Exercise, call: Call, cases: list[Case]) -> None:
    """After a battery that passed: a case A again, then A's shape with other values (B). A function that
    keeps something computed from an input between calls (a cached copy, result, grid or workspace keyed
    on the shape, or kept from the first call) was right on every case of the battery, each of another
    shape, and is wrong on B. Named `earlier_input_reused` only when B's result is A's answer (the effect
    proves the reuse); otherwise B's failure is reported as it is, with `wrong_values`."""
    # Any shape shows a reuse; a small one keeps the two calls cheap in the interpreter.
    a = max((c for c in cases if c.n <= 1 << 12), key=lambda c: c.n, default=min(cases, key=lambda c: c.n))
    b, how = other_input(exercise, a)
    first, second = call(a, seed=0), call(b, seed=1)
    if correct(exercise, first) and correct(exercise, second):
        _same_shape_other_layout(exercise, call, b)
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
    likely = exercise.mistakes[code].message
    if not correct(exercise, first):
        seen = (
            "A, right in the battery, is wrong when it is called again after the battery: on the same "
            "inputs, its result depends on something besides them."
        )
        likely = (
            "something your function keeps between calls (a workspace, a cached buffer, a counter) holds "
            "what an earlier call left in it, or a torch.empty buffer is read before it is written."
        )
    else:
        seen = "B's result is A's answer." if reused else "B's result is wrong, and is not A's answer."
    message = (
        f"{exercise.id}: every case of the battery passed. Then two calls of one shape, in a row: A is "
        f"'{a.name}', B is {how}:\n{shown}\nWhat the calls show: {seen}\nLikely mistake: {likely}"
    )
    raise ExerciseFailed(message, [code])


def _same_shape_other_layout(exercise: Exercise, call: Call, b: Case) -> None:
    """Right after a right call on `b`, a 2-D case: b's values and shape laid out another way. The battery
    passed its strided cases, each a shape of its own, so a failure here is something kept from the call
    before and keyed on the shape alone (a cached launch or its strides): `kept_by_shape`."""
    if b.inputs[0].dim() != 2 or b.layout == "mixed":
        return
    layout: Layout = "transposed" if b.layout != "transposed" else "contiguous"
    name = b.name.removesuffix(OTHER_VALUES).rsplit(", ", 1)[0]  # A's name less its layout
    c = dataclasses.replace(b, name=f"{name}, {layout} (B's values)", layout=layout)
    third = call(c, seed=2)
    if correct(exercise, third):
        return
    shown = table(("case", "expected", "got", ""), [(c.name, *failing_row(exercise, third))])
    raise ExerciseFailed(
        f"{exercise.id}: every case of the battery passed, and B ('{b.name}') right after it. Then B's "
        f"values in B's shape, laid out {layout}:\n{shown}\nWhat the calls show: the same values and "
        "shape, right in one layout and wrong in the next call's; the battery's own strided cases, each "
        f"a shape of its own, passed.\nLikely mistake: {exercise.mistakes['kept_by_shape'].message}",
        ["kept_by_shape"],
    )


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


def same_bits_reversed(exercise: Exercise, call: Call, cases: list[Case]) -> bool:
    """For an exercise that asks for bit-identical results (Exercise.repeats), in the interpreter: the
    largest case of at most 2^16 elements whose sums round (repeat_case) in order and with the programs
    reversed. Right both ways but other bits: the rounding follows the programs' order, which only a GPU
    would vary from run to run. Returns whether it could look (another Triton's interpreter: no)."""
    case = repeat_case([c for c in cases if c.n <= 1 << 16] or cases)
    with programs_reversed() as reversed_order:
        if not reversed_order:
            return False
        backward = call(case, seed=0).result
    forward = call(case, seed=0).result
    if bool(((forward == backward) | (forward.isnan() & backward.isnan())).all()):
        return True
    bits: list[tuple[str, ...]] = [
        (name, repr(t.flatten()[0].item())) for name, t in (("in order", forward), ("reversed", backward))
    ]
    shown = table(("programs run", "out[0], every digit"), bits)
    raise ExerciseFailed(
        f"{exercise.id}: every case passed, but its results are not the same bits whichever order the "
        f"programs run in, as this exercise asks: on '{case.name}', run with every launch's programs in "
        f"order and then in the reverse order (the interpreter runs them in order; a GPU in any order):\n"
        f"{shown}\nWhat this shows: the rounding of the sum follows the order the programs ran in. Likely "
        "mistake: partials added in the order programs finish (atomics), or by a program that depends on "
        "the order, such as the one that draws the last ticket adding its own partial apart from the "
        "others. Combine the partials in one fixed order, by their index, whichever program does it.",
        ["not_deterministic"],
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


# torch operations that reduce: what a stage 2 written with torch runs on the device (aten names)
TORCH_REDUCTIONS = frozenset(
    {"sum", "max", "min", "amax", "amin", "mean", "prod", "argmax", "argmin", "logsumexp", "cumsum", "norm"}
)


def combined_in_triton(exercise: Exercise, call: Call, cases: list[Case]) -> None:
    """After a battery that passed, for an exercise whose combine is the learner's Triton kernel
    (Exercise.combine_in_triton): one call, with the device's work recorded (utils.launches); a torch
    reduction among it is a combine done by torch (right values, not the exercise)."""
    case = max((c for c in cases if c.n <= 1 << 16), key=lambda c: c.n)
    launched: list[Launches] = []
    call(case, seed=0, launches=launched)
    ops = [
        op
        for op in launched[0].torch
        if op.split(".")[1 if op.startswith("aten.") else 0] in TORCH_REDUCTIONS
    ]
    if ops:
        raise ExerciseFailed(
            f"{exercise.id}: every case of the battery passed. A call on '{case.name}' made "
            f"{launched[0].describe()}.\nLikely mistake: {exercise.mistakes['combined_by_torch'].message}",
            ["combined_by_torch"],
        )
