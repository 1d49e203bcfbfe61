"""Keep kernels run by Triton's interpreter (TRITON_INTERPRET=1) inside the tensors they were given.

    with guarded():
        kernel[grid](x, out, n)     # a far-out tl.load raises OutOfBoundsAccess instead of killing Python

In the interpreter, `tl.load`, `tl.store` and the atomics read and write the addresses the kernel computed,
unchecked: a kernel that reaches far outside its tensors (a grid over columns instead of rows, say, so that
`x_ptr + row * stride` lands megabytes past the end) segfaults the Python process, and in Jupyter that is a
dead kernel with no message. No library catches this: Triton's interpreter has no bounds checking, and
compute-sanitizer works only on a GPU. So while `guarded()` is active this module wraps a few of the
interpreter's functions: at each launch it records the storage of every tensor argument, and before each
load, store or atomic it checks that every lane the mask lets through lies inside one of those storages,
raising `OutOfBoundsAccess` (an IndexError) before the access instead of after the crash.

Only addresses outside every argument's whole storage are refused: a read just past the end of a view into
a larger buffer is allowed (the checker puts inputs inside guard zones on purpose and sees such reads by
their values). Such a load is recorded all the same (`take_near_reads`), since a masked store can discard
what it read: the checker then fails a kernel whose values are all right but whose loads left a tensor.
The interpreter re-raises an error from inside a kernel as `InterpreterError(repr(e)) from e`;
`find_out_of_bounds(error)` finds ours in that chain. On a GPU, and on a triton whose interpreter lacks
the functions wrapped here (it warns once), `guarded()` does nothing.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from utils.checker import races
from utils.checker.access import Region, access_bytes, pointer_names, report
from utils.setup import interpreting

_lock = threading.RLock()
_depth = 0  # how many guarded() blocks are open; the patches are in place while it is above zero
_originals: list[tuple[type, str, Any]] = []
_regions: list[Region] | None = None  # the current launch's tensor arguments; None: no launch seen yet
_warned = False
# Loads that stayed inside a tensor's memory but left its view (weight loaded without a mask, say): one
# sentence each, kept until take_near_reads(). The values such lanes read are often discarded by a masked
# store, so the results cannot show them; on a GPU the read may fault.
_near_reads: list[str] = []
_INHERITED = object()  # stands in _originals for a method the class inherited rather than defined

# The wrapped InterpreterBuilder methods: the names of their pointer and mask parameters, looked up in each
# version's signature (3.3 and 3.9 differ in the parameters after them), and the operation's name.
_RMW_NAMES = {"ADD": "add", "FADD": "add", "MIN": "min", "UMIN": "min", "MAX": "max", "UMAX": "max"}
_ACCESSES = {
    "create_masked_load": ("ptrs", "mask", lambda get: "tl.load"),
    "create_masked_store": ("ptrs", "mask", lambda get: "tl.store"),
    "create_atomic_rmw": ("ptr", "mask", lambda get: _rmw_name(get("rmwOp"))),
    "create_atomic_cas": ("ptr", None, lambda get: "tl.atomic_cas"),
}


def _rmw_name(rmw_op: Any) -> str:
    name = getattr(rmw_op, "name", None)
    if not isinstance(name, str):
        return "an atomic"
    return f"tl.atomic_{_RMW_NAMES.get(name, name.lower())}"


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """While open, interpreted kernels raise OutOfBoundsAccess instead of touching memory outside their
    tensor arguments. Nesting is safe; it does nothing when kernels are compiled for a GPU."""
    global _depth
    if not interpreting():
        yield
        return
    with _lock:
        if _depth == 0 and not _install():
            active = False
        else:
            _depth += 1
            active = True
    try:
        yield
    finally:
        if active:
            with _lock:
                _depth -= 1
                if _depth == 0:
                    _uninstall()


def _warn_once(reason: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(
            f"utils.checker.bounds: kernels run unguarded ({reason}); a kernel that reads far outside its "
            "tensors may crash Python",
            RuntimeWarning,
            stacklevel=5,  # _warn_once, _install, guarded, contextlib's __enter__, the caller
        )


def _install() -> bool:
    """Wrap the interpreter's functions; False (after a warning) if this triton's interpreter lacks them."""
    try:
        from triton.runtime import interpreter
    except Exception as e:  # an interpreter that does not even import cannot run kernels either
        _warn_once(f"triton.runtime.interpreter did not import: {e!r}")
        return False
    builder = getattr(interpreter, "InterpreterBuilder", None)
    executor = getattr(interpreter, "GridExecutor", None)
    init_args = getattr(executor, "_init_args_hst", None)
    if builder is None or executor is None or init_args is None:
        _warn_once("this triton's interpreter has no GridExecutor._init_args_hst or InterpreterBuilder")
        return False
    patches: list[tuple[type, str, Any, Any]] = [(executor, "_init_args_hst", init_args, _record(init_args))]
    for name, (ptr_param, mask_param, op_name) in _ACCESSES.items():
        original = getattr(builder, name, None)
        wrapper = None if original is None else _checking(original, ptr_param, mask_param, op_name)
        if wrapper is None:
            _warn_once(f"this triton's InterpreterBuilder.{name} is missing or takes other parameters")
            return False
        patches.append((builder, name, original, wrapper))
    for owner, name, _, wrapper in patches:
        _originals.append((owner, name, owner.__dict__.get(name, _INHERITED)))
        setattr(owner, name, wrapper)
    return True


def _uninstall() -> None:
    global _regions
    while _originals:
        owner, name, original = _originals.pop()
        if original is _INHERITED:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
    _regions = None


def _record(original: Callable) -> Callable:
    """GridExecutor._init_args_hst, which also notes the host tensors the launch about to run was given."""

    @functools.wraps(original)
    def _init_args_hst(self, args_dev, kwargs):
        global _regions
        args_hst, kwargs_hst = original(self, args_dev, kwargs)
        names = list(getattr(self, "arg_names", None) or [])
        regions: list[Region] = []
        for i, arg in enumerate(args_hst):
            _collect(names[i] if i < len(names) else f"argument {i}", arg, regions)
        for key, arg in kwargs_hst.items():
            _collect(key, arg, regions)
        _regions = regions
        races.new_launch(regions)
        return args_hst, kwargs_hst

    return _init_args_hst


def _collect(name: str, arg: Any, regions: list[Region]) -> None:
    """Append the tensors in `arg`: a tensor, a tuple of them, or a wrapper with a tensor `.base`
    (triton.reinterpret's TensorWrapper, a TensorDescriptor)."""
    if isinstance(arg, tuple):
        for i, item in enumerate(arg):
            _collect(f"{name}[{i}]", item, regions)
    elif hasattr(arg, "untyped_storage") and hasattr(arg, "data_ptr"):
        storage = arg.untyped_storage()
        lo = storage.data_ptr()
        numel = arg.numel()
        extent = (
            1 + sum((size - 1) * abs(step) for size, step in zip(arg.shape, arg.stride())) if numel else 0
        )
        regions.append(
            Region(name, lo, lo + storage.nbytes(), arg.data_ptr(), numel, arg.element_size(), extent)
        )
    elif hasattr(getattr(arg, "base", None), "untyped_storage"):
        _collect(name, arg.base, regions)


def _checking(
    original: Callable, ptr_param: str, mask_param: str | None, op_name: Callable
) -> Callable | None:
    """`original`, checking its pointers first; None if its signature lacks the parameters named."""
    try:
        params = list(inspect.signature(original).parameters)[1:]  # without self
    except (TypeError, ValueError):
        return None
    if ptr_param not in params or (mask_param is not None and mask_param not in params):
        return None

    def get(args: tuple, kwargs: dict, param: str) -> Any:
        i = params.index(param)
        return args[i] if i < len(args) else kwargs.get(param)

    kind = {"create_masked_load": "load", "create_masked_store": "store"}.get(original.__name__, "atomic")
    stores = kind == "store" and "value" in params

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        mask = None if mask_param is None else get(args, kwargs, mask_param)
        ptrs = get(args, kwargs, ptr_param)
        through = _lanes(ptrs, mask)
        if through is not None:
            addresses, lanes = through
            _check(lambda: op_name(lambda param: get(args, kwargs, param)), ptrs, addresses[lanes])
            if kind != "load":
                value = get(args, kwargs, "value") if stores else None
                _note(self, addresses, lanes, value, kind == "store")
        return original(self, *args, **kwargs)

    return wrapper


def _lanes(ptrs: Any, mask: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The addresses of `ptrs` and, broadcast to one shape with them, the lanes `mask` lets through; None
    without pointers, or for shapes that do not broadcast (the interpreter itself will refuse them)."""
    if ptrs is None:
        return None
    addresses = np.asarray(ptrs.data)
    if mask is None:
        return addresses, np.ones(addresses.shape, dtype=bool)
    try:
        addresses, lanes = np.broadcast_arrays(addresses, np.asarray(mask.data, dtype=bool))
    except ValueError:
        return None
    return addresses, lanes


def _note(builder: Any, addresses: np.ndarray, lanes: np.ndarray, value: Any, store: bool) -> None:
    """Tell utils.checker.races of a plain store (its lanes, values and program) or of an atomic."""
    if not store:
        races.note_atomic(int(lanes.sum()))
    elif value is not None and getattr(builder, "grid_idx", None) is not None:
        values = np.broadcast_to(np.asarray(value.data), lanes.shape)
        races.note_store(builder.grid_idx, builder.grid_dim, addresses[lanes], values[lanes])


def _check(op: Callable[[], str], ptrs: Any, addresses: np.ndarray) -> None:
    """Raise OutOfBoundsAccess if one of `addresses`, the lanes of `ptrs` a mask let through, is outside
    every region."""
    regions = _regions
    if regions is None:
        return
    addresses = addresses.astype(np.uint64, copy=False).ravel()
    if addresses.size == 0:
        return
    size = access_bytes(ptrs)
    inside = np.zeros(addresses.shape, dtype=bool)
    for r in regions:
        if r.hi - r.lo >= size:
            inside |= (addresses >= np.uint64(r.lo)) & (addresses <= np.uint64(r.hi - size))
    if inside.all():
        if op() == "tl.load":
            _note_near_read(addresses, size, regions)
        return
    outside = addresses[~inside]
    named = pointer_names()
    likely = [r for r in regions if r.name.split("[")[0] in named]
    raise report(op(), outside, int(addresses.size), size, likely or regions)


def _note_near_read(addresses: np.ndarray, size: int, regions: list[Region]) -> None:
    """Record a load whose lanes are inside tensors' memory but not inside any tensor's view: the
    argument its pointer was built from, and how far past that view's end (or before its start) it read."""
    in_view = np.zeros(addresses.shape, dtype=bool)
    for r in regions:
        end = r.start + r.extent * r.element_size
        if end - r.start >= size:
            in_view |= (addresses >= np.uint64(r.start)) & (addresses <= np.uint64(end - size))
    if in_view.all():
        return
    outside = addresses[~in_view].astype(np.int64)
    named = pointer_names()
    candidates = [r for r in regions if r.name.split("[")[0] in named] or regions
    # the candidate whose view starts or ends nearest the first lane outside every view
    r = min(
        candidates,
        key=lambda r: min(
            abs(int(outside[0]) - r.start), abs(int(outside[0]) - r.start - r.extent * r.element_size)
        ),
    )
    end = r.start + r.extent * r.element_size
    past_end = outside[outside >= end]
    if past_end.size:
        far = (int(past_end.max()) - end) // r.element_size + 1
        where = f"up to {far:,} element{'s' if far != 1 else ''} past the end of {r.name}"
    else:
        far = -(-(r.start - int(outside.min())) // r.element_size)
        where = f"up to {far:,} element{'s' if far != 1 else ''} before the start of {r.name}"
    sentence = f"a tl.load read {where} ({len(outside):,} of the {addresses.size:,} lanes it read)"
    if sentence not in _near_reads:
        _near_reads.append(sentence)


def take_near_reads() -> list[str]:
    """The loads recorded since the last call that read inside a tensor's memory but outside its view
    (see _note_near_read), as sentences; forgets them."""
    with _lock:
        taken = list(_near_reads)
        _near_reads.clear()
    return taken
