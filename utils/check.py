"""The learner's entry point: `check(exercise_id, fn)` runs a host function on its exercise's battery.

    from utils.check import check
    check("sum_atomic", sum_atomic)     # prints one line and returns True on success

On a wrong answer it raises `ExerciseFailed`, whose message says which cases failed, what the wrong
results show and the likely mistake. The checker itself is the package utils.checker.
"""

from utils.checker.report import ExerciseFailed
from utils.checker.runner import check

__all__ = ["ExerciseFailed", "check"]
