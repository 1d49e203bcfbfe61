"""Score the checker on the course's own submissions, on the four counts issue 15 measures it by.

    python -m tests.checker_score            # all exercise ids
    python -m tests.checker_score sum_atomic mean_var

For every submission in tests/submissions/ it runs utils.check.check in a forked child process, so that a
submission that kills its process is counted (and the scoring goes on), and prints:
- wrong caught: the wrong submissions the checker failed (and right accepted: the right ones it passed);
- named: the caught ones whose diagnoses include the mistake the submission carries;
- misleading: the caught ones whose diagnoses name a mistake it does not carry;
- dead: the children that died instead of returning a verdict.
tests/test_check.py asserts each submission's verdict one by one; this prints the totals for a report.
It forks because a dead check must not end the count, and subprocess with a fresh interpreter per
submission would import torch and triton 200 times (multiprocessing's pools share one worker's fate).
"""

from __future__ import annotations

import os
import pickle
import sys
from collections import Counter

import tests.conftest  # noqa: F401  (first: one thread per process, the interpreter without a GPU)
from tests.test_check import _has_submissions, _submissions
from utils.check import ExerciseFailed, check
from utils.checker.families import EXERCISES


def _verdict(exercise_id: str, fn) -> tuple[str, list[str]]:
    """("passed" | "failed" | "not attempted", diagnoses), computed in a forked child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the check, send the verdict, leave without cleanup
        os.close(read)
        try:
            sys.stdout = open(os.devnull, "w")
            result = ("passed", []) if check(exercise_id, fn) else ("not attempted", [])
        except ExerciseFailed as failure:
            result = ("failed", list(failure.diagnoses))
        except BaseException as error:  # the checker itself broke: report it as a verdict of its own
            result = ("checker error", [repr(error)])
        os.write(write, pickle.dumps(result))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return "dead", [f"exit status {status}"]
    return pickle.loads(data)


def score(exercise_ids: list[str]) -> Counter:
    counts: Counter = Counter()
    for exercise_id in exercise_ids:
        if not _has_submissions(exercise_id):
            continue
        module = _submissions(exercise_id)
        for fn in module.CORRECT:
            verdict, codes = _verdict(exercise_id, fn)
            counts["right"] += 1
            counts["right accepted"] += verdict == "passed"
            counts["dead"] += verdict == "dead"
            if verdict != "passed":
                print(f"  right one refused: {exercise_id}/{fn.__name__}: {verdict} {codes}")
        for fn, expected in module.WRONG:
            expected = {expected} if isinstance(expected, str) else set(expected)
            verdict, codes = _verdict(exercise_id, fn)
            counts["wrong"] += 1
            counts["dead"] += verdict == "dead"
            if verdict != "failed":
                print(f"  wrong one not caught: {exercise_id}/{fn.__name__}: {verdict} {codes}")
                continue
            counts["wrong caught"] += 1
            named = bool(expected & set(codes)) or expected == {"wrong_values"} == set(codes)
            counts["named"] += named
            extra = set(codes) - expected
            counts["misleading"] += bool(extra)
            if not named or extra:
                print(f"  {exercise_id}/{fn.__name__}: expected {sorted(expected)}, got {codes}")
    return counts


def main(argv: list[str]) -> int:
    ids = argv or list(EXERCISES)
    counts = score(ids)
    caught, wrong = counts["wrong caught"], counts["wrong"]
    print(f"exercise ids: {len(ids)}")
    print(f"right accepted: {counts['right accepted']} of {counts['right']}")
    print(f"wrong caught:   {caught} of {wrong} ({100 * caught / max(wrong, 1):.1f}%)")
    named = counts["named"]
    print(f"named:          {named} of {caught} caught ({100 * named / max(caught, 1):.1f}%)")
    print(f"misleading:     {counts['misleading']}")
    print(f"dead processes: {counts['dead']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
