"""A result rounded through a narrower float: what out holds when the right value went through bfloat16 or
float16 on its way out (a .to(tl.bfloat16) before the store, a bfloat16 scratch or out, or a max or a min
of values cast to it, which keeps one of them rounded).

Every exercise gets these predictions (utils.checker.model.Exercise.predict), so the consistency rule of
utils.checker.diagnose names `rounded_to_bfloat16` or `rounded_to_float16` only when every wrong element
of every failing case is the right value rounded, and no passing case contradicts it: a value of the
narrower float next to the right one, rounded to nearest (a GPU's conversion), toward zero (Triton's
interpreter converts to bfloat16 by dropping the low bits), or one step either side of it.
"""

from __future__ import annotations

import torch

# code -> the narrower float
NARROW = {"rounded_to_bfloat16": torch.bfloat16, "rounded_to_float16": torch.float16}
# A family's own codes for a value that went through float16 or bfloat16, whose sentences already say so:
# named with them, the codes above add nothing (utils.checker.model.Exercise.yields keeps the family's).
FAMILY_CODES = frozenset({"fp16_accumulation", "float16_round_trip"})
YIELDS = {code: FAMILY_CODES for code in NARROW}

MESSAGES = {
    code: f"each wrong value is the right one rounded to {name} ({bits} significant bits, against float32's "
    f"24): the result went through {name} on its way out (a .to(tl.{name}), a {name} scratch or "
    f"accumulator, or an extreme taken of values cast to {name}). Keep float32 until the store, and "
    "store in out's dtype."
    for code, name, bits in (("rounded_to_bfloat16", "bfloat16", 8), ("rounded_to_float16", "float16", 11))
}


def rounded(expected: torch.Tensor, narrow: torch.dtype) -> torch.Tensor:
    """The values of `narrow` next to `expected` (float64): rounded to nearest, toward zero, and the
    neighbours of the nearest, (4, expected.numel()) float64; a NaN of expected stays NaN (the mistake
    computes it). Matched element by element (Form.each_element): the kernel rounds its own float32 value,
    which may fall on the other side of a rounding boundary than the float64 reference does."""
    value = expected.reshape(-1).float()
    nearest = value.to(narrow)
    down = torch.nextafter(nearest, torch.full_like(nearest, -torch.inf))
    up = torch.nextafter(nearest, torch.full_like(nearest, torch.inf))
    past = nearest.double().abs() > value.double().abs()  # rounded away from zero: step back once
    toward_zero = torch.where(past, torch.nextafter(nearest, torch.zeros_like(nearest)), nearest)
    return torch.stack([nearest, toward_zero, down, up]).double()
