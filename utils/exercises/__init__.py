"""The course's exercises: ids, signatures, test batteries, float64 references and diagnoses, by family.

Every exercise is a host function in destination-passing style, `fn(*inputs, out) -> None`, that launches
the learner's kernel and writes the answer into `out`. `utils.check` runs it on the battery built here.

A diagnosis is judged by effects only: for a wrong result we compute what each common mistake *would*
have produced on that case (padding lanes with the wrong `other=`, forgetting `pid * BLOCK_SIZE`,
reducing only the first tile, squaring after the sum, ...) and name the mistakes one of whose forms
(variants) explains every failing case and contradicts no passing one. Nothing here looks at the
learner's code.

One module per family, each owning its cases, predictions, messages and entries: `elementwise` (01),
`totals` (02, 03, 07), `transforms` (04, 06, 07), `rows` (05), `softmax` (08, the capstone), `norms`
(09). `core` holds the types and what they share; the mistakes any exercise can make (never written, out
of bounds, ...) belong to the checker, `utils.diagnose`. CONTRIBUTING.md says how to add an exercise.
"""

from utils.exercises import elementwise, norms, rows, softmax, totals, transforms
from utils.exercises.core import (
    FP32_EPS,
    POWERS_OF_TWO,
    UNWRITTEN,
    Case,
    Exercise,
    Mistake,
    registry,
    sum_tolerance,
)

EXERCISES: dict[str, Exercise] = registry(
    *elementwise.EXERCISES,
    *totals.EXERCISES,
    *transforms.EXERCISES,
    *rows.EXERCISES,
    *softmax.EXERCISES,
    *norms.EXERCISES,
)

__all__ = [
    "EXERCISES",
    "FP32_EPS",
    "POWERS_OF_TWO",
    "UNWRITTEN",
    "Case",
    "Exercise",
    "Mistake",
    "sum_tolerance",
]
