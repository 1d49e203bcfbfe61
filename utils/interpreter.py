"""Triton's interpreter, without the work whose result it throws away: its set-up repeated inside one
launch, and integer-overflow checks that nothing reads (`_skip_unread_overflow_checks` says why).

When `TRITON_INTERPRET=1`, Triton runs a kernel's Python body once per program. Before a launch it
patches `triton.language` so that `tl.load`, `tl.sum` and the rest compute with NumPy, and undoes that
after the launch. But it also runs the same patching again on every call of a `@triton.jit` function
from inside the kernel, and `tl.sum` and `tl.max` are such functions: each call walks every member of
`triton.language` (`inspect.getmembers`) to patch again what is patched already. Measured on two CPU
cores with triton 3.9: under a profiler, 30 s of 112 s over 24 wrong submissions went to 8,120 such
patchings; without it, the wrong submissions of three exercises took 26 s to check instead of 34.

`install()` makes the second and later patchings of the same modules within one launch return at once.
Nothing else changes: the launch still patches first and restores last, the first call that sees a
module the launch has not patched yet (`triton.language.core`, from `tl.sum`'s own module) still
patches it, and a later call would only patch again what is patched already. Triton offers no
setting for this, so this module wraps two of its private functions, and only where they have the
shape it expects: the releases that keep the patches in a `_LangPatchScope` (3.6 and 3.9 were tried;
older ones undo them another way, and there `install()` does nothing).
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

# .patched: ids of the modules patched in the launch now running, or None; .modules_of: for each helper
# called in that launch, the modules `_modules` found
_state = threading.local()


def _modules(fn) -> frozenset[int]:
    """The ids of the triton.language modules that `fn` sees, as Triton's `_patch_lang` finds them."""
    import triton.language as tl

    return frozenset(
        id(value) for value in fn.__globals__.values() if inspect.ismodule(value) and value in (tl, tl.core)
    )


def install() -> bool:
    """Skip repeated patching inside a launch; True if it is (or already was) in place."""
    try:
        from triton.runtime import interpreter
    except ImportError:
        return False
    if getattr(interpreter, "_course_patches_once", False):
        return True
    parts = ("_patch_lang", "_LangPatchScope", "GridExecutor", "InterpretedFunction")
    if not all(hasattr(interpreter, name) for name in parts):
        return False
    patch_lang, launch = interpreter._patch_lang, interpreter.GridExecutor.__call__

    def patch_lang_once(fn):
        patched = getattr(_state, "patched", None)
        if patched is None:
            modules = _modules(fn)
        else:  # a helper is called once per program and trip: look at its globals once per launch
            modules = _state.modules_of.get(fn)
            if modules is None:
                modules = _state.modules_of[fn] = _modules(fn)
        if patched is not None and modules and modules <= patched:
            return interpreter._LangPatchScope()  # nothing to undo: the launch's own scope undoes it all
        scope = patch_lang(fn)
        if patched is not None:
            patched |= modules
        return scope

    def launch_patching_once(self, *args, **kwargs):
        outer = getattr(_state, "patched", None), getattr(_state, "modules_of", None)
        _state.patched, _state.modules_of = set(), {}
        try:
            return launch(self, *args, **kwargs)
        finally:
            _state.patched, _state.modules_of = outer

    interpreter._patch_lang = patch_lang_once
    interpreter.GridExecutor.__call__ = launch_patching_once
    _skip_unread_overflow_checks(interpreter)
    interpreter._course_patches_once = True
    return True


def _skip_unread_overflow_checks(interpreter) -> None:
    """Stop computing integer-overflow checks whose result nothing reads.

    Every `+`, `-` and `*` of int32 values in a kernel (`pid * BLOCK + tl.arange(...)`) asks Triton's
    front end for an overflow check: the operands widened to int64, the operation again, two comparisons
    and an `and`, handed to `device_assert`, which returns at once unless `debug` is on. On a GPU the
    compiler then deletes that work; the interpreter computes it with NumPy for every program and throws
    it away (a third of the time the checker's wrong submissions spent, measured with triton 3.9).
    Turning the builder's `sanitize_overflow` option off skips the check before it is computed; the
    kernel's own operation and its result are untouched. It is turned off only after a probe shows that
    an int32 overflow, with the check on, goes unreported, so a release that does report it keeps it.
    """
    import dataclasses
    import os

    builder: Any = getattr(interpreter, "interpreter_builder", None)
    options: Any = getattr(builder, "options", None)  # a frozen dataclass, InterpreterOptions
    if os.environ.get("TRITON_INTERPRET") != "1" or not hasattr(options, "__dataclass_fields__"):
        return
    if getattr(options, "sanitize_overflow", False) and _int32_overflow_goes_unreported():
        builder.options = dataclasses.replace(options, sanitize_overflow=False)


def _int32_overflow_goes_unreported() -> bool:
    import numpy as np
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def overflow(out_ptr):
        big = tl.full((2,), 2**31 - 1, tl.int32)
        tl.store(out_ptr + tl.arange(0, 2), big + 1)

    out = torch.zeros(2, dtype=torch.int32)
    try:
        overflow[(1,)](out)
    except Exception:  # the check asserted: it is read in this release
        return False
    return bool((out.numpy() == np.iinfo(np.int32).min).all())
