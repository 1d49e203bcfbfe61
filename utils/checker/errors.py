"""What a learner's exception or far-out access means: the checker's words for errors raised in a call.

utils.checker.runner catches what the learner's host function or kernel raises and reports it with these
sentences: the error's own text (and its causes', since Triton wraps the compiler's message), and a hint
where the text matches an error the course teaches (a tile sent to a scalar pointer, a float16 overflow
in the interpreter, a Python global read in a kernel, tiles whose shapes do not line up, a grid that is
not a tuple, an illegal memory access on a GPU, no GPU and no interpreter, a keyword argument the
learner's function does not take).
"""

from __future__ import annotations

import re

from utils.checker.access import OutOfBoundsAccess
from utils.checker.model import Case, Exercise

# Errors the course teaches, recognised by what Triton says (the error and its causes, any version), and
# the sentence that points the learner to where the notebooks explain them.
ERROR_HINTS = [
    (
        r"Value argument cannot be block type if pointer argument is not a block|tt\.atomic_rmw|"
        r"cannot reshape array of size \d+ into shape \(1,\)|error encountered during parsing",
        "If the line above (or the compiler's output before this report) names tt.atomic_rmw or a block "
        "value: a tile of values went to a scalar pointer, e.g. tl.atomic_add(out_ptr + row, acc) with acc "
        "a tile. Reduce the tile first, tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0)), or make the "
        "pointer a tile too; notebook 05's section on the tt.atomic_rmw error shows both fixes.",
    ),
    (
        r"overflow to signed inf",
        "The interpreter refused a float16 value past 65504, the largest float16: an accumulator, a "
        "scratch or an atomic in float16. Accumulate in float32 (.to(tl.float32) on each tile, a float32 "
        "scratch), and convert only the final result.",
    ),
    (
        r"make_shape_compatible|incompatible dimensions|could not be broadcast|Cannot broadcast|"
        r"argument to have shape",
        "Two tiles whose shapes do not line up met in one operation. A reduction removes the axis it "
        "runs along: of a (ROWS, COLS) tile, tl.max(x, axis=1) has shape (ROWS,), one value per row, and "
        "tl.sum(x, axis=0) shape (COLS,), one per column. Check that each reduction runs along the axis "
        "you meant; to use a row's value against the tile, write x - m[:, None], which stands it up as "
        "a column. Triton reports the error where the shapes finally meet, which may be a later "
        "tl.store rather than the line that made the mismatch.",
    ),
    (
        r"mask has unsupported dtype",
        "A mask must be a tile of booleans, one per lane, shaped like the offsets: mask = offsets < n. A "
        "comparison of one number, such as pid * BLOCK_SIZE < n, gives one boolean for the whole tile, "
        "and the interpreter refuses it as a mask.",
    ),
    (
        r"0 active drivers",
        "Triton found no GPU, and its interpreter was off when this kernel was defined: run the notebook's "
        "set-up cell first (on a machine without a GPU it turns the interpreter on, TRITON_INTERPRET=1), "
        "then run the cell that defines your kernel again, and this check.",
    ),
    (
        r"Cannot access global variable",
        "A kernel read a plain Python global, which the GPU compiler refuses (the interpreter does not): "
        "use a literal, or a tl.constexpr global (NEG = tl.constexpr(float('-inf'))); notebook 01's "
        "'The interpreter is not a GPU' shows it.",
    ),
]


def error_text(error: BaseException) -> str:
    """The error's text and its causes' (Triton wraps the compiler's message in its own exception)."""
    texts, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts.append(str(current))
        current = current.__cause__ or current.__context__
    return "\n".join(texts)


def out_of_bounds_report(exercise: Exercise, case: Case, far_out: OutOfBoundsAccess) -> str:
    """A far-out access, caught by utils.checker.bounds before it could crash the interpreter."""
    return (
        f"{exercise.id}: on case '{case.name}' your kernel reached memory outside its tensors, "
        f"and the checker stopped it before it could crash Python:\n    {far_out}\n"
        f"Likely mistake: {exercise.mistakes['out_of_bounds_access'].message}"
    )


def exception_report(exercise: Exercise, case: Case, error: Exception) -> str:
    text = f"{exercise.id}: your code raised {type(error).__name__} on case '{case.name}':\n    {error}"
    said = error_text(error)
    text += "".join(f"\n{hint}" for pattern, hint in ERROR_HINTS if re.search(pattern, said))
    unexpected = re.search(r"unexpected keyword argument '(\w+)'", str(error))
    if isinstance(error, TypeError) and unexpected and unexpected.group(1) in case.kwargs:
        name = unexpected.group(1)
        text += (
            f"\nThis case calls your function with {name}={case.kwargs[name]:g}, as the exercise's signature "
            f"{exercise.signature} allows: give your host function that parameter, with its default, and "
            "pass it on to the kernel."
        )
    if "has no len()" in str(error) or "not iterable" in str(error) and "grid" in str(error):
        text += "\nA launch grid is a tuple, even with one entry: kernel[(triton.cdiv(n, BLOCK_SIZE),)](...)."
    if "illegal memory access" in str(error) or "misaligned address" in str(error):
        text += (
            "\nThe kernel touched memory far outside its tensors (a missing mask, or offsets without "
            "bounds). The GPU context is now unusable: restart the Jupyter kernel, fix the kernel, "
            "and run the notebook from the top."
        )
    return text + "\n(the full traceback is above this message)"
