"""Compile a kernel for a chosen NVIDIA GPU without needing one, pick lines out of its PTX, and capture
what the compiler prints.

Triton ships its own ptxas, so `triton.compile` can target sm_75 (Colab's T4) or sm_90 (H100/H200) on any
machine. With TRITON_INTERPRET=1 even Triton's own library functions (`tl.sum`, ...) are interpreted and
cannot be compiled in that process, so there the kernel's source is compiled in a fresh Python process.
Some compiler errors (Triton 3.6's MLIR verifier, for one) are printed rather than put into the exception,
partly by C++ straight to file descriptor 2: `captured_fds` collects them.
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

_COMPILE_SCRIPT = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
path, name, signature, constexprs, attrs, arch, num_warps, out = sys.argv[1:]
spec = importlib.util.spec_from_file_location("kernel_source", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
attrs = {(index,): [["tt.divisibility", 16]] for index in json.loads(attrs)}
source = triton.compiler.ASTSource(fn=getattr(module, name), signature=json.loads(signature),
                                   constexprs=json.loads(constexprs), **({"attrs": attrs} if attrs else {}))
target = GPUTarget("cuda", int(arch), 32)
kernel = triton.compile(source, target=target, options={"num_warps": int(num_warps)})
json.dump({k: v for k, v in kernel.asm.items() if isinstance(v, str)}, open(out, "w"))
"""


def _constants_read(function) -> str:
    """Source lines that re-create the module-level constants `function` reads, as the kind they are.

    The separate compiling process sees only the kernel's source, so a global it reads would be missing
    there and fail for that reason alone. A plain Python number stays a plain number (which the compiler
    refuses inside a kernel, as it does on a GPU) and a `tl.constexpr` stays a constexpr.
    """
    import triton.language as tl

    def literal(value) -> str:  # float("-inf") has no literal of its own
        return f"float({str(value)!r})" if isinstance(value, float) else repr(value)

    found = []
    for name in function.__code__.co_names:
        value = function.__globals__.get(name)
        if isinstance(value, tl.constexpr) and isinstance(value.value, (bool, int, float)):
            found.append(f"{name} = tl.constexpr({literal(value.value)})\n")
        elif isinstance(value, (bool, int, float)):
            found.append(f"{name} = {literal(value)}\n")
    return "".join(found)


def compile_for(kernel, signature: dict[str, str], constexprs: dict | None = None, *, arch: int = 90,
                num_warps: int = 4, divisible: tuple[str, ...] = ()) -> dict[str, str]:
    """Compile `kernel` for sm_<arch>; returns its text stages: "ttir", "ttgir", "llir", "ptx".

    `signature` names every argument's type, e.g. {"x_ptr": "*fp32", "n": "i32", "BLOCK_SIZE": "constexpr"};
    `constexprs` gives the constexpr values, e.g. {"BLOCK_SIZE": 1024}. `divisible` names the arguments to
    mark as multiples of 16 (tt.divisibility = 16), as Triton's JIT does at a launch for 16-byte aligned
    pointers and integers divisible by 16.
    """
    constexprs = constexprs or {}
    divisible_at = [list(signature).index(name) for name in divisible]
    if os.environ.get("TRITON_INTERPRET") != "1":
        import triton
        from triton.backends.compiler import GPUTarget

        attrs = {(index,): [["tt.divisibility", 16]] for index in divisible_at}
        source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs,
                                           **({"attrs": attrs} if attrs else {}))
        target = GPUTarget("cuda", arch, 32)
        compiled = triton.compile(source, target=target, options={"num_warps": num_warps})
        return {k: v for k, v in compiled.asm.items() if isinstance(v, str)}
    function = kernel.fn  # the interpreter wraps the Python function; compile its source elsewhere
    body = textwrap.dedent(inspect.getsource(function)).split("\n", 1)[1]  # drop the original decorator line
    code = ("import triton\nimport triton.language as tl\n\n" + _constants_read(function)
            + "\n\n@triton.jit\n" + body)
    with tempfile.TemporaryDirectory() as folder:
        path, out = os.path.join(folder, "kernel_source.py"), os.path.join(folder, "asm.json")
        with open(path, "w") as f:
            f.write(code)
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        done = subprocess.run([sys.executable, "-c", _COMPILE_SCRIPT, path, function.__name__,
                               json.dumps(signature), json.dumps(constexprs), json.dumps(divisible_at),
                               str(arch), str(num_warps), out],
                              env=env, capture_output=True, text=True)
        if done.returncode != 0:  # show the compiler's own message, not a bare CalledProcessError
            raised = re.findall(r"^([\w.]+(?:Error|Exception)):", done.stderr, re.MULTILINE)
            what = f" with {raised[-1]}" if raised else ""
            raise RuntimeError(f"compiling {function.__name__} for sm_{arch} in a separate process "
                               f"failed{what}:\n{done.stderr}")
        with open(out) as f:
            return json.load(f)


def count(text: str, pattern: str) -> int:
    """How many lines of `text` (PTX, TTIR, ...) match the regular expression `pattern`."""
    return sum(1 for line in text.splitlines() if re.search(pattern, line))


def lines(text: str, pattern: str) -> list[str]:
    """The lines of `text` that match `pattern`, stripped."""
    return [line.strip() for line in text.splitlines() if re.search(pattern, line)]


class Captured:
    """What `captured_fds` collected: `text`, filled in when the with-block ends."""

    text: str = ""


@contextlib.contextmanager
def captured_fds():
    """Collect everything written inside the with-block: to Python's sys.stdout and sys.stderr, and to file
    descriptors 1 and 2, where C and C++ code write.

        with captured_fds() as captured:
            ...
        print(captured.text)

    Both are needed: Triton 3.6 reports a failed MLIR verification from C++ on file descriptor 2, and its
    module dump through Python's print, which in Jupyter does not pass through file descriptor 1.
    """
    captured = Captured()
    python_out = io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(1), os.dup(2)
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stdout(python_out), contextlib.redirect_stderr(python_out):
                yield captured
        finally:
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL(None).fflush(None)  # C stdio buffers too
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            captured.text = sink.read().decode(errors="replace") + python_out.getvalue()
