"""The checker: `check(exercise_id, fn)` runs a learner's host function on its battery and explains failures.

    check("sum_atomic", sum_atomic)     # prints one line and returns True on success

On a wrong answer it raises `ExerciseFailed` (an AssertionError) whose message has a table of the failing
cases and the likely mistake; `.diagnoses` lists the mistake codes (see utils.diagnose and utils.exercises). A
function that raises NotImplementedError (the stub the release tool leaves) is reported as "not attempted
yet" without raising, so the learner's notebook still runs top to bottom.

How mistakes become visible, on the GPU and in the interpreter alike, without Triton internals:
- every input sits inside a larger buffer whose guard zones hold large "poison" values, so reading past
  the end changes the result (and running again with other poison changes it again);
- `out` sits between two canary zones, so writing past it is seen afterwards;
- `out` starts filled with a garbage value that changes from case to case, so a missing `out.zero_()`
  is caught every time, not only on the second call;
- in the interpreter, the call runs under utils.bounds.guarded(): an access far outside every tensor
  the kernel was given becomes a report (`out_of_bounds_access`) instead of a crashed process.
- a one-launch exercise (notebook 07) is first called four times in a row, on inputs A, A, B, A: each
  call after the first must make one Triton launch and no torch operation on the device
  (utils.launches), every call must be right, and what the calls leave in the workspace's ticket is
  reported (the state probe, `_check_one_launch`).
When no mistake explains a failure, the report shows the smallest failing case in full. In the
interpreter, once a case has failed, a case whose launch asks for more than PROGRAM_LIMIT programs is not
run (it would take minutes) and the report says so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import warnings

import numpy as np
import torch

from utils import second_looks
from utils.bounds import find_out_of_bounds, guarded
from utils.describe import Finding
from utils.diagnose import Run, agree, close, correct, diagnose
from utils.errors import exception_report, out_of_bounds_report
from utils.exercises import EXERCISES, Case, Exercise
from utils.launches import Launches, TooManyPrograms, counting, limited_programs
from utils.setup import runs_on_gpu
from utils.stages import Stage, recording

CANARY = -31337.0  # fills the zones around out; a learner's kernel has no reason to write this value
MAX_TABLE_ROWS = 8
# In the interpreter, after a failure: the most programs one launch may ask for before its case is skipped.
PROGRAM_LIMIT = 4096


class ExerciseFailed(AssertionError):
    """A wrong answer. The message is for the learner; `diagnoses` holds the mistake codes, `findings`
    what utils.describe measured about the wrong results (true of every failing case, whatever the
    cause)."""

    def __init__(self, message: str, diagnoses: list[str], findings: list[Finding] | None = None):
        super().__init__(message)
        self.diagnoses = diagnoses
        self.findings = findings or []


def check(exercise_id: str, fn) -> bool:
    """Run `fn(*inputs, out)` on every case of the exercise; print a summary or raise ExerciseFailed.

    Returns True when every case passed and False when the exercise is not attempted yet, so a later
    cell can use the learner's function only once it works.
    """
    if exercise_id not in EXERCISES:
        raise ValueError(f"unknown exercise {exercise_id!r}; the exercises are: {', '.join(EXERCISES)}")
    if not callable(fn):
        raise TypeError(f"check({exercise_id!r}, fn): fn must be your host function, got {type(fn).__name__}")
    exercise = EXERCISES[exercise_id]
    if hasattr(fn, "arg_names") and hasattr(fn, "run"):  # a @triton.jit kernel
        raise TypeError(
            f"check({exercise_id!r}, fn) wants your host function {exercise.signature}, the "
            f"one that launches the kernel, not the @triton.jit kernel itself"
        )
    on_gpu = runs_on_gpu()
    device = "cuda" if on_gpu else "cpu"
    cases = exercise.cases(on_gpu)
    # Within a second, something on the screen: the battery takes seconds in the interpreter.
    print(f"{exercise.id}: checking {len(cases)} cases on the {device}...", flush=True)
    __tracebackhide__ = True  # IPython shows the learner's frames, not the checker's
    try:
        note = _judge(exercise, fn, device, cases, on_gpu)
    except NotImplementedError:
        print(f"{exercise.id}: not attempted yet. Hint: {exercise.hint}")
        return False
    sizes = [case.n for case in cases]
    span = f"N from {min(sizes)} to {max(sizes)}"
    print(f"{exercise.id}: all {len(cases)} cases passed ({device}, {span}{note}).")
    return True


def _judge(exercise: Exercise, fn, device: str, cases: list[Case], on_gpu: bool) -> str:
    """Run the battery; raise ExerciseFailed with the report, or return what the summary adds."""
    __tracebackhide__ = True
    if exercise.one_launch:
        _check_one_launch(exercise, fn, device, cases)
    runs: list[Run] = []
    failing: list[Run] = []
    not_run: list[str] = []
    for i, case in enumerate(cases):
        # In the interpreter, once a case has failed, a launch of very many programs is not run: it would
        # take minutes (about a millisecond a program) to add one more failing case to the report.
        limit = PROGRAM_LIMIT if failing and not on_gpu else None
        try:
            run = _run(exercise, case, fn, device, seed=i, program_limit=limit)
        except TooManyPrograms as skipped:
            not_run.append(f"'{case.name}' ({skipped.kernel}: {skipped.programs:,} programs in one launch)")
            continue
        runs.append(run)
        if not correct(exercise, run):
            failing.append(run)
    if failing:

        def again(run: Run, other_poison: bool) -> Run:
            return _run(exercise, run.case, fn, device, run.seed, poison_seed=int(other_poison))

        def rerun(case: Case, seed: int, stages: list[Stage] | None = None) -> Run:
            return _run(exercise, case, fn, device, seed, stages=stages)

        findings = second_looks.described(exercise, runs, failing)
        findings += second_looks.partials(exercise, rerun, runs, failing)
        if not on_gpu:  # a GPU runs its programs in any order already (varies_between_runs)
            findings += second_looks.order(exercise, rerun, runs, failing)
        structural = any(finding.structural for finding in findings)

        def confirms(trait: str) -> bool:
            return second_looks.probe_confirms(exercise, rerun, failing, trait)

        codes = diagnose(exercise, runs, failing, again, on_gpu, structural, confirms)
        report = _failure_report(exercise, runs, failing, codes, findings)
        if not_run:
            report += (
                f"\nNot run, since cases had already failed (the interpreter runs about one program a "
                f"millisecond): {'; '.join(not_run)}."
            )
        raise ExerciseFailed(report, codes, findings)
    note = ""
    if exercise.repeats > 1:
        if on_gpu:
            _check_repeatable(exercise, fn, device, _repeat_case(cases))
            note = f"; bit-identical over {exercise.repeats} runs"
        else:
            note = "; bit-identity across runs is judged on a GPU: the interpreter runs programs in order"
    if exercise.one_launch:
        note += "; one launch per call, right on inputs A, A, B, A in a row"
    return note


# ----------------------------------------------------------------------------------------------------
# Running one case inside guard zones


def _poison_like(numel: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Large values of random sign: any of them read by mistake visibly moves a sum, a max or a min."""
    g = torch.Generator().manual_seed(seed)
    magnitude = 1e6 if dtype == torch.float32 else 1e4  # fp16 tops out at 65504
    sign = torch.randint(0, 2, (numel,), generator=g) * 2 - 1
    return (sign * magnitude * (1 + torch.rand(numel, generator=g, dtype=torch.float64))).to(dtype)


def _guard_size(numel: int) -> int:
    return max(4096, numel)  # wide enough for a whole unmasked tile, or a whole extra copy of the input


def _guarded_input(data: torch.Tensor, layout: str, device: str, seed: int) -> torch.Tensor:
    """A view holding `data`, laid out as asked, surrounded (and, for "sliced", interleaved) by poison."""
    rows, cols = data.shape if data.dim() == 2 else (1, data.numel())
    # "sliced": a row stride longer than the row. A case's layout is its 2-D inputs' (a 1-D one, such as
    # a norm's weight, stays contiguous).
    pitch = cols + 37 if layout == "sliced" and data.dim() == 2 else cols
    guard = _guard_size(data.numel())
    buffer = _poison_like(2 * guard + rows * pitch, data.dtype, seed).to(device)
    body = buffer[guard : guard + rows * pitch]
    if data.dim() == 1:
        body.copy_(data)
        return body
    if layout == "transposed":  # strides (1, rows): the columns are contiguous, the rows are not
        view = body.view(cols, rows).t()
    else:
        view = body.view(rows, pitch)[:, :cols]
    view.copy_(data)
    return view


def _garbage(seed: int, case: Case) -> float:
    """What out holds before the call: a different value every case, alternating in sign.

    It is scaled with the case (largest |x| times sqrt(N)) so that, added to a huge sum, it still stands
    out from rounding error, and rounded to out's dtype so that an untouched out equals it exactly. A
    float16 out (the softmax's) holds probabilities, so its garbage is not scaled: it must stay finite.
    """
    g = torch.Generator().manual_seed(10_000 + seed)
    scale = max(1.0, case.inputs[0].abs().max().item() if case.n else 1.0) * math.sqrt(case.n)
    if case.out_dtype != torch.float32:
        scale = 1.0
    value = (1 if seed % 2 else -1) * (1000 + float(torch.randint(0, 1000, (1,), generator=g))) * scale
    return float(torch.tensor(value, dtype=case.out_dtype))


def _run(
    exercise: Exercise,
    case: Case,
    fn,
    device: str,
    seed: int,
    poison_seed: int = 0,
    launches: list[Launches] | None = None,
    stages: list[Stage] | None = None,
    program_limit: int | None = None,
) -> Run:
    """One call of fn on one case, inside guard zones; `launches` (if given) receives what the call
    itself asked the device to do (utils.launches), not counting the checker's own set-up; `stages` (if
    given) receives what each launch left in its scratch tensors (utils.stages)."""
    __tracebackhide__ = True
    inputs = tuple(
        _guarded_input(x, case.layout, device, 1000 * poison_seed + 10 * seed + i)
        for i, x in enumerate(case.inputs)
    )
    numel = math.prod(case.out_shape)
    guard = _guard_size(numel)
    garbage = _garbage(seed, case)
    out_buffer = torch.full((2 * guard + numel,), CANARY, dtype=case.out_dtype, device=device)
    canary = out_buffer[0].item()  # CANARY as out's dtype rounds it
    out = out_buffer[guard : guard + numel].view(case.out_shape)
    out.fill_(garbage)
    try:
        # guarded: a far-out access raises instead of killing the process. Launches are counted only where
        # asked, since the counting's dispatch mode sees every torch operation of the call. The
        # interpreter's RuntimeWarnings (numpy overflow in a masked lane, say) are silenced: the verdict
        # says what matters, and they would stand above it in a red box.
        with guarded(), contextlib.ExitStack() as counted, warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if launches is not None:
                launches.append(counted.enter_context(counting()))  # filled in while fn runs
            if stages is not None:  # what each launch left in its scratch (utils.stages), filled in too
                counted.enter_context(recording(known=[*inputs, out_buffer], into=stages))
            if program_limit is not None:  # a launch over the limit raises TooManyPrograms instead
                counted.enter_context(limited_programs(program_limit))
            returned = fn(*inputs, out)
        if device == "cuda":
            torch.cuda.synchronize()
    except (NotImplementedError, TooManyPrograms):
        raise
    except Exception as error:
        far_out = find_out_of_bounds(error)
        if far_out is not None:
            message = out_of_bounds_report(exercise, case, far_out)
            raise ExerciseFailed(message, ["out_of_bounds_access"]) from error
        raise ExerciseFailed(exception_report(exercise, case, error), ["exception"]) from error
    canaries = torch.cat([out_buffer[:guard], out_buffer[guard + numel :]])
    expected = exercise.reference(*(x.double() for x in case.inputs))
    inputs_intact = all(_same(view.cpu(), x) for view, x in zip(inputs, case.inputs))
    return Run(
        case,
        out.double().cpu(),
        expected,
        garbage,
        bool((canaries == canary).all()),
        inputs_intact,
        returned,
        seed,
    )


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal element for element, NaN matching NaN (torch.equal finds a NaN unequal to itself)."""
    return torch.equal(a, b) or (a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all()))


# ----------------------------------------------------------------------------------------------------
# Judging and diagnosing: utils.diagnose


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


def _check_one_launch(exercise: Exercise, fn, device: str, cases: list[Case]) -> None:
    """Before the battery, the state probe: four calls on inputs A, A, B, A (one case with several
    programs' worth of elements, and the same case with other values), each after the one before, with
    what each call's launches left in their scratch recorded (utils.stages). Every call after the
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
        _run(exercise, case, fn, device, seed=i, launches=seen if i else None, stages=stages[i])
        for i, case in enumerate(order)
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
    table = _table(
        ("call", "input", "expected", "got", ""),
        [
            (str(i), names[id(run.case)], *(_right(run) if ok else _describe(exercise, run)))
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
        f"{exercise.id}: four calls in a row, on inputs A, A, B, A; {right.count(False)} wrong:\n{table}\n"
        f"What the calls show:{measured}\nLikely mistake: {exercise.mistakes[code].message}"
    )
    raise ExerciseFailed(message, [code])


def _repeat_case(cases: list[Case]) -> Case:
    """The case that shows an order-dependent sum best: the largest whose values are not all integers
    (small integers add up exactly in float32 in any order, so their sums repeat even with atomics)."""
    rounding = [c for c in cases if not all(torch.equal(x, x.round()) for x in c.inputs)]
    return max(rounding or cases, key=lambda c: c.n)


def _check_repeatable(exercise: Exercise, fn, device: str, case: Case) -> None:
    results = [_run(exercise, case, fn, device, seed=0).result for _ in range(exercise.repeats)]
    distinct = {tuple(r.flatten().tolist()) for r in results}
    if len(distinct) > 1:
        message = (
            f"{exercise.id}: {len(distinct)} different results in {exercise.repeats} runs on "
            f"'{case.name}'.\nLikely mistake: {exercise.mistakes['not_deterministic'].message}"
        )
        raise ExerciseFailed(message, ["not_deterministic"])


# ----------------------------------------------------------------------------------------------------
# The report


def _fmt(value: float) -> str:
    return f"{value:.7g}"


def _right(run: Run) -> tuple[str, str, str]:
    """(expected, got, note) for a case that passed, where a report shows it next to one that failed."""
    if run.result.numel() == 1:
        return _fmt(run.expected.item()), _fmt(run.result.item()), "right"
    return "", "", "right"


def _describe(exercise: Exercise, run: Run) -> tuple[str, str, str]:
    """(expected, got, note) for one failing case."""
    if close(exercise, run.case, run.result, run.expected):
        where = "memory around out was overwritten" if not run.canaries_intact else "an input was modified"
        return "", "", f"values right, but {where}"
    if run.result.numel() == 1:
        got, want = run.result.item(), run.expected.item()
        note = (
            "never written (out's initial garbage)"
            if got == run.garbage
            else "NaN"
            if math.isnan(got)
            else f"off by {_fmt(got - want)}"
        )
        return _fmt(want), _fmt(got), note
    bad = ~agree(exercise, run.case, run.result.flatten(), run.expected.flatten())
    index = int(bad.nonzero()[0, 0])
    got = run.result.flatten()[index].item()
    unwritten = " (never written)" if got == run.garbage else ""
    return (
        f"[{index}] {_fmt(run.expected.flatten()[index].item())}",
        f"[{index}] {_fmt(got)}{unwritten}",
        f"{int(bad.sum())} of {bad.numel()} wrong",
    )


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """The report's table: left-aligned columns, indented by two spaces."""
    rows = [header, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def _failure_report(
    exercise: Exercise, runs: list[Run], failing: list[Run], codes: list[str], findings: list[Finding]
) -> str:
    table = _table(
        ("case", "expected", "got", ""),
        [(run.case.name, *_describe(exercise, run)) for run in failing[:MAX_TABLE_ROWS]],
    )
    more = f"\n  ... and {len(failing) - MAX_TABLE_ROWS} more" if len(failing) > MAX_TABLE_ROWS else ""
    passed = [run.case.name for run in runs if run not in failing]
    passed_line = f"\nPassed: {'; '.join(passed)}" if passed else ""
    measured = "".join(f"\n  - {finding.text}" for finding in findings)
    measured = f"\nWhat the wrong results show (measured on the failing cases):{measured}" if measured else ""
    if codes == ["wrong_values"] and findings:
        advice = (
            "Likely mistake: none of the common mistakes explains these results, so the checker names "
            "none; what it measured above is true of every failing case. Find the line of your kernel "
            "or host function that would have that effect."
        )
    else:
        mistakes = [exercise.mistakes[code].message for code in codes]
        advice = "Likely mistake: " + mistakes[0] + "".join(f"\n    or: {m}" for m in mistakes[1:])
    if codes == ["wrong_values"]:
        advice += "\n" + _smallest_case(exercise, failing)
    return (
        f"{exercise.id}: {len(failing)} of {len(runs)} cases wrong.\n{table}{more}{passed_line}{measured}\n"
        f"{advice}"
    )


def _smallest_case(exercise: Exercise, failing: list[Run]) -> str:
    """The failing case with the fewest input elements, in full (numpy's summary past 64 elements)."""
    run = min(failing, key=lambda r: (sum(x.numel() for x in r.case.inputs), failing.index(r)))

    def show(t: torch.Tensor) -> str:
        text = np.array2string(t.double().numpy(), precision=7, threshold=64, edgeitems=4, separator=", ")
        return text.replace("\n", "\n" + " " * 13)

    names = exercise.signature.split("(", 1)[1].rstrip(")").split(", ")[:-1]  # the inputs, without out
    lines = [f"The smallest failing case in full, '{run.case.name}', to reason about by hand:"]
    for name, x in zip(names, run.case.inputs):
        lines.append(f"  {name:<9}= {show(x)}")
    lines.append(f"  {'expected':<9}= {show(run.expected.reshape(run.case.out_shape))}")
    lines.append(f"  {'got':<9}= {show(run.result.reshape(run.case.out_shape))}")
    if run.result.numel() > 0 and bool((run.result == run.garbage).any()):
        held = _fmt(run.garbage)
        lines.append(f"  (out held {held} before the call: elements still equal to it were never written)")
    return "\n".join(lines)
