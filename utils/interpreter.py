"""Triton's interpreter, without its repeated set-up inside one launch.

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

_state = threading.local()  # .patched: ids of the modules patched in the launch now running, or None


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
        modules = _modules(fn)
        if patched is not None and modules and modules <= patched:
            return interpreter._LangPatchScope()  # nothing to undo: the launch's own scope undoes it all
        scope = patch_lang(fn)
        if patched is not None:
            patched |= modules
        return scope

    def launch_patching_once(self, *args, **kwargs):
        outer = getattr(_state, "patched", None)
        _state.patched = set()
        try:
            return launch(self, *args, **kwargs)
        finally:
            _state.patched = outer

    interpreter._patch_lang = patch_lang_once
    interpreter.GridExecutor.__call__ = launch_patching_once
    interpreter._course_patches_once = True
    return True
