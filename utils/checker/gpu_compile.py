"""Does a submission that passed in the interpreter compile for a GPU?

The interpreter runs a kernel as Python, one program after another, so it accepts code that Triton's
compiler refuses: a module-level number read inside a kernel, a helper without @triton.jit, a loop variable
whose type changes between trips, an operation on shapes the compiler cannot lay out. A learner on a CPU
would meet the refusal only on a GPU. So, on a CPU, after every case has passed, the checker compiles each
kernel the battery launched for sm_75 (Colab's T4), with the arguments of its first launch, and fails the
exercise with the compiler's own words when it refuses (utils.compiled, in a separate process: about a
second a kernel). On a GPU every launch compiles anyway, and nothing is done here.

What is reported is only what the compiler said. A kernel whose text or globals cannot be carried to the
compiling process (no source, a constexpr argument that is not a number, a global of another kind, see
utils.kernel_source) is not judged: the check then says nothing rather than guess.

COURSE_COMPILE_CHECK=0 turns it off: the tests do, for time (tests/test_kernels_compile.py compiles the
course's own kernels, and tests/test_gpu_compile.py this module), and so does CI's run of the notebooks.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
from dataclasses import dataclass

from utils.compiled import compile_as_launched
from utils.kernel_source import KernelSource
from utils.launches import kernel_name, wrapped_launches

ARCH = 75  # Colab's T4, the oldest GPU the course supports
_PLAIN = (bool, int, float, str, type(None))


def enabled() -> bool:
    return os.environ.get("COURSE_COMPILE_CHECK", "1") != "0"


@dataclass
class Launched:
    """A kernel's first launch: its runtime arguments and constexprs by name, and its num_warps."""

    kernel: object
    args: dict
    constexprs: dict
    num_warps: int


@contextlib.contextmanager
def first_launches():
    """Inside the block, record the first launch of each kernel (by its Python function): yields the dict
    kernel name -> Launched that fills as the block runs."""
    seen: dict[str, Launched] = {}

    def wrap(original):
        def run(self, *args, **kwargs):
            name = kernel_name(self)
            function = getattr(self, "fn", None)
            if name not in seen and inspect.isfunction(function):
                with contextlib.suppress(TypeError, ValueError):
                    seen[name] = _launched(self, function, args, kwargs)
            return original(self, *args, **kwargs)

        return run

    with wrapped_launches(wrap):
        yield seen


def _launched(kernel, function, args, kwargs) -> Launched:
    signature = inspect.signature(function)
    parameters = signature.parameters
    # bind, not bind_partial: a launch short of an argument fails in the battery; it is not compiled here
    bound = signature.bind(*args, **{k: v for k, v in kwargs.items() if k in parameters})
    bound.apply_defaults()
    given: dict[str, object] = {}
    constexprs: dict[str, object] = {}
    for name, value in bound.arguments.items():
        (constexprs if "constexpr" in str(parameters[name].annotation) else given)[name] = value
    return Launched(kernel, given, constexprs, int(kwargs.get("num_warps") or 4))


def _carried(launched: Launched) -> bool:
    """Can this launch be compiled elsewhere as it was called? Its constexprs must be plain values."""
    return all(isinstance(v, _PLAIN) for v in launched.constexprs.values()) and all(
        isinstance(v, (bool, int, float, type(None))) or hasattr(v, "dtype") for v in launched.args.values()
    )


# Exceptions of the compiling process that say nothing of the kernel: the machine's, not the compiler's
_NOT_THE_KERNELS = ("ImportError", "ModuleNotFoundError", "OSError", "FileNotFoundError", "MemoryError")


def _what_it_said(error: str) -> str:
    """The compiler's complaint from the compiling process's stderr: the frontend's last CompilationError,
    or one of its kinds from triton.compiler.errors (the source lines, the caret, the error), else the
    MLIR "error:" lines, else the exception it ended on (Triton's JIT raises a RuntimeError for a helper
    without @triton.jit); "" for none of these, or for an exception of the machine's (_NOT_THE_KERNELS)."""
    blocks = re.findall(  # CompilationError and its kinds (UnsupportedLanguageConstruct: an `if` on a tile)
        r"(?:CompilationError|errors\.\w+): (.*?)(?=\n\S[^\n]*Traceback|\nThe above exception|\Z)",
        error,
        re.DOTALL,
    )
    if blocks:
        return blocks[-1].strip()
    errors = [line.strip() for line in error.splitlines() if "error:" in line]
    if errors:
        return "\n".join(dict.fromkeys(errors))
    raised = re.findall(r"^([\w.]+(?:Error|Exception)): (.*)$", error, re.MULTILINE)
    if raised and raised[-1][0].rsplit(".", 1)[-1] not in _NOT_THE_KERNELS:
        return f"{raised[-1][0]}: {raised[-1][1]}"
    return ""


HINTS = {
    "Cannot access global variable": "a module-level number read inside a kernel must be declared "
    "NAME = tl.constexpr(value), or passed to the kernel as an argument.",
    "Unsupported function referenced": "a function called inside a kernel must itself be a @triton.jit "
    "function (or one of tl's).",
    "Loop-carried variable": "a variable assigned in a loop keeps the type it had before the loop: start "
    "it as the type the loop gives it (0.0, not 0, for a float sum; a tile of tl.zeros for a tile).",
}


def refusals(launches: dict[str, Launched]) -> list[tuple[str, str]]:
    """(kernel name, what the compiler said) for each recorded kernel that fails to compile for sm_75."""
    refused = []
    for name, launched in launches.items():
        if not _carried(launched):
            continue
        try:
            compile_as_launched(
                launched.kernel, launched.args, launched.constexprs, arch=ARCH, num_warps=launched.num_warps
            )
        except RuntimeError as error:  # what compile_for raises when the compiling process failed
            said = _what_it_said(str(error))
            left_out = KernelSource(launched.kernel).left_out if said else []  # what the copy could not carry
            if said and not any(f"{missing} is not defined" in said for missing in left_out):
                refused.append((name, said))
        except Exception:  # a launch this module cannot reproduce (a dtype it has no name for): no verdict
            continue
    return refused


def report(exercise_id: str, refused: list[tuple[str, str]]) -> str:
    lines = [
        f"{exercise_id}: every case gave the right values in the interpreter, but Triton's compiler refuses "
        f"to compile {' and '.join(name for name, _ in refused)} for a GPU (compiled here for sm_{ARCH}, "
        "Colab's T4, with the arguments of its first launch): a GPU would not run it."
    ]
    for name, said in refused:
        lines.append(f"What the compiler said about {name}:")
        lines.extend("  " + line for line in said.splitlines())
    hints = [hint for phrase, hint in HINTS.items() if any(phrase in said for _, said in refused)]
    lines.append(
        "Likely mistake: the interpreter runs a kernel as Python, so it accepts code the compiler refuses. "
        + (
            " ".join(hint[0].upper() + hint[1:] for hint in hints)
            or "Change the line the compiler points at."
        )
    )
    return "\n".join(lines)
