"""A kernel's source as a module of its own, with what it reads at module level: the other `@triton.jit`
functions it calls (and theirs), plain Python helpers, the modules it names, and its constants.

utils.compiled compiles a kernel for a GPU in a separate process when the interpreter is on in this one
(there even `tl.sum` is interpreted, and nothing can be compiled), so the kernel's text must travel without
the notebook or module it was defined in. Each global is re-created as the kind it is, so that the compiler
meets what it would meet on a GPU: a plain Python number stays a plain number (which a kernel may not read),
a `tl.constexpr` stays one, a helper without `@triton.jit` stays a plain function (which a kernel may not
call). A global of any other kind is left out; the compiler then names it as not defined, and
`left_out` says which those were.
"""

from __future__ import annotations

import inspect
import textwrap
import types

import triton.language as tl


def _is_jit(value) -> bool:
    """A @triton.jit function: the compiler's JITFunction, or the interpreter's wrapper of one."""
    return callable(getattr(value, "run", None)) and inspect.isfunction(getattr(value, "fn", None))


def _literal(value) -> str:
    return f"float({str(value)!r})" if isinstance(value, float) else repr(value)  # float("-inf"): no literal


def _function_text(function, jit: bool) -> str:
    """The function's own text, its decorators replaced by @triton.jit for a jit function."""
    lines = textwrap.dedent(inspect.getsource(function)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(("def ", "async def ")))
    return ("@triton.jit\n" if jit else "") + "\n".join(lines[start:]) + "\n"


class KernelSource:
    """The module text for `kernel` (a @triton.jit function): `text`, and the globals `left_out`."""

    def __init__(self, kernel):
        self.definitions: list[str] = []
        self.left_out: list[str] = []
        self._done: set[str] = set()
        self._add(kernel.fn, jit=True)
        header = "import triton\nimport triton.language as tl\n\n"
        self.text = header + "\n\n".join(self.definitions)

    def _add(self, function, jit: bool) -> None:
        if function.__name__ in self._done:
            return
        self._done.add(function.__name__)
        for name in function.__code__.co_names:
            if name in self._done or name not in function.__globals__:
                continue  # a builtin (range, min, ...) or an attribute's name
            value = function.__globals__[name]
            if isinstance(value, types.ModuleType):
                if name not in ("tl", "triton"):
                    self.definitions.append(f"import {value.__name__} as {name}\n")
                self._done.add(name)
            elif _is_jit(value):
                self._add(value.fn, jit=True)
            elif inspect.isfunction(value):
                self._add(value, jit=False)
            elif isinstance(value, tl.constexpr) and isinstance(value.value, (bool, int, float)):
                self.definitions.append(f"{name} = tl.constexpr({_literal(value.value)})\n")
                self._done.add(name)
            elif isinstance(value, (bool, int, float)):
                self.definitions.append(f"{name} = {_literal(value)}\n")
                self._done.add(name)
            else:
                self.left_out.append(name)
        try:
            self.definitions.append(_function_text(function, jit))
        except (OSError, TypeError, StopIteration):  # no source to be had (a lambda, a built-in)
            self.left_out.append(function.__name__)
