"""Predictions: what a mistake *would* have produced on a case, computed in float64 from its inputs.

Each possible result is one of a form's Alternatives, with a mask of the elements the mistake writes. An
element it never writes must still hold out's initial garbage (or the exercise's identity, where the host
resets out first); a NaN among the values is a NaN the mistake computes.

Predictions are keyed by variant: the form the mistake takes in one learner's code (a block size, a
block size and a padding value, a grid of programs). A learner's kernel makes its mistake the same way on
every case, so utils.checker.diagnose names a mistake only when one variant explains every failing case and
contradicts no passing one. A variant missing from a case's predictions means: in that form, the
mistake leaves that case right (a wrong `other=` changes nothing when no lane is masked).
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import torch

# Block sizes a learner might have picked, 1 .. 65536, tried for every N: even N = 1 matters, since
# BLOCK_SIZE = 1024 leaves it 1023 masked lanes.
POWERS_OF_TWO = [2**k for k in range(17)]

# mistake code -> form -> what it produces: Alternatives. A form may give several alternatives on one case,
# e.g. which program's store survived a race.
Predictions = dict[str, dict["Form", "Alternatives"]]


class _NothingWritten:
    def __repr__(self) -> str:
        return "NOTHING_WRITTEN"


# A result for `predict`: the mistake writes nothing into out (a grid of no program, say).
NOTHING_WRITTEN = _NothingWritten()


# Large predictions equal bit for bit to one alive already share its tensor (see `_shared`), by a key of
# their shape and a checksum of their bits; an entry goes when no prediction holds its tensor any more.
_SHARED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_SHARED_FROM = 1 << 16  # elements: below this, a copy costs less than the checksum's time is worth


def _shared(values: torch.Tensor) -> torch.Tensor:
    """`values`, or a live tensor equal to it bit for bit. Many forms of one mistake predict the same result
    (on softmax_split's case of 4,096 x 1,024, 123 float64 tensors of 32 MiB held 46 different results),
    and the engine only reads predictions, so they can share one. Hashing a tensor is by identity in Python,
    and a dict of tensors cannot be compared by value, hence the key: its shape and the sum of its bits as
    int64 (which wraps around), confirmed by torch.equal on those bits (NaNs alike, -0.0 apart from 0.0)."""
    if values.numel() < _SHARED_FROM or values.dtype != torch.float64 or not values.is_contiguous():
        return values
    bits = values.view(torch.int64)
    key = (tuple(values.shape), int(bits.sum()))
    found = _SHARED.get(key)
    if found is None:
        _SHARED[key] = values
        return values
    return found if torch.equal(found.view(torch.int64), bits) else values


@dataclass(frozen=True, eq=False)
class Alternatives:
    """What one form of a mistake may leave in out on one case: alternative i writes values[i] into the
    elements where written[i] is True and leaves every other element as out held it. A NaN in `values` is a
    NaN the mistake computes. Compared by identity: the engine judges each Alternatives object once."""

    values: torch.Tensor  # (alternatives, out.numel()), float64
    written: torch.Tensor | None = None  # the same shape, bool; None: every element written
    # False where the mistake has another mistake's effect on this case (see `indistinct`): a run that
    # matches is no evidence for it, one that does not still contradicts it.
    proves: bool = True

    def __post_init__(self):
        object.__setattr__(self, "values", _shared(self.values))  # frozen: set once, here

    def __len__(self) -> int:
        return self.values.shape[0]

    @property
    def mask(self) -> torch.Tensor:
        """`written` in full: True where alternative i writes element j."""
        return torch.ones_like(self.values, dtype=torch.bool) if self.written is None else self.written

    def then(self, finish: Callable[[torch.Tensor], torch.Tensor]) -> Alternatives:
        """The same alternatives, each written value passed through `finish` (an L2 norm's sqrt on the
        host)."""
        return Alternatives(finish(self.values), self.written, self.proves)

    def __add__(self, other: Alternatives) -> Alternatives:
        """Both sets of alternatives."""
        written = (
            None if self.written is None and other.written is None else torch.cat([self.mask, other.mask])
        )
        return Alternatives(torch.cat([self.values, other.values]), written, self.proves and other.proves)

    @staticmethod
    def of(values, written=None) -> Alternatives:
        """From a tensor or array of alternatives (anything torch.as_tensor takes), each shaped like out,
        and, where not every element is written, a mask of the same shape. A float64 tensor is kept
        without a copy, so several codes and forms may share it (the engine only reads predictions)."""
        values = torch.as_tensor(values, dtype=torch.float64)
        rows = values.reshape(len(values), -1) if values.dim() else values.reshape(1, 1)
        if written is not None:
            written = torch.as_tensor(written, dtype=torch.bool).reshape(rows.shape)
        return Alternatives(rows, written)

    @staticmethod
    def none_written(numel: int) -> Alternatives:
        """The one alternative of a mistake that writes nothing into an out of `numel` elements."""
        return Alternatives(
            torch.zeros(1, numel, dtype=torch.float64), torch.zeros(1, numel, dtype=torch.bool)
        )


@dataclass(frozen=True)
class Form:
    """One form of a mistake, the key of its predictions: the setting that makes it (a block size, a tuple
    that starts with one, a name or None), where it can happen and how its alternatives are matched."""

    setting: Hashable = None
    # Only a GPU makes it: programs that race finish in any order there, while the interpreter runs them
    # one after another (the last program's store is the one that stays).
    any_order: bool = False
    # Each element of out may come from a different alternative (each row's race has its own winner), not
    # the whole of out from one.
    each_element: bool = False
    # Only Triton's interpreter makes it (it runs Python's max() on a tile as Python does, say, where the
    # GPU compiler turns it into tl.maximum).
    interpreter_only: bool = False

    def shows_on(self, on_gpu: bool) -> bool:
        """Can this form happen on this device?"""
        return not (self.any_order and not on_gpu) and not (self.interpreter_only and on_gpu)


Variant = Hashable  # what a family passes to predict: a Form, or a setting (as Form(setting))


def race(setting: Hashable, each_element: bool = False) -> Form:
    """The form of a race on a GPU: any program's store may be the one that stays (each element's own,
    with `each_element`)."""
    return Form(setting, any_order=True, each_element=each_element)


@functools.lru_cache(maxsize=1 << 16)  # the same settings come back on every case
def as_form(variant: Variant) -> Form:
    return variant if isinstance(variant, Form) else Form(variant)


@functools.lru_cache(maxsize=1 << 16)
def _as_blocks(form: Form, fitted: int) -> tuple[Form, ...]:
    """The forms that `form` stands for, where its setting starts with a block size b (see block_variants);
    cached: the same few hundred forms come back on every case."""
    setting = (form.setting,) if isinstance(form.setting, int) else form.setting
    if not (isinstance(setting, tuple) and setting and isinstance(setting[0], int)):
        return (form,)  # not a block size
    b, rest = setting[0], setting[1:]
    flags = (form.any_order, form.each_element, form.interpreter_only)
    forms = [Form(("BLOCK_SIZE", b, *rest), *flags)]
    # min(fitted, cap) == b: the cap b itself below `fitted`, every cap from `fitted` up at it
    caps = [b] if b < fitted else [c for c in POWERS_OF_TWO if c >= b] if b == fitted else []
    forms += [Form(("BLOCK_SIZE = min(next_power_of_2(n), cap)", cap, *rest), *flags) for cap in caps]
    return tuple(forms)


def block_variants(predictions: Predictions, length: int) -> Predictions:
    """Predictions made for a block size b (a form whose setting is b, or a tuple (b, ...)) under both ways
    a learner sets BLOCK_SIZE: a constant b, or triton.next_power_of_2(length) capped at some power of two
    (the only way for a single tile). `length` is what the block tiles: N, or the number of columns."""
    fitted = 1 << max(length - 1, 0).bit_length()  # triton.next_power_of_2(length)
    return {
        code: {
            block_form: results for form, results in forms.items() for block_form in _as_blocks(form, fitted)
        }
        for code, forms in predictions.items()
    }


def predict(predictions: Predictions, code: str, variant: Variant, *results, written=None) -> None:
    """Record that mistake `code`, in form `variant`, may produce any of `results`: tensors, arrays or
    numbers shaped like out, or NOTHING_WRITTEN. `written`, shaped like out: the elements each result
    writes (None: all of them)."""
    shaped = [
        None if r is NOTHING_WRITTEN else torch.as_tensor(r, dtype=torch.float64).reshape(-1) for r in results
    ]
    numel = next(
        (len(r) for r in shaped if r is not None), 1 if written is None else torch.as_tensor(written).numel()
    )
    mask = torch.ones(numel, dtype=torch.bool) if written is None else torch.as_tensor(written).reshape(-1)
    values = torch.stack([torch.zeros(numel, dtype=torch.float64) if r is None else r for r in shaped])
    masks = torch.stack([torch.zeros_like(mask) if r is None else mask for r in shaped])
    everything = written is None and all(r is not None for r in shaped)
    predict_each(predictions, code, variant, values, None if everything else masks)


def predict_each(predictions: Predictions, code: str, variant: Variant, alternatives, written=None) -> None:
    """`predict` for many alternatives at once: `alternatives[i]` is one possible result (shaped like out),
    a tensor or a numpy array, and `written[i]` the elements it writes (None: all of them); or an
    Alternatives (utils.checker.tiled's results)."""
    if not isinstance(alternatives, Alternatives):
        alternatives = Alternatives.of(alternatives, written)
    form = as_form(variant)
    earlier = predictions.setdefault(code, {}).get(form)
    predictions[code][form] = alternatives if earlier is None else earlier + alternatives


def not_predicted(predictions: Predictions, code: str, variant: Variant, numel: int) -> None:
    """Record that mistake `code`, in form `variant`, is not predicted on this case. The engine counts such
    a case neither for the form nor against it (utils.checker.diagnose), and names the form only if it
    explains the failing cases it does predict."""
    predictions.setdefault(code, {})[as_form(variant)] = Alternatives(
        torch.empty(0, numel, dtype=torch.float64)
    )


def too_large_to_predict(predictions: Predictions, code: str, variant: Variant, numel: int) -> None:
    """not_predicted, for a case where the mistake's alternatives would not fit in memory."""
    not_predicted(predictions, code, variant, numel)


def indistinct(predictions: Predictions, code: str, variant: Variant, alternatives: Alternatives) -> None:
    """Record that on this case, mistake `code` in form `variant` gives `alternatives`, which are another
    mistake's effect too, and that one names them (every program's partial but the only one is no
    partial at all): a run that matches them is no evidence for `code`, and one that does not still
    contradicts it."""
    predict_each(predictions, code, variant, dataclasses.replace(alternatives, proves=False))


# The race of every row into out's first row has one alternative per row, each as large as out: it is
# predicted only where rows * rows * cols stays under this (a (4096, 1024) case would need 128 GiB); the
# GPU's larger cases leave it unpredicted (too_large_to_predict), and the smaller ones decide.
MAX_RACE_ELEMENTS = 1 << 22


def predict_missing_row_offset(
    predictions: Predictions, reference: torch.Tensor, first: torch.Tensor
) -> None:
    """missing_row_offset for a kernel of one program per row (or per tile of rows), from the right rows
    `reference` and `first`, what every row would hold had each program read row 0; both float64,
    shaped like out. Either the row is missing from the input's offset (every row of out is `first`), or
    from out's (every program stores into out's first row, and the other rows stay unwritten), or from
    both (out's first row is right, and the other rows stay unwritten)."""
    rows, cols = reference.shape
    predict(predictions, "missing_row_offset", "every program read row 0", first)
    # Every program stores into out's first row: the rows below stay as they were
    first_row = torch.zeros(rows, cols, dtype=torch.bool)
    first_row[0] = True
    last = torch.zeros(rows, cols, dtype=torch.float64)
    last[0] = reference[-1]  # the programs run in order in the interpreter: the last row's store stays
    predict(
        predictions, "missing_row_offset", "every row stored into out's first row", last, written=first_row
    )
    # The row missing from both: every program reads row 0 and stores it into out's first row, which then
    # holds row 0's answer while the rows below stay as they were
    predict(
        predictions, "missing_row_offset", "every program read and wrote row 0", reference, written=first_row
    )
    # On a GPU any row's store may be the one that stays, and a different one for each element: the warps
    # of different programs store their parts of the row at different times.
    raced = race("every row stored into out's first row", each_element=True)
    if rows * rows * cols <= MAX_RACE_ELEMENTS:
        stored = torch.zeros(rows, rows, cols, dtype=torch.float64)
        stored[:, 0] = reference
        predict_each(
            predictions,
            "missing_row_offset",
            raced,
            stored.reshape(rows, -1),
            first_row.reshape(1, -1).expand(rows, -1),
        )
    else:
        too_large_to_predict(predictions, "missing_row_offset", raced, rows * cols)
