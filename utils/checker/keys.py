"""Exercise 3 of notebook 07: a launcher's cache key, `sum_eager_key(x, out, n, partials_block)`, judged by
its effects, the keys it gives, on pairs of arguments.

A cache of compiled kernels is right only if two calls share a key exactly when the JIT would compile one
kernel for both. Each pair below differs in one thing the JIT does or does not specialise on (triton's
`specialize_impl`: a pointer's dtype and whether its address is a multiple of 16 bytes; an integer's
`== 1` and `% 16 == 0`; a constexpr's value). A pair the JIT compiles apart but the key merges is unsafe:
the kernel compiled for the first arguments would run on the second. A pair the JIT compiles once but the
key splits is safe and slow: the second call goes through the JIT again, and the cache keeps an entry
more. Keys are compared as a dict compares them (equal hashes, then `==`), since that is how the wrapper
looks them up. Nothing is launched: the pairs judge the key before any kernel could run on the wrong
arguments, which on a GPU can end the process (a misaligned address is a sticky CUDA error).

Why not the battery of utils.checker.runner: its inputs are all aligned, and a wrong key shows no wrong
result there; what a key gets wrong is which calls share a kernel, which only pairs can show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from utils.checker.report import ExerciseFailed

Arguments = tuple[torch.Tensor, torch.Tensor, int, int]  # (x, out, n, partials_block)
# The mistakes a key can make, as ExerciseFailed.diagnoses names them (and the catalogue lists them)
MERGES = "key_merges_what_the_jit_compiles_apart"
SPLITS = "key_splits_what_the_jit_compiles_once"
UNHASHABLE = "unhashable_key"
MISTAKES = (MERGES, SPLITS, UNHASHABLE)


@dataclass(frozen=True)
class Arrangement:
    """One call's arguments: x, n elements of `dtype` starting `offset` elements into a buffer of its own
    (the buffer's own address is a multiple of 16 bytes, as every torch allocation is), and out, one
    element of `out_dtype` starting `out_offset` elements into one."""

    n: int = 4096
    partials_block: int = 1
    dtype: torch.dtype = torch.float32
    offset: int = 0
    out_dtype: torch.dtype = torch.float32
    out_offset: int = 0

    def build(self, device: str, seed: int) -> Arguments:
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(self.offset + self.n, generator=g).to(self.dtype).to(device)[self.offset :]
        out = torch.zeros(self.out_offset + 1, dtype=self.out_dtype, device=device)[self.out_offset :]
        return x, out, self.n, self.partials_block


@dataclass(frozen=True)
class Pair:
    """Two calls, what tells them apart, and whether the JIT compiles one kernel for both (`share`);
    `consequence` says what a merged (share=False) or split (share=True) key does."""

    first: Arrangement
    second: Arrangement
    differs: str
    share: bool
    consequence: str
    # what happens between the two calls, beyond new arguments: "same" calls with the first's tensors,
    # "values" with the first's tensors after new values are written into x
    between: str = "new"


F16, BF16 = torch.float16, torch.bfloat16
VECTOR = "a kernel compiled for a 16-byte-aligned pointer may move 16 bytes per instruction, which faults"
REJIT = "the second call goes through the JIT again (correct, slower) and the cache keeps one more entry"
A, N8192, N8180 = Arrangement(), Arrangement(n=8192, partials_block=2), Arrangement(n=8180, partials_block=2)
_ = Arrangement

# (first, second, what differs, whether the JIT compiles one kernel for both, what a wrong key does)
# fmt: off
_TABLE = [
    (A, _(offset=1), "x's address: a multiple of 16 bytes, then 4 bytes past one (x[1:])", False,
     f"{VECTOR} on x[1:] (a misaligned address, which ends the process: section 2's cell)"),
    (A, _(offset=4), "x's address: two multiples of 16 bytes (x[4:] of float32)", True, REJIT),
    (_(offset=1), _(offset=2), "x's address: 4 bytes past a multiple of 16, then 8 bytes past one", True,
     f"{REJIT}; a key holding the address's remainder itself (not whether it is 0), for one, takes an "
     "entry per remainder"),
    (_(offset=4), _(offset=1), "x's address: 16 bytes past its buffer's start (x[4:]), then 4 bytes (x[1:])",
     False, f"{VECTOR} on x[1:] (a key that asks for 32 bytes, or 64, calls both misaligned)"),
    (_(dtype=F16), _(dtype=F16, offset=4),
     "x's address: float16, then 8 bytes past a multiple of 16 (count bytes, not elements)", False,
     f"{VECTOR} there"),
    (_(dtype=F16), _(dtype=F16, offset=8), "x's address: float16, two multiples of 16 bytes (x[8:])", True,
     REJIT),
    (A, _(out_offset=1), "out's address: a multiple of 16 bytes, then 4 bytes past one", False,
     f"{VECTOR} on that out"),
    (A, _(out_offset=4), "out's address: two multiples of 16 bytes", True, REJIT),
    (_(offset=1), _(offset=1, out_offset=1),
     "out's address, with x[1:]: a multiple of 16 bytes, then 4 bytes past one", False,
     f"{VECTOR} on that out (a key with one flag for x and out together calls both misaligned)"),
    (A, _(dtype=F16), "x's dtype: float32, then float16", False,
     "the kernel compiled for float32 would read the float16 data as float32 (pairs of values read as "
     "one, and twice the bytes: past the end)"),
    (_(dtype=F16), _(dtype=BF16), "x's dtype: float16, then bfloat16", False,
     "the kernel compiled for float16 would read bfloat16's bits as float16 numbers"),
    (A, _(out_dtype=F16), "out's dtype: float32, then float16", False,
     "the kernel compiled for a float32 out would store 4 bytes into a 2-byte element, past out"),
    (_(n=5120, partials_block=2), N8192, "n: 5120, then 8192 (both multiples of 16)", True,
     f"{REJIT}; a key with n in it takes an entry per size"),
    (_(n=9008, partials_block=4), _(n=13008, partials_block=4),
     "n: 9008, then 13008 (3 and 4 programs of 4,096 elements, one partials_block, 4)", True,
     f"{REJIT}; a key with the number of programs in it takes an entry per count"),
    (_(n=8176, partials_block=2), N8180, "n: 8176 (a multiple of 16), then 8180 (not one)", False,
     "the kernel compiled for n % 16 == 0 may test the mask once per 16 elements, which on n = 8180 "
     "reads past the end or drops the last elements"),
    (N8180, _(n=8185, partials_block=2), "n: 8180, then 8185 (neither 1 nor a multiple of 16)", True,
     f"{REJIT}; a key holding n % 16 itself (not whether it is 0), for one, takes up to 15 entries"),
    (_(n=1), _(n=3), "n: 1, then 3", False,
     "n = 1 is compiled in as a constant: the kernel compiled for it would sum one element of three"),
    (_(n=3), _(n=5), "n: 3, then 5 (neither 1 nor a multiple of 16)", True, REJIT),
    (_(n=1), _(n=16), "n: 1, then 16 (a multiple of 16)", False,
     "n = 1 is compiled in as a constant: the kernel compiled for it would sum one element of sixteen "
     "(a key that holds n == 1 or n % 16 == 0 as one value gives both the same key)"),
    (_(n=16), A, "n: 16, then 4096 (both multiples of 16)", True, REJIT),
    (A, N8192, "partials_block (a constexpr): 1, then 2", False,
     "a constexpr is compiled in: the kernel compiled for PARTIALS_BLOCK = 1 would combine one partial "
     "of two"),
    (N8192, _(n=16384, partials_block=4), "partials_block (a constexpr): 2, then 4", False,
     "the kernel compiled for PARTIALS_BLOCK = 2 would combine two partials of four"),
    (A, A, "x and out: new tensors of the same dtypes, sizes and alignment", True,
     f"{REJIT}: every call on a fresh tensor would go through the JIT, and the cache would grow "
     "without bound"),
    (N8192, _(n=8184, partials_block=2), "n: 8192 (a multiple of 16), then 8184 (a multiple of 8 only)",
     False, "the kernel compiled for n % 16 == 0 may test the mask once per 16 elements, which on n = 8184 "
     "reads past the end or drops the last elements (a key that tests n % 8 == 0 gives both the same key)"),
]
PAIRS = [Pair(*row) for row in _TABLE] + [
    Pair(A, A, "x's values: new values written into the same x", True, REJIT, between="values"),
    Pair(A, A, "nothing: the same arguments twice", True,
         "the same arguments get another key: a cache keyed on it never finds anything", between="same"),
]
# fmt: on


@dataclass(frozen=True)
class KeyExercise:
    id: str
    signature: str
    description: str
    hint: str
    pairs: list[Pair]


KEY_EXERCISES = {
    "sum_eager_key": KeyExercise(
        "sum_eager_key",
        "sum_eager_key(x, out, n, partials_block)",
        "the key of a cache of compiled sum_one_launch kernels: equal exactly when the JIT compiles one "
        "kernel for both calls (dtypes, 16-byte alignment, n == 1, n % 16 == 0, constexprs)",
        "return a tuple of what the JIT specialises on: each tensor's dtype and whether its data_ptr() is "
        "a multiple of 16, whether n is 1 and whether it is a multiple of 16, and partials_block.",
        PAIRS,
    )
}


def _keys(key_fn: Callable, pair: Pair, device: str, seed: int) -> tuple[object, object]:
    first = pair.first.build(device, seed)
    key_a = key_fn(*first)
    if pair.between == "same":
        second = first
    elif pair.between == "values":
        first[0].copy_(torch.randn(first[0].numel(), generator=torch.Generator().manual_seed(seed + 1)))
        second = first
    else:
        second = pair.second.build(device, seed + 1)
    return key_a, key_fn(*second)


def _shared(key_a: object, key_b: object) -> bool:
    """Whether a dict finds one key under the other."""
    return len({key_a: 0, key_b: 1}) == 1


def check(exercise_id: str, key_fn: Callable, device: str) -> bool:
    """Print one line and return True when every pair is keyed as the JIT compiles it; False when the
    exercise is not attempted yet; raise ExerciseFailed otherwise."""
    __tracebackhide__ = True
    exercise = KEY_EXERCISES[exercise_id]
    print(f"{exercise.id}: checking {len(exercise.pairs)} pairs of calls on the {device}...", flush=True)
    merged: list[tuple[Pair, object, object]] = []
    split: list[tuple[Pair, object, object]] = []
    for i, pair in enumerate(exercise.pairs):
        try:
            key_a, key_b = _keys(key_fn, pair, device, seed=2 * i)
            shared = _shared(key_a, key_b)
        except NotImplementedError:
            print(f"{exercise.id}: not attempted yet. Hint: {exercise.hint}")
            return False
        except TypeError as error:
            if "unhashable" not in str(error):
                raise _exception(exercise, pair, error) from error
            raise ExerciseFailed(
                f"{exercise.id}: your key cannot be looked up in a dict ({error}), as the wrapper does. "
                "Build it from ints, bools, strings and dtypes, in a tuple (not a list, a dict or a "
                "tensor).",
                [UNHASHABLE],
            ) from error
        except Exception as error:
            raise _exception(exercise, pair, error) from error
        if shared != pair.share:
            (split if pair.share else merged).append((pair, key_a, key_b))
    if merged or split:
        # the pairs of the same arguments first: a key that splits those splits everything
        split.sort(key=lambda entry: _telling(entry[0]))
        raise ExerciseFailed(_report(exercise, merged, split), _codes(merged, split))
    print(
        f"{exercise.id}: all {len(exercise.pairs)} pairs keyed as the JIT compiles them ({device}): the "
        "same key exactly where the JIT compiles one kernel."
    )
    return True


def _telling(pair: Pair) -> int:
    """Where a split pair is listed: the same arguments, new values, new tensors, then the rest."""
    return {"same": 0, "values": 1}.get(pair.between, 2 if pair.first == pair.second else 3)


def _exception(exercise: KeyExercise, pair: Pair, error: Exception) -> ExerciseFailed:
    return ExerciseFailed(
        f"{exercise.id} raised {type(error).__name__}: {error}\n"
        f"on the pair of calls that differ in {pair.differs}. Its arguments are (x, out, n, partials_block):"
        " two tensors, then two ints.",
        ["exception"],
    )


def _codes(merged: list, split: list) -> list[str]:
    return ([MERGES] if merged else []) + ([SPLITS] if split else [])


MAX_LINES = 6  # pairs listed per kind of error; the rest are counted


class _Shown(str):
    """A string that shows as itself inside a repr."""

    def __repr__(self) -> str:
        return str(self)


def _show(key: object) -> str:
    """A key as the report shows it: a tensor in it by its size and dtype (its values say nothing here),
    the whole cut at 100 characters."""

    def short(part: object) -> object:
        if isinstance(part, torch.Tensor):
            return _Shown(f"<a tensor of {part.numel()} {str(part.dtype).removeprefix('torch.')}>")
        if isinstance(part, (tuple, list)):
            return type(part)(short(p) for p in part)
        return part

    text = repr(short(key))
    return text if len(text) <= 100 else text[:97] + "..."


def _holds_tensor(key: object) -> bool:
    if isinstance(key, torch.Tensor):
        return True
    return isinstance(key, (tuple, list)) and any(_holds_tensor(part) for part in key)


def _listed(lines: list[str], entries: list[str]) -> None:
    lines += entries[:MAX_LINES]
    if len(entries) > MAX_LINES:
        lines.append(f"- and {len(entries) - MAX_LINES} more pairs like these")


def _report(exercise: KeyExercise, merged: list, split: list) -> str:
    lines = [f"{exercise.id}: {len(merged) + len(split)} of {len(exercise.pairs)} pairs keyed wrong."]
    if merged:
        lines.append(
            "\nUnsafe: these calls get one key, but the JIT compiles a kernel for each, so the wrapper would "
            "run the first call's kernel on the second's arguments."
        )
        _listed(
            lines,
            [
                f"- differing in {pair.differs}: both keyed {_show(key_a)}; {pair.consequence}."
                for pair, key_a, _ in merged
            ],
        )
    if split:
        lines.append(
            "\nCorrect but slow: these calls get different keys, but the JIT compiles one kernel for both."
        )
        _listed(
            lines,
            [
                f"- differing in {pair.differs}: keyed {_show(key_a)}, then {_show(key_b)}; "
                f"{pair.consequence}."
                for pair, key_a, key_b in split
            ],
        )
        if any(_holds_tensor(key_a) or _holds_tensor(key_b) for _, key_a, key_b in split):
            lines.append(
                "Your key holds a tensor: a dict tells tensors apart by identity, so every new tensor is a "
                "new key, whatever its dtype and alignment."
            )
    lines.append(f"\nHint: {exercise.hint}")
    return "\n".join(lines)
