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
their values). The interpreter re-raises an error from inside a kernel as `InterpreterError(repr(e)) from
e`; `find_out_of_bounds(error)` finds ours in that chain. On a GPU, and on a triton whose interpreter lacks
the functions wrapped here (it warns once), `guarded()` does nothing.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import linecache
import os
import sys
import textwrap
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType, ModuleType
from typing import Any

import numpy as np

from utils.setup import interpreting


class OutOfBoundsAccess(IndexError):
    """A load, store or atomic that would have touched memory outside every tensor the kernel was given.

    op: "tl.load", "tl.store", "tl.atomic_add", ... (the operation refused)
    arg_name: the tensor argument the pointer was built from, as the kernel's source line tells (through
        its assignments: `row_start = x_ptr + ...`), else the one nearest in memory to the farthest-out
        lane; None when the kernel was given no tensor
    elements_past: how far that lane is from the argument's view, in its elements: positive past its last
        element (1 means the element just after it), negative before its first; 0 when the access only
        overlaps the edge of the storage
    lanes_outside, lanes: how many of the lanes the mask let through were outside, and how many it let through
    address: the farthest-out lane's byte address; numel: the nearest argument's number of elements
    """

    def __init__(
        self,
        message: str,
        op: str,
        arg_name: str | None = None,
        elements_past: int | None = None,
        lanes_outside: int = 0,
        lanes: int = 0,
        address: int = 0,
        numel: int | None = None,
    ):
        super().__init__(message)
        self.op = op
        self.arg_name = arg_name
        self.elements_past = elements_past
        self.lanes_outside = lanes_outside
        self.lanes = lanes
        self.address = address
        self.numel = numel

    def __reduce__(self):  # keep the attributes through pickling (multiprocessing, pytest-xdist)
        return (
            type(self),
            (
                self.args[0],
                self.op,
                self.arg_name,
                self.elements_past,
                self.lanes_outside,
                self.lanes,
                self.address,
                self.numel,
            ),
        )


def find_out_of_bounds(error: BaseException | None) -> OutOfBoundsAccess | None:
    """The OutOfBoundsAccess that caused `error` (itself, or in its __cause__/__context__ chain), or None."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, OutOfBoundsAccess):
            return error
        seen.add(id(error))
        error = error.__cause__ if error.__cause__ is not None else error.__context__
    return None


@dataclass(frozen=True)
class _Region:
    """One tensor argument: the bytes of its storage (what may be touched) and its view (for the report)."""

    name: str
    lo: int  # storage's first byte
    hi: int  # one past its last byte
    start: int  # the view's data_ptr
    numel: int
    element_size: int
    extent: int  # elements from the view's first to one past its last, in storage order


_lock = threading.RLock()
_depth = 0  # how many guarded() blocks are open; the patches are in place while it is above zero
_originals: list[tuple[type, str, Any]] = []
_regions: list[_Region] | None = None  # the current launch's tensor arguments; None: no launch seen yet
_warned = False
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
            f"utils.bounds: kernels run unguarded ({reason}); a kernel that reads far outside its tensors "
            "may crash Python",
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
        regions: list[_Region] = []
        for i, arg in enumerate(args_hst):
            _collect(names[i] if i < len(names) else f"argument {i}", arg, regions)
        for key, arg in kwargs_hst.items():
            _collect(key, arg, regions)
        _regions = regions
        return args_hst, kwargs_hst

    return _init_args_hst


def _collect(name: str, arg: Any, regions: list[_Region]) -> None:
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
            _Region(name, lo, lo + storage.nbytes(), arg.data_ptr(), numel, arg.element_size(), extent)
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

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        mask = None if mask_param is None else get(args, kwargs, mask_param)
        _check(lambda: op_name(lambda param: get(args, kwargs, param)), get(args, kwargs, ptr_param), mask)
        return original(self, *args, **kwargs)

    return wrapper


def _check(op: Callable[[], str], ptrs: Any, mask: Any) -> None:
    """Raise OutOfBoundsAccess if a lane of `ptrs` that `mask` lets through is outside every region."""
    regions = _regions
    if regions is None or ptrs is None:
        return
    addresses = np.asarray(ptrs.data)
    if mask is not None:
        try:
            addresses, lanes_in = np.broadcast_arrays(addresses, np.asarray(mask.data, dtype=bool))
        except ValueError:
            return  # shapes the interpreter itself will refuse
        addresses = addresses[lanes_in]
    addresses = addresses.astype(np.uint64, copy=False).ravel()
    if addresses.size == 0:
        return
    size = _access_bytes(ptrs)
    inside = np.zeros(addresses.shape, dtype=bool)
    for r in regions:
        if r.hi - r.lo >= size:
            inside |= (addresses >= np.uint64(r.lo)) & (addresses <= np.uint64(r.hi - size))
    if inside.all():
        return
    outside = addresses[~inside]
    named = _pointer_names()
    likely = [r for r in regions if r.name.split("[")[0] in named]
    raise _report(op(), outside, int(addresses.size), size, likely or regions)


def _pointer_names() -> set[str]:
    """The names the pointer of the kernel's statement making this access was built from: those in its
    pointer expression (`x_ptr`, `row`, `stride` in `tl.load(x_ptr + row * stride)`) and, through the
    kernel's assignments, those its local variables were computed from (`row_start = x_ptr + row * stride`
    then `tl.load(row_start + cols)`). The report then names the argument the pointer came from rather than
    whichever tensor lies nearest in memory. Empty when that cannot be told (Python 3.10, no source)."""
    try:
        import triton

        skip = (os.path.dirname(triton.__file__) + os.sep, os.path.dirname(np.__file__) + os.sep)
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and (
            frame.f_code.co_filename == __file__ or frame.f_code.co_filename.startswith(skip)
        ):
            frame = frame.f_back
        if frame is None or not hasattr(frame.f_code, "co_positions"):
            return set()
        code = frame.f_code
        first, last, start, end = list(code.co_positions())[frame.f_lasti // 2]
        if None in (first, last, start, end):
            return set()
        lines = [linecache.getline(code.co_filename, n).encode() for n in range(first, last + 1)]
        lines[-1] = lines[-1][:end]  # column offsets count UTF-8 bytes
        lines[0] = lines[0][start:]
        call = ast.parse(b"".join(lines).decode(), mode="eval").body
        if not isinstance(call, ast.Call):
            return set()
        func = call.func
        owner = func.value if isinstance(func, ast.Attribute) else None
        if isinstance(owner, ast.Name):  # tl.load(...) (a module's function) or desc.load(...) (a method)
            namespace = {**frame.f_globals, **frame.f_locals}
            owner = None if isinstance(namespace.get(owner.id), ModuleType) else owner
        if owner is not None:
            pointer: ast.AST = owner  # a method: a tensor descriptor's desc.load([...])
        elif call.args:
            pointer = call.args[0]  # tl.load(ptr, ...), tl.store(ptr, ...), tl.atomic_add(ptr, ...)
        else:
            return set()
        names = _names(pointer)
        sources = _assignments(code)
        todo = list(names)
        while todo:
            for name in sources.get(todo.pop(), set()) - names:
                names.add(name)
                todo.append(name)
        return names
    except Exception:  # only a better name is at stake: never let it hide the error itself
        return set()


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assignments(code: Any) -> dict[str, set[str]]:
    """For each variable the function of `code` assigns, the names on the right of its assignments."""
    lines = linecache.getlines(code.co_filename)[code.co_firstlineno - 1 :]
    tree = ast.parse(textwrap.dedent("".join(inspect.getblock(lines))))
    sources: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in _names(target):
                    sources.setdefault(name, set()).update(_names(node.value))
    return sources


def _access_bytes(ptrs: Any) -> int:
    """The bytes one lane reads or writes: its pointer's element size (int1 pointers step by one byte)."""
    try:
        return max(1, int(ptrs.get_element_ty().primitive_bitwidth) // 8)
    except Exception:
        return 1


def _report(op: str, outside: np.ndarray, lanes: int, size: int, regions: list[_Region]) -> OutOfBoundsAccess:
    """The error for the lanes `outside`, described by the lane farthest from every region's storage."""
    count = f"{len(outside):,} of {lanes:,} lanes"
    if not regions:
        address = int(outside[0])
        message = f"{op} reached address {address:#x}, but the kernel was given no tensor ({count})"
        return OutOfBoundsAccess(message, op, lanes_outside=len(outside), lanes=lanes, address=address)
    # distance, in bytes, from each lane (row) to each region's storage (column); unsigned wrap-around in
    # the branch np.where does not pick is harmless
    lo = np.array([r.lo for r in regions], dtype=np.uint64)
    last = np.array([max(r.lo, r.hi - size) for r in regions], dtype=np.uint64)
    a = outside[:, None]
    distance = np.where(a < lo, lo - a, a - last)
    nearest = distance.argmin(axis=1)
    worst = int(distance[np.arange(len(outside)), nearest].argmax())
    address, r = int(outside[worst]), regions[int(nearest[worst])]
    end = r.start + r.extent * r.element_size
    what = f"{r.name} (a tensor of {r.numel:,} elements)"
    if address >= end:
        past = (address - end) // r.element_size + 1
        where = f"{past:,} element{'s' if past != 1 else ''} past the end of {what}"
    elif address < r.start:
        past = -(-(r.start - address) // r.element_size)
        where = f"{past:,} element{'s' if past != 1 else ''} before the start of {what}"
        past = -past
    else:
        past = 0
        where = f"past the edge of the memory of {what}"
    message = (
        f"{op} reached {where}: {count} were outside every tensor the kernel was given. "
        "Check the offsets (and the grid) that build these pointers, and the mask."
    )
    return OutOfBoundsAccess(message, op, r.name, past, len(outside), lanes, address, r.numel)
