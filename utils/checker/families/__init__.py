"""The course's exercises, by family: ids, signatures, batteries, float64 references and predictions.

Every exercise is a host function in destination-passing style, `fn(*inputs, out) -> None`, that launches
the learner's kernel and writes the answer into `out`. utils.checker.runner runs it on the battery built
here.

A diagnosis is judged by effects only: for a wrong result each family computes what its common mistakes
*would* have produced on that case (padding lanes with the wrong `other=`, forgetting `pid * BLOCK_SIZE`,
reducing only the first tile, squaring after the sum, ...), and utils.checker.diagnose names the mistakes
one of whose forms (variants) explains every failing case and contradicts no passing one. Nothing here
looks at the learner's code.

One module per family, each owning its cases, predictions, messages and entries: `elementwise` (01), `sums`
(02, 07) and `extremes` and `argmax` (03), which share `reductions`; `transforms` (04, 07: the norms and the
count, with `lossy`), with `logsumexp` and `mean_var` (06) sharing its messages; `rows` (05, with
`row_chunks` for a row split among programs), `softmax` (08, the capstone) with `softmax_online` (08's long
rows, read in tiles) and `softmax_split` (08's exercise 3, a row split across programs), `norms` (09); and
`backward`, `norm_backward` and `column_sums` (10, the backward passes). What they share is in
utils.checker.model (the types), utils.checker.predictions (how a prediction is recorded),
utils.checker.data (input data) and utils.checker.messages; the mistakes any exercise can make (never
written, out of bounds, ...) belong to the checker. CONTRIBUTING.md says how to add an exercise.
"""

from utils.checker.families import (
    argmax,
    backward,
    column_sums,
    elementwise,
    extremes,
    logsumexp,
    mean_var,
    norm_backward,
    norms,
    rows,
    softmax,
    softmax_online,
    softmax_split,
    sums,
    transforms,
)
from utils.checker.model import Exercise, registry

EXERCISES: dict[str, Exercise] = registry(
    *elementwise.EXERCISES,
    *sums.EXERCISES,
    *extremes.EXERCISES,
    *argmax.EXERCISES,
    *transforms.EXERCISES,
    *logsumexp.EXERCISES,
    *mean_var.EXERCISES,
    *rows.EXERCISES,
    *softmax.EXERCISES,
    *softmax_online.EXERCISES,
    *softmax_split.EXERCISES,
    *norms.EXERCISES,
    *backward.EXERCISES,
    *column_sums.EXERCISES,
    *norm_backward.EXERCISES,
)
