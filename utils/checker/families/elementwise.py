"""The elementwise family (notebook 01): out has the input's shape, one element per lane.

Their mistakes show as which prefix of out got written (a grid without the program offset writes the
first tile over and over, a grid rounded down leaves the last, partial tile unwritten) or as the wrong
value in every element (a round trip through float16, one input used twice, tl.minimum for a ReLU).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import torch

from utils.checker.data import describe, vector_cases
from utils.checker.data import values as case_values
from utils.checker.messages import SUM_WORDS, TILE_MESSAGES
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import (
    POWERS_OF_TWO,
    Alternatives,
    Form,
    Predictions,
    Variant,
    predict,
    predict_each,
    too_large_to_predict,
)

MESSAGES = {
    **{code: TILE_MESSAGES[code] for code in ("tail_not_processed", "grid_block_mismatch")},
    # One code for two causes: out looks the same after either, so the sentence names both.
    "first_tile_only": "only out's first tile (its first BLOCK_SIZE elements) was written. These mistakes "
    "leave exactly this, and the output cannot tell them apart: a grid of one program, (1,) where it "
    "must be (triton.cdiv(n, BLOCK_SIZE),), or a grid worked out on an earlier call of one tile and kept; "
    "offsets missing pid * BLOCK_SIZE, so that every program "
    "wrote the first tile again; or a pid read from another axis (tl.program_id(1) is 0 on a 1-D grid).",
    "last_element_dropped": "out[n - 1], the last element, was never written: a mask of offsets < n - 1 "
    "(or <= n - 2). Mask with offsets < n.",
    "float16_round_trip": "out is right only to half precision (about 3 significant digits, and inf beyond "
    "65504 in float16): the values went through float16 or bfloat16 between the load and the store, a "
    ".to(tl.float16) on the tile, say. Keep them float32 from tl.load to tl.store.",
}
VECTOR_ADD_MESSAGES = {
    "input_used_twice": "out is x + x (or y + y): one input was loaded twice. Load x from x_ptr and y from "
    "y_ptr, both at the same offsets, and store x + y.",
    "input_ignored": "out is x alone (or y alone): the other input was never added. Load both, "
    "from x_ptr and y_ptr, and store x + y.",
}
RELU_MESSAGES = {
    "builtin_max": "out came back all 0.0 (from max(x, 0.0)) or equal to x (from max(0.0, x)): Python's "
    "built-in max() was used on a tile. The interpreter compares the two arguments once, as "
    "wholes, and returns one of them unchanged; the GPU compiler turns it into tl.maximum (and "
    "recent Triton warns that this is deprecated). Write tl.maximum(x, 0.0): it compares element by element.",
    "relu_not_applied": "out equals x, negative values included: the kernel stored the tile as it "
    "loaded it. Store tl.maximum(x, 0.0), or tl.where(x > 0, x, 0.0).",
    "min_instead_of_max": "out kept the negative values and set the positive ones to 0: tl.minimum "
    "instead of tl.maximum, or a tl.where whose condition is flipped. A ReLU keeps x where x > 0: "
    "tl.maximum(x, 0.0), or tl.where(x > 0, x, 0.0).",
}

# A wrong value in every element: code -> variant -> what the kernel computes from the float32 inputs, in
# float32 (or float16) as the kernel does, so that its roundings are the kernel's.
ValueMistakes = Mapping[str, Mapping[Variant, Callable[..., torch.Tensor]]]


def _bfloat16_rounded(v: torch.Tensor) -> torch.Tensor:
    """float32 -> bfloat16 -> float32, to nearest even: what `.to(tl.bfloat16)` does on a GPU."""
    return v.to(torch.bfloat16).float()


def _bfloat16_truncated(v: torch.Tensor) -> torch.Tensor:
    """float32 -> bfloat16 -> float32 towards zero: what `.to(tl.bfloat16)` does in Triton's interpreter
    (it drops the low 16 bits instead of rounding)."""
    return (v.float().contiguous().view(torch.int32) & -65536).view(torch.float32)


def _half_results(op: Callable[..., torch.Tensor]) -> dict[Variant, Callable[..., torch.Tensor]]:
    """The result rounded to half precision before the store: `tl.store(out_ptr + offsets, y.to(...))`."""
    return {
        "float16 result": lambda *xs: op(*xs).half().float(),
        "bfloat16 result (rounded, GPU)": lambda *xs: _bfloat16_rounded(op(*xs)),
        "bfloat16 result (truncated, interpreter)": lambda *xs: _bfloat16_truncated(op(*xs)),
    }


# A grid sized for another BLOCK_SIZE is predicted up to this N: one (1, N) tensor per prefix length
# would take gigabytes on the GPU battery's 2^22-element cases. Past it, a case counts neither for the
# mistake nor against it (core.too_large_to_predict): the smaller cases decide.
_MISMATCH_MAX_N = 2**16


def _prefix_written(full: torch.Tensor, k: int) -> Alternatives:
    """One alternative: the first k elements of the right answer, the rest never written."""
    return Alternatives.of(full.reshape(1, -1), torch.arange(full.numel()).reshape(1, -1) < k)


def _predictions(
    case: Case, op: Callable[..., torch.Tensor], values: ValueMistakes, extra: Callable | None
) -> Predictions:
    """Which prefix of out got written, by block size; and the wrong values a mistake computes."""
    n = case.n
    full = op(*(x.double() for x in case.inputs))
    out: Predictions = {}
    prefixes: dict[int, Alternatives] = {}  # how many elements were written -> that prediction
    for b in POWERS_OF_TWO:
        if b < n:  # every program wrote the first tile, or only one program ran: the two look the same
            predict_each(out, "first_tile_only", b, _prefix_written(full, b))
        if n % b:
            predict_each(out, "tail_not_processed", b, _prefix_written(full, (n // b) * b))
        # cdiv(n, b_grid) programs of b; past 8192 such a grid is one program on most cases: first_tile_only
        for b_grid in [g for g in POWERS_OF_TWO if g <= 8192]:
            covered = -(-n // b_grid) * b
            if b < b_grid and covered < n and n > _MISMATCH_MAX_N:  # no evidence either way here
                too_large_to_predict(out, "grid_block_mismatch", (b, b_grid), full.numel())
            elif b < b_grid and covered < n:
                if covered not in prefixes:
                    prefixes[covered] = _prefix_written(full, covered)
                predict_each(out, "grid_block_mismatch", (b, b_grid), prefixes[covered])
    predict_each(out, "last_element_dropped", None, _prefix_written(full, n - 1))
    inputs = tuple(x.float() for x in case.inputs)
    for code, forms in values.items():
        for variant, compute in forms.items():
            predict(out, code, variant, compute(*inputs))
    if extra is not None:
        extra(case, out)
    return out


def _relu_in_the_interpreter(case: Case, out: Predictions) -> None:
    """Two ReLU mistakes whose effect only Triton's interpreter shows (on a GPU each is predicted
    elsewhere, or is right):
    - Python's max() on a tile: max(a, b) asks `b > a`, gets a tile of booleans, and takes any tile of
      more than one element as True, so it returns b whole: 0.0 for max(x, 0.0), x for max(0.0, x). On a
      one-element tile it compares that element and is right. The GPU compiler maps max() to tl.maximum
      (deprecated in recent Triton, but right).
    - tl.maximum on a bfloat16 tile: the interpreter holds bfloat16 as raw 16-bit integers and compares
      those, so every negative value (sign bit set) beats 0.0: out is x truncated to bfloat16. On a GPU
      this is the "bfloat16 result (rounded, GPU)" variant: a ReLU commutes with rounding."""
    predict(
        out,
        "float16_round_trip",
        Form("bfloat16 inputs", interpreter_only=True),
        _bfloat16_truncated(case.inputs[0].float()),
    )
    x = case.inputs[0].double().reshape(1, -1)
    zeros = torch.zeros_like(x)
    for b in POWERS_OF_TWO:
        if b >= 2:
            predict_each(out, "builtin_max", Form((b, "max(x, 0.0)"), interpreter_only=True), zeros)
            predict_each(out, "builtin_max", Form((b, "max(0.0, x)"), interpreter_only=True), x)


def _cases(large: bool, arity: int) -> list[Case]:
    """The 1-D battery, out shaped like the input. With two inputs, the "large" case's second input takes
    the first one's signs: in float16 both overflow to inf of one sign, and their sum stays an infinity,
    not inf - inf."""
    cases = vector_cases(large, arity=arity, out_like_input=True)
    if arity == 1:  # near float32's largest: x + |x| overflows past 1.7e38; and both infinities
        for kind, seed in (("huge", 990), ("signed infinities", 991)):
            cases.append(Case(describe(1000, kind), (case_values(1000, kind, seed=seed),), (1000,)))
    for i, case in enumerate(cases):
        if arity == 2 and case.name.endswith("large"):
            x, y = case.inputs
            cases[i] = replace(case, inputs=(x, y.abs() * x.sign()))
    return cases


def elementwise(
    id, signature, description, hint, op, arity=1, messages=None, values=None, extra=None
) -> Exercise:
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=lambda large: _cases(large, arity),
        reference=op,
        compare="elementwise",
        predictions=lambda case, on_gpu: _predictions(case, op, values or {}, extra),
        mistakes=mistakes({**MESSAGES, **(messages or {})}, **SUM_WORDS),
    )


def _copy(x):
    return x.clone()


def _add(x, y):
    return x + y


def _relu(x):
    return x.clamp(min=0)


EXERCISES = [
    elementwise(
        "copy",
        "copy(x, out)",
        "out = x: the worked example of notebook 01",
        "start from the one tile per program of section 3; watch the last tile, whose lanes past n "
        "must be masked on the load and on the store.",
        op=_copy,
        values={"float16_round_trip": _half_results(_copy)},
    ),
    elementwise(
        "vector_add",
        "vector_add(x, y, out)",
        "out = x + y, one element per lane, any N",
        "start from the copy kernel of section 3, which has everything but the second input; watch "
        "the mask: both loads and the store need it, or the last tile reads and writes past n.",
        op=_add,
        arity=2,
        messages=VECTOR_ADD_MESSAGES,
        values={
            "float16_round_trip": {
                # x.to(tl.float16) + y.to(tl.float16): rounded inputs, and a float16 sum
                "float16 inputs": lambda x, y: (x.half() + y.half()).float(),
                # The same in bfloat16, as a GPU adds. The interpreter adds bfloat16 tiles as raw 16-bit
                # integers, which gives values no prediction follows (NaN among them): not predicted there.
                "bfloat16 inputs": lambda x, y: (x.bfloat16() + y.bfloat16()).float(),
                **_half_results(_add),
            },
            "input_used_twice": {"x + x": lambda x, y: x + x, "y + y": lambda x, y: y + y},
            "input_ignored": {"x": lambda x, y: x, "y": lambda x, y: y},
        },
    ),
    elementwise(
        "relu",
        "relu(x, out)",
        "out = max(x, 0) elementwise, any N",
        "start from your vector add, with one input; watch the maximum: Python's max, or an if on a "
        "tile, does not act lane by lane.",
        op=_relu,
        messages=RELU_MESSAGES,
        values={
            # tl.maximum(x.to(tl.float16), 0.0) and tl.maximum(x, 0.0).to(tl.float16) agree: a ReLU
            # commutes with rounding (bfloat16 inputs in the interpreter: _relu_in_the_interpreter).
            "float16_round_trip": _half_results(_relu),
            "relu_not_applied": {"stores x": lambda x: x},
            "min_instead_of_max": {"tl.minimum": lambda x: x.clamp(max=0)},
        },
        extra=_relu_in_the_interpreter,
    ),
]
