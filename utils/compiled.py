"""Compile a kernel for a chosen NVIDIA GPU without needing one, and pick lines out of its PTX.

Triton ships its own ptxas, so `triton.compile` can target sm_75 (Colab's T4) or sm_90 (H100/H200) on any
machine. With TRITON_INTERPRET=1 even Triton's own library functions (`tl.sum`, ...) are interpreted and
cannot be compiled in that process, so there the kernel's source is compiled in a fresh Python process.
"""

from __future__ import annotations

import inspect
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
path, name, signature, constexprs, arch, num_warps, out = sys.argv[1:]
spec = importlib.util.spec_from_file_location("kernel_source", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
source = triton.compiler.ASTSource(fn=getattr(module, name), signature=json.loads(signature),
                                   constexprs=json.loads(constexprs))
target = GPUTarget("cuda", int(arch), 32)
kernel = triton.compile(source, target=target, options={"num_warps": int(num_warps)})
json.dump({k: v for k, v in kernel.asm.items() if isinstance(v, str)}, open(out, "w"))
"""


def compile_for(kernel, signature: dict[str, str], constexprs: dict | None = None, *, arch: int = 90,
                num_warps: int = 4) -> dict[str, str]:
    """Compile `kernel` for sm_<arch>; returns its text stages: "ttir", "ttgir", "llir", "ptx".

    `signature` names every argument's type, e.g. {"x_ptr": "*fp32", "n": "i32", "BLOCK_SIZE": "constexpr"};
    `constexprs` gives the constexpr values, e.g. {"BLOCK_SIZE": 1024}.
    """
    constexprs = constexprs or {}
    if os.environ.get("TRITON_INTERPRET") != "1":
        import triton
        from triton.backends.compiler import GPUTarget

        source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs)
        target = GPUTarget("cuda", arch, 32)
        compiled = triton.compile(source, target=target, options={"num_warps": num_warps})
        return {k: v for k, v in compiled.asm.items() if isinstance(v, str)}
    function = kernel.fn  # the interpreter wraps the Python function; compile its source elsewhere
    code = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n" + textwrap.dedent(
        inspect.getsource(function)).split("\n", 1)[1]  # drop the original decorator line
    with tempfile.TemporaryDirectory() as folder:
        path, out = os.path.join(folder, "kernel_source.py"), os.path.join(folder, "asm.json")
        with open(path, "w") as f:
            f.write(code)
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        done = subprocess.run([sys.executable, "-c", _COMPILE_SCRIPT, path, function.__name__,
                               json.dumps(signature), json.dumps(constexprs), str(arch), str(num_warps), out],
                              env=env, capture_output=True, text=True)
        if done.returncode != 0:  # show the compiler's own message, not a bare CalledProcessError
            raise RuntimeError(f"compiling {function.__name__} for sm_{arch} failed:\n{done.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def count(text: str, pattern: str) -> int:
    """How many lines of `text` (PTX, TTIR, ...) match the regular expression `pattern`."""
    return sum(1 for line in text.splitlines() if re.search(pattern, line))


def lines(text: str, pattern: str) -> list[str]:
    """The lines of `text` that match `pattern`, stripped."""
    return [line.strip() for line in text.splitlines() if re.search(pattern, line)]
