"""The checker: `check(exercise_id, fn)` runs a learner's host function on its battery and explains failures.

    check("sum_atomic", sum_atomic)     # prints one line and returns True on success

On a wrong answer it raises `ExerciseFailed` (an AssertionError) whose message has a table of the failing
cases and the likely mistake; `.diagnoses` lists the mistake codes (see utils.checker.diagnose and
utils.checker.families). A function that raises NotImplementedError (the stub the release tool leaves) is
reported as "not attempted yet" without raising, so the learner's notebook still runs top to bottom.

How mistakes become visible, on the GPU and in the interpreter alike, without Triton internals:
- every input sits inside a larger buffer whose guard zones hold large "poison" values, so reading past
  the end changes the result (and running again with other poison changes it again);
- `out` sits between two canary zones, so writing past it is seen afterwards; for an exercise whose text
  promises out's strides (Exercise.strided_out), out is laid out as the case's inputs are, its gaps
  canaries too;
- `out` starts filled with a garbage value that changes from case to case, so a missing `out.zero_()`
  is caught every time, not only on the second call;
- in the interpreter, the call runs under utils.checker.bounds.guarded(): an access far outside every tensor
  the kernel was given becomes a report (`out_of_bounds_access`) instead of a crashed process.
- a one-launch exercise (notebook 07) is first called several times in a row, on inputs small, large,
  the same again, other values, and shorter ones after longer ones: each call on a shape called before
  must make one Triton launch and no torch operation on the device (utils.launches), every call must be
  right, and what the calls leave in the workspace is reported (the state probe,
  utils.checker.one_launch).
- on a CPU, once every case has passed, each kernel the battery launched is compiled for a GPU
  (utils.checker.gpu_compile): what the interpreter ran but the compiler refuses fails the exercise.
When no mistake explains a failure, the report shows the smallest failing case in full. In the
interpreter, once a case has failed, a case whose launch asks for more than PROGRAM_LIMIT programs is not
run (it would take minutes) and the report says so.
"""

from __future__ import annotations

import contextlib
import math
import warnings

import torch

from utils.checker import gpu_compile, keys, probes, races, second_looks
from utils.checker.access import find_out_of_bounds
from utils.checker.bounds import guarded, take_near_reads
from utils.checker.diagnose import diagnose
from utils.checker.errors import exception_report, out_of_bounds_report
from utils.checker.families import EXERCISES
from utils.checker.judge import Run, correct
from utils.checker.model import Case, Exercise, input_layout, out_layout
from utils.checker.one_launch import one_launch
from utils.checker.report import ExerciseFailed, failure_report
from utils.checker.stages import Stage, recording
from utils.launches import Launches, TooManyPrograms, counting, limited_programs
from utils.setup import runs_on_gpu

CANARY = -31337.0  # fills the zones around out; a learner's kernel has no reason to write this value
# In the interpreter, after a failure: the most programs one launch may ask for before its case is skipped.
PROGRAM_LIMIT = 4096
# Codes that leave "a case ran right after one of its shape" standing beside them: no name, or a state
# kept between calls. Any other code explains the values, and the condition only distracts.
_UNNAMED = {"wrong_values", "not_written_where_failing"}  # no mistake of the values named
_STATE_OR_UNNAMED = _UNNAMED | {"varies_between_runs", "earlier_input_reused", "stale_out"}


def check(exercise_id: str, fn) -> bool:
    """Run `fn(*inputs, out)` on every case of the exercise; print a summary or raise ExerciseFailed.

    Returns True when every case passed and False when the exercise is not attempted yet, so a later
    cell can use the learner's function only once it works.
    """
    if exercise_id not in EXERCISES and exercise_id not in keys.KEY_EXERCISES:
        known = ", ".join([*EXERCISES, *keys.KEY_EXERCISES])
        raise ValueError(f"unknown exercise {exercise_id!r}; the exercises are: {known}")
    if not callable(fn):
        raise TypeError(f"check({exercise_id!r}, fn): fn must be your host function, got {type(fn).__name__}")
    if exercise_id in keys.KEY_EXERCISES:  # a cache key, judged by the keys it gives (utils.checker.keys)
        __tracebackhide__ = True
        return keys.check(exercise_id, fn, "cuda" if runs_on_gpu() else "cpu")
    exercise = EXERCISES[exercise_id]
    if hasattr(fn, "arg_names") and hasattr(fn, "run"):  # a @triton.jit kernel
        raise TypeError(
            f"check({exercise_id!r}, fn) wants your host function {exercise.signature}, the "
            f"one that launches the kernel, not the @triton.jit kernel itself"
        )
    on_gpu = runs_on_gpu()
    device = "cuda" if on_gpu else "cpu"
    cases = [case for case in exercise.cases(on_gpu) if not case.skipped_by(fn)]
    # Within a second, something on the screen: the battery takes seconds in the interpreter.
    print(f"{exercise.id}: checking {len(cases)} cases on the {device}...", flush=True)
    __tracebackhide__ = True  # IPython shows the learner's frames, not the checker's
    compiling = not on_gpu and gpu_compile.enabled()  # a GPU compiles every launch itself
    launched: dict[str, gpu_compile.Launched] = {}
    try:
        with contextlib.ExitStack() as recording_launches:
            if compiling:
                launched = recording_launches.enter_context(gpu_compile.first_launches())
            note = _judge(exercise, fn, device, cases, on_gpu)
    except NotImplementedError:
        print(f"{exercise.id}: not attempted yet. Hint: {exercise.hint}")
        return False
    refused = gpu_compile.refusals(launched) if compiling else []
    if refused:
        raise ExerciseFailed(gpu_compile.report(exercise.id, refused), ["gpu_compile_refused"])
    sizes = [case.n for case in cases]
    span = f"N from {min(sizes):,} to {max(sizes):,} elements of {exercise.input_names[0]}"
    print(f"{exercise.id}: all {len(cases)} cases passed ({device}, {span}{note}).")
    return True


def _judge(exercise: Exercise, fn, device: str, cases: list[Case], on_gpu: bool) -> str:
    """Run the battery; raise ExerciseFailed with the report, or return what the summary adds."""
    __tracebackhide__ = True

    def call(case: Case, seed: int, **options) -> Run:  # one call in guard zones, for utils.checker.probes
        return _run(exercise, case, fn, device, seed, **options)

    if exercise.one_launch:  # the chain's cases that failed whatever came before join the battery
        cases = cases + one_launch(exercise, call, cases)
    runs: list[Run] = []
    failing: list[Run] = []
    not_run: list[str] = []
    near_reads: dict[str, list[str]] = {}  # case name -> loads inside memory but outside a tensor (bounds)
    accesses: dict[str, races.Accesses] = {}  # case name -> its stores' races, its atomic lanes (races)
    take_near_reads(), races.take()  # none left from calls before this check
    for i, case in enumerate(cases):
        # In the interpreter, once a case has failed, a launch of very many programs is not run: it would
        # take minutes (about a millisecond a program) to add one more failing case to the report.
        limit = PROGRAM_LIMIT if failing and not on_gpu else None
        try:
            run = _run(exercise, case, fn, device, seed=i, program_limit=limit)
        except TooManyPrograms as skipped:
            not_run.append(f"'{case.name}' ({skipped.kernel}: {skipped.programs:,} programs in one launch)")
            continue
        finally:
            near_reads[case.name], accesses[case.name] = take_near_reads(), races.take()
        runs.append(run)
        if not correct(exercise, run):
            failing.append(run)
    read_past = {name: reads for name, reads in near_reads.items() if reads}
    if read_past and not failing:  # right values, read from memory the kernel was not given
        name, reads = next(iter(read_past.items()))
        message = (
            f"{exercise.id}: every case gave the right values, but on {len(read_past)} of them the kernel "
            f"read outside a tensor it was given; on case '{name}', " + "; ".join(reads) + ".\n"
            f"Likely mistake: {exercise.mistakes['read_past_end'].message}"
        )
        raise ExerciseFailed(message, ["read_past_end"])
    if failing:

        def again(run: Run, other_poison: bool) -> Run:
            return _run(exercise, run.case, fn, device, run.seed, poison_seed=int(other_poison))

        def rerun(case: Case, seed: int, stages: list[Stage] | None = None) -> Run:
            return _run(exercise, case, fn, device, seed, stages=stages)

        findings = second_looks.described(exercise, runs, failing)
        findings += second_looks.partials(exercise, rerun, runs, failing)
        if not on_gpu:  # a GPU runs its programs in any order already (varies_between_runs)
            findings += second_looks.passed_before(exercise, rerun, runs, failing)
            findings += second_looks.order(exercise, rerun, runs, failing)
        structural = any(finding.structural for finding in findings)

        def confirms(trait: str) -> bool:
            return second_looks.probe_confirms(exercise, rerun, failing, trait)

        codes = diagnose(exercise, runs, failing, again, on_gpu, structural, confirms)
        if set(codes) <= _UNNAMED and any(f.kind == "state" for f in findings):
            # a case right before the failing ones and wrong after them, on the same inputs: the result
            # changes from one call to the next, whatever else explains the values
            codes = ["varies_between_runs"]
        if not set(codes) <= _STATE_OR_UNNAMED:  # a mistake of the values explains them: no "if you keep"
            findings = [f for f in findings if f.kind != "same_shape"]
        report = failure_report(exercise, runs, failing, codes, findings)
        if not_run:
            report += (
                f"\nNot run, since cases had already failed (the interpreter runs about one program a "
                f"millisecond): {'; '.join(not_run)}."
            )
        raise ExerciseFailed(report, codes, findings)
    probes.same_shape_again(exercise, call, cases)
    if exercise.combine_in_triton:
        probes.combined_in_triton(exercise, call, cases)
    if not on_gpu:
        probes.reversed_order(exercise, call, cases)
        # right in either order: stores that only the interpreter orders, or atomics not as asked
        races.judge(exercise, [run.case for run in runs], accesses)
    note = ""
    if exercise.repeats > 1:  # bit-identical results asked for, whichever order the programs run in
        if on_gpu:
            probes.repeatable(exercise, call, probes.repeat_case(cases))
            note = f"; bit-identical over {exercise.repeats} runs"
        elif probes.same_bits_reversed(exercise, call, cases):
            note = "; the same bits with the programs in reverse order (a GPU varies the order itself)"
        else:
            note = "; bit-identity is judged on a GPU: this interpreter cannot reverse the programs' order"
    if exercise.one_launch:
        note += "; one launch per call, right in calls in a row, shorter after longer"
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
    """A view holding `data`, laid out as asked, surrounded (and, for "sliced", interleaved) by poison.
    A case's layout is its 2-D inputs' (a 1-D one, such as a norm's weight, stays contiguous)."""
    shape = tuple(data.shape)
    guard = _guard_size(data.numel())
    buffer = _poison_like(2 * guard + _span(shape, layout), data.dtype, seed).to(device)
    view = _laid_out(buffer[guard:], shape, layout)
    view.copy_(data)
    return view


SLICED_GAP = 37  # a "sliced" view's row stride is its row's length plus this many elements


def _span(shape: tuple[int, ...], layout: str) -> int:
    """How many elements a view of `shape` laid out as `layout` spans (see _laid_out)."""
    if len(shape) == 2 and layout == "sliced":
        return shape[0] * (shape[1] + SLICED_GAP)
    return math.prod(shape)


def _laid_out(body: torch.Tensor, shape: tuple[int, ...], layout: str) -> torch.Tensor:
    """A view of `shape` at the start of the flat `body` (at least _span long), laid out as asked:
    contiguous; "transposed", strides (1, rows), the columns contiguous and the rows not; or "sliced", a
    row stride longer than the row. A shape that is not 2-D is contiguous whatever the layout."""
    if len(shape) != 2 or layout == "contiguous":
        return body[: math.prod(shape)].view(shape)
    rows, cols = shape
    if layout == "transposed":
        return body[: rows * cols].view(cols, rows).t()
    return body[: _span(shape, layout)].view(rows, cols + SLICED_GAP)[:, :cols]


def _garbage(seed: int, case: Case) -> float:
    """What out holds before the call: a different value every case, alternating in sign.

    It is scaled with the case (largest |x| times sqrt(N)) so that, added to a huge sum, it still stands
    out from rounding error, and rounded to out's dtype so that an untouched out equals it exactly. A
    float16 out (the softmax's) holds probabilities, so its garbage is not scaled. It stays finite: an
    infinity would equal the answer of an all-inf input, or a sum that overflows (at most 2e37 then).
    """
    g = torch.Generator().manual_seed(10_000 + seed)
    finite = case.inputs[0][torch.isfinite(case.inputs[0])] if case.n else case.inputs[0]
    scale = max(1.0, finite.abs().max().item() if finite.numel() else 1.0) * math.sqrt(case.n)
    if case.out_dtype != torch.float32:
        scale = 1.0
    value = (1 if seed % 2 else -1) * (1000 + float(torch.randint(0, 1000, (1,), generator=g)))
    return float(torch.tensor(value * min(scale, 1e34), dtype=case.out_dtype))


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
    given) receives what each launch left in its scratch tensors (utils.checker.stages)."""
    __tracebackhide__ = True
    inputs = tuple(
        _guarded_input(x, input_layout(case.layout, i), device, 1000 * poison_seed + 10 * seed + i)
        for i, x in enumerate(case.inputs)
    )
    layout = out_layout(exercise, case)
    guard = _guard_size(math.prod(case.out_shape))
    garbage = _garbage(seed, case)
    # a sliced out's gaps hold the canary too, so a write into one shows
    span = _span(case.out_shape, layout)
    out_buffer = torch.full((2 * guard + span,), CANARY, dtype=case.out_dtype, device=device)
    canary = out_buffer[0].item()  # CANARY as out's dtype rounds it
    out = _laid_out(out_buffer[guard:], case.out_shape, layout)
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
            if stages is not None:  # what each launch left in its scratch (utils.checker.stages)
                counted.enter_context(recording(known=[*inputs, out_buffer], into=stages))
            if program_limit is not None:  # a launch over the limit raises TooManyPrograms instead
                counted.enter_context(limited_programs(program_limit))
            returned = fn(*inputs, out, **case.kwargs)
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
    around = out_buffer.clone()  # every element but out's: the canary, unless written past out
    _laid_out(around[guard:], case.out_shape, layout).fill_(canary)
    expected = exercise.reference(*(x.double() for x in case.inputs), **case.kwargs)
    names = exercise.input_names
    changed = tuple(
        names[i] if i < len(names) else f"input {i + 1}"
        for i, (view, x) in enumerate(zip(inputs, case.inputs))
        if not _same(view.cpu(), x)
    )
    # read from the memory out was given, through a view of our own: the function's out may have been
    # rebound (out.data = result) to other memory, which the caller never sees
    written = _laid_out(out_buffer[guard:], case.out_shape, layout)
    return Run(
        case,
        written.double().cpu(),
        expected,
        garbage,
        bool((around == canary).all()),
        changed,
        returned,
        seed,
    )


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal element for element, NaN matching NaN (torch.equal finds a NaN unequal to itself)."""
    return torch.equal(a, b) or (a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all()))
