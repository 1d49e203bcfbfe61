"""What a far-out access in the interpreter was: the error `utils.checker.bounds.guarded()` raises, the
tensor arguments a launch may touch (`Region`), and the report that names the argument the stray
pointer was built from (read from the kernel's source statement and its assignments)."""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import sys
import textwrap
from dataclasses import dataclass
from types import FrameType, ModuleType
from typing import Any

import numpy as np


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
class Region:
    """One tensor argument: the bytes of its storage (what may be touched) and its view (for the report)."""

    name: str
    lo: int  # storage's first byte
    hi: int  # one past its last byte
    start: int  # the view's data_ptr
    numel: int
    element_size: int
    extent: int  # elements from the view's first to one past its last, in storage order


# The frames to look past for the kernel's own: this module's and the guard's (utils.checker.bounds).
_GUARD_FILES = {
    os.path.join(os.path.dirname(os.path.abspath(__file__)), f) for f in ("access.py", "bounds.py")
}


def pointer_names() -> set[str]:
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
            frame.f_code.co_filename in _GUARD_FILES or frame.f_code.co_filename.startswith(skip)
        ):
            frame = frame.f_back
        if frame is None or not hasattr(frame.f_code, "co_positions"):
            return set()
        statement = _statement(frame.f_code, frame.f_lasti)
        if statement is None:
            return set()
        owner, owner_names, first_argument = statement
        if owner is not None:  # tl.load(...) (a module's function) or desc.load(...) (a method)
            value = frame.f_locals[owner] if owner in frame.f_locals else frame.f_globals.get(owner)
            owner_names = None if isinstance(value, ModuleType) else owner_names
        # a method: a tensor descriptor's desc.load([...]); else tl.load(ptr, ...), tl.store(ptr, ...), ...
        pointer = owner_names if owner_names is not None else first_argument
        return set() if pointer is None else set(_closure(frame.f_code, pointer))
    except Exception:  # only a better name is at stake: never let it hide the error itself
        return set()


# Memoized: the checker's guard asks at every load and store near a tensor's end, thousands of times a
# battery, and parsing the kernel's source each time was half of a layer-norm battery's time in the
# interpreter. A code object and an instruction offset always name the same statement of the same source.
@functools.lru_cache(maxsize=4096)
def _statement(
    code: Any, lasti: int
) -> tuple[str | None, frozenset[str] | None, frozenset[str] | None] | None:
    """The call at instruction `lasti` of `code`, as three parts: the plain name it is called on, if any (`tl`
    in `tl.load(...)`, `desc` in `desc.load(...)`: a module or a tensor descriptor, which only the frame can
    tell), the names in what it is called on (None for a plain function), and those in its first argument
    (None when it has none). None when the statement is not a call or has no position."""
    first, last, start, end = list(code.co_positions())[lasti // 2]
    if None in (first, last, start, end):
        return None
    lines = [linecache.getline(code.co_filename, n).encode() for n in range(first, last + 1)]
    lines[-1] = lines[-1][:end]  # column offsets count UTF-8 bytes
    lines[0] = lines[0][start:]
    call = ast.parse(b"".join(lines).decode(), mode="eval").body
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    owner = func.value if isinstance(func, ast.Attribute) else None
    return (
        owner.id if isinstance(owner, ast.Name) else None,
        frozenset(_names(owner)) if owner is not None else None,
        frozenset(_names(call.args[0])) if call.args else None,
    )


@functools.lru_cache(maxsize=4096)
def _closure(code: Any, names: frozenset[str]) -> frozenset[str]:
    """`names` and, through the assignments of the function of `code`, every name they were computed from."""
    sources = _assignments(code)
    found = set(names)
    todo = list(names)
    while todo:
        for name in sources.get(todo.pop(), set()) - found:
            found.add(name)
            todo.append(name)
    return frozenset(found)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@functools.lru_cache(maxsize=1024)
def _assignments(code: Any) -> dict[str, set[str]]:
    """For each variable the function of `code` assigns, the names on the right of its assignments.
    Callers must not change the dictionary: it is memoized."""
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


def access_bytes(ptrs: Any) -> int:
    """The bytes one lane reads or writes: its pointer's element size (int1 pointers step by one byte)."""
    try:
        return max(1, int(ptrs.get_element_ty().primitive_bitwidth) // 8)
    except Exception:
        return 1


def report(op: str, outside: np.ndarray, lanes: int, size: int, regions: list[Region]) -> OutOfBoundsAccess:
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
    what = f"{r.name} (a tensor of {r.numel:,} element{'s' if r.numel != 1 else ''})"
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
        f"{op} reached {where}: {count} were outside the memory of every tensor the kernel was given "
        "(the guard zones the checker puts around a tensor count as its memory). "
        "Check the offsets (and the grid) that build these pointers, and the mask."
    )
    return OutOfBoundsAccess(message, op, r.name, past, len(outside), lanes, address, r.numel)
