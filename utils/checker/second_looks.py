"""The checker's second looks at a failing case, each a re-run that settles one question by its effects.

- `described`: utils.checker.describe's findings, guarded so that a bug in describing never hides a verdict;
- `partials`: for a reduction of a 1-D input, the smallest failing case of several tiles run again with
  each launch's scratch recorded (utils.checker.stages): right partials put the error after them;
- `order`: in the interpreter, a failing case run again, first in the same order (a result that changes
  then depends on more than the order), then with the programs in the reverse order: a result that
  changes depends on the order the programs run in;
- `passed_before`: in the interpreter, a case that passed before the first failing one, run again: a
  result that is now wrong depends on the calls made in between;
- `probe_confirms`: a trait's probe (Exercise.trait_probe), the failing case again with values on which
  the trait's mistake does no harm.

Each takes `rerun(case, seed, stages=None) -> Run` from utils.checker.runner (one call inside guard zones); a
re-run that raises gives no evidence either way.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

from utils.checker.describe import Finding, describe
from utils.checker.judge import Run, close, correct
from utils.checker.model import Exercise
from utils.checker.stages import Stage, partials_finding, programs_reversed

# rerun(case, seed, stages=None): utils.checker.runner._run, bound to fn and device
Rerun = Callable[..., Run]


def described(exercise: Exercise, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """utils.checker.describe's findings; should describing itself fail, none (the verdict stands without
    them), and a line that says so, so that the failure is seen and reported rather than hidden."""
    try:
        return describe(exercise, runs, failing)
    except Exception as error:  # a bug of the checker's: the learner's verdict must not be lost to it
        return [Finding("checker", f"(the checker could not describe these results: {error!r})")]


def partials(exercise: Exercise, rerun: Rerun, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """For a reduction of a 1-D input: the smallest failing case of several tiles run again, each launch's
    scratch recorded (utils.checker.stages); a scratch that holds the right partials says that the error comes
    after them."""
    whole = [r for r in failing if r.case.inputs[0].dim() == 1 and r.result.numel() == 1 and r.case.n > 64]
    if not whole:
        return []
    run = min(whole, key=lambda r: r.case.n)
    stages: list[Stage] = []
    try:
        again = rerun(run.case, run.seed, stages=stages)
    except Exception:  # the learner's code raised this time: no evidence
        return []
    if correct(exercise, again):  # right this time: the partials say nothing about the failure
        return []
    found = partials_finding(run.case.inputs[0].double(), stages, out_written=not again.untouched)
    if found is None:
        return []
    said, every_scratch = found
    then = (
        "so the error comes after them (the combine or the finish)"
        if every_scratch
        else "that launch also wrote a scratch the checker cannot judge, so the error may be there"
    )
    return [Finding("partials", f"'{run.case.name}': {said}; {then}")]


def _smallest(failing: list[Run], count: int) -> list[Run]:
    """The `count` failing runs with the fewest input elements: a re-run in the interpreter costs about a
    millisecond a program, so the small cases settle a question at a small price."""
    return sorted(failing, key=lambda run: sum(x.numel() for x in run.case.inputs))[:count]


def order(exercise: Exercise, rerun: Rerun, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """In the interpreter, the two smallest failing cases run again with the programs in the reverse order
    (utils.checker.stages.programs_reversed): a result that changes shows that the order matters (programs
    that race, or memory no program wrote whose contents follow the order). Each first runs
    again in the same order: a result that changes then depends on something besides the order (memory no
    program wrote, such as a torch.empty buffer read before any store, or state an earlier call left), and
    the order is not blamed."""
    said = {
        False: (
            "rerun",
            "run again on the same inputs, with the programs in the same order, the result changes: it "
            "depends on something besides the inputs and the order: memory that no program wrote (a "
            "torch.empty buffer read before any store), or something an earlier call left behind (a counter "
            "or buffer your function keeps between calls)",
        ),
        True: (
            "order",
            "run again with the programs in the reverse order, the result changes, so it depends on the "
            "order the programs run in (on a GPU, an order that changes from run to run): programs that "
            "race, such as several storing into one element, or one reading what another has not written "
            "yet; or memory that no program wrote (a torch.empty buffer read before any store), whose "
            "contents can follow the order the programs ran in",
        ),
    }

    def changes(run: Run, reverse: bool) -> bool | None:  # None: no evidence either way
        with programs_reversed() if reverse else nullcontext(True) as ready:
            if not ready:  # another Triton's interpreter: the order cannot be reversed
                return None
            try:
                again = rerun(run.case, run.seed)
            except Exception:  # the learner's code raised this time
                return None
        return not close(exercise, run.case, again.result, run.result)

    for run in _smallest(failing, 2):
        for reverse in (False, True):  # the same order first: a change there is not the order's
            changed = changes(run, reverse)
            if changed is None:
                return []
            if changed:
                kind, text = said[reverse]
                return [Finding(kind, f"'{run.case.name}': {text}")]
    return []


def passed_before(exercise: Exercise, rerun: Rerun, runs: list[Run], failing: list[Run]) -> list[Finding]:
    """In the interpreter, the smallest case that passed before the first failing case ran, run again on
    the same inputs: a result that is now wrong depends on the calls made since (the interpreter runs the
    programs in one order, so a race cannot explain it; on a GPU it could, and this look is not taken).
    The effect names two kinds of cause, not which: state the function keeps between calls and does not
    put back, or memory it reads before writing, whose contents earlier calls left."""
    first_failing = next(
        i for i, run in enumerate(runs) if run is failing[0]
    )  # Runs hold tensors: by identity
    passed = [run for run in runs[:first_failing] if correct(exercise, run)]
    if not passed:
        return []
    run = _smallest(passed, 1)[0]
    try:
        again = rerun(run.case, run.seed)
    except Exception:  # the learner's code raised this time: no evidence
        return []
    if correct(exercise, again):
        return []
    return [
        Finding(
            "state",
            f"'{run.case.name}' passed when it ran before the failing cases, and is wrong when run again "
            "on the same inputs after them: the result depends on the calls made before. Either the "
            "function keeps something from one call to the next and does not put it back (a counter, a "
            "ticket, a workspace kept between calls), or it reads memory before writing it (a torch.empty "
            "buffer), whose contents earlier calls left",
        )
    ]


def probe_confirms(exercise: Exercise, rerun: Rerun, failing: list[Run], trait: str) -> bool:
    """Whether the learner's function passes the trait's probe on the two smallest failing cases (True
    where the exercise has no probe for the trait: the other conditions of utils.checker.diagnose._traits
    decide)."""
    probe = exercise.trait_probe(trait)
    if probe is None:
        return True
    try:
        probes = [rerun(probe(run.case), i) for i, run in enumerate(_smallest(failing, 2))]
    except Exception:  # the probe made the learner's code raise: no agreement
        return False
    return all(correct(exercise, run) for run in probes)
