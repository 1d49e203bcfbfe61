"""Compile a kernel for a chosen NVIDIA GPU without needing one, pick lines out of its PTX, and capture
what the compiler prints.

Triton ships its own ptxas, so `triton.compile` can target sm_75 (Colab's T4) or sm_90 (H100/H200) on any
machine. With TRITON_INTERPRET=1 even Triton's own library functions (`tl.sum`, ...) are interpreted and
cannot be compiled in that process, so there the kernel's source, with the helpers and constants it reads
(utils.kernel_source), is compiled in a fresh Python process.
Some compiler errors (Triton 3.6's MLIR verifier, for one) are printed rather than put into the exception,
partly by C++ straight to file descriptor 2: `captured_fds` collects them, stream by stream, and `explain`
prints the lines that name the problem with the stream each came from. `compile_as_launched` compiles the
way a launch with given arguments would (Triton specialises on them), and `stages` summarises what a
compile produced. The notebooks call these from cells marked "for the curious": the plumbing is not the
lesson.
"""

from __future__ import annotations

import base64
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

from utils.kernel_source import KernelSource
from utils.setup import interpreting

_COURSE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# The course's names for arguments: a pointer ends in _ptr and points to float32, except these.
POINTER_TYPES = {
    "order_ptr": "*i64",  # notebook 02's permutation of tiles, from torch.randperm
    "partial_indices_ptr": "*i32",  # notebook 03's argmax: one index per program
    "ticket_ptr": "*i32",  # notebook 07's one-launch reductions: the atomic ticket counter
    "tickets_ptr": "*i32",  # notebook 07's diagram: the ticket each program drew
}


def course_signature(kernel) -> dict[str, str]:
    """Each argument's type by the course's convention, for `compile_for`: a parameter annotated
    `tl.constexpr` is a constexpr, one named `*_ptr` a float32 pointer (or as POINTER_TYPES says), any
    other an int32. A launch works the types out from what it is passed; a compile without one cannot."""
    parameters = inspect.signature(getattr(kernel, "fn", kernel)).parameters
    return {
        name: "constexpr"
        if "constexpr" in str(parameter.annotation)
        else POINTER_TYPES.get(name, "*fp32")
        if name.endswith("_ptr")
        else "i32"
        for name, parameter in parameters.items()
    }


def compile_kernel(kernel, *, arch: int = 90, num_warps: int = 4, **constexprs) -> dict[str, str | bytes]:
    """`compile_for` with the course's signature: `compile_kernel(copy_kernel, arch=75, BLOCK_SIZE=1024)`."""
    return compile_for(kernel, course_signature(kernel), constexprs, arch=arch, num_warps=num_warps)


def compile_for(
    kernel,
    signature: dict[str, str],
    constexprs: dict | None = None,
    *,
    arch: int = 90,
    num_warps: int = 4,
    divisible: tuple[str, ...] = (),
) -> dict[str, str | bytes]:
    """Compile `kernel` for sm_<arch>; returns its stages by name, in the order they were made: text for
    "ttir", "ttgir", "llir", "ptx" (and "source" where Triton keeps it), bytes for "cubin".

    `signature` names every argument's type, e.g. {"x_ptr": "*fp32", "n": "i32", "BLOCK_SIZE": "constexpr"};
    `constexprs` gives the constexpr values, e.g. {"BLOCK_SIZE": 1024}. `divisible` names the arguments to
    mark as multiples of 16 (tt.divisibility = 16), as Triton's JIT does at a launch for 16-byte aligned
    pointers and integers divisible by 16.
    """
    constexprs = constexprs or {}
    positions = [list(signature).index(name) for name in divisible]
    if not interpreting():
        return _compile(kernel, signature, constexprs, positions, arch, num_warps)
    function = kernel.fn  # the interpreter wraps the Python function; compile its source elsewhere
    code = KernelSource(kernel).text
    with tempfile.TemporaryDirectory() as folder:
        path, out = os.path.join(folder, "kernel_source.py"), os.path.join(folder, "asm.json")
        with open(path, "w") as f:
            f.write(code)
        # This very module, run as `python -m utils.compiled` without the interpreter (see _main).
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_COURSE_ROOT, env.get("PYTHONPATH")]))
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "utils.compiled",
                path,
                function.__name__,
                json.dumps(signature),
                json.dumps(constexprs),
                json.dumps(positions),
                str(arch),
                str(num_warps),
                out,
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:  # show the compiler's own message, not a bare CalledProcessError
            raised = re.findall(r"^([\w.]+(?:Error|Exception)):", done.stderr, re.MULTILINE)
            what = f" with {raised[-1]}" if raised else ""
            raise RuntimeError(
                f"compiling {function.__name__} for sm_{arch} in a separate process "
                f"failed{what}:\n{done.stderr}"
            )
        with open(out) as f:
            saved = json.load(f)
        return {k: v if isinstance(v, str) else base64.b64decode(v["base64"]) for k, v in saved.items()}


def _compile(
    kernel, signature: dict[str, str], constexprs: dict, divisible: list[int], arch: int, num_warps: int
) -> dict:
    """triton.compile for sm_<arch> in this process; `divisible`: positions of the arguments marked as
    multiples of 16."""
    import triton
    from triton.backends.compiler import GPUTarget

    attrs = {(index,): [["tt.divisibility", 16]] for index in divisible}
    source = triton.compiler.ASTSource(
        fn=kernel, signature=signature, constexprs=constexprs, **({"attrs": attrs} if attrs else {})
    )
    compiled = triton.compile(source, target=GPUTarget("cuda", arch, 32), options={"num_warps": num_warps})
    return {k: v for k, v in compiled.asm.items() if isinstance(v, (str, bytes))}


def _main(argv: list[str]) -> None:
    """`python -m utils.compiled SOURCE NAME SIGNATURE CONSTEXPRS DIVISIBLE ARCH NUM_WARPS OUT`: compile the
    kernel NAME of the file SOURCE and write its stages to OUT as JSON (bytes as base64). compile_for runs
    this when the interpreter is on in the caller's process, which can then compile nothing itself."""
    import importlib.util

    path, name, signature, constexprs, divisible, arch, num_warps, out = argv
    spec = importlib.util.spec_from_file_location("kernel_source", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    asm = _compile(
        getattr(module, name),
        json.loads(signature),
        json.loads(constexprs),
        json.loads(divisible),
        int(arch),
        int(num_warps),
    )
    with open(out, "w") as f:
        json.dump(
            {
                k: v if isinstance(v, str) else {"base64": base64.b64encode(v).decode()}
                for k, v in asm.items()
            },
            f,
        )


_TORCH_TYPES = {
    "float32": "fp32",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float64": "fp64",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "bool": "i1",
}


def compile_as_launched(kernel, args: dict, constexprs: dict, *, arch: int = 75, num_warps: int = 4) -> dict:
    """Compile `kernel` for sm_<arch> as a launch with these arguments would, without launching it.

    `args` maps each runtime argument's name to what the launch passes: a tensor (any device, "meta"
    included: only its dtype and address matter), an int, a float, a bool or None. Like Triton's JIT at a
    launch, an int equal to 1 and None become constants, and a 16-byte aligned pointer or an int divisible
    by 16 is marked tt.divisibility = 16. Returns `compile_for`'s stages.
    """
    signature: dict[str, str] = {}
    divisible: list[str] = []
    ones: dict[str, int | None] = {}
    for name, value in args.items():
        if value is None:
            signature[name], ones[name] = "constexpr", None
            continue
        if isinstance(value, (bool, float)):
            signature[name] = "i1" if isinstance(value, bool) else "fp32"
            continue
        if isinstance(value, int):
            if value == 1:
                signature[name], ones[name] = "constexpr", 1
                continue
            signature[name] = "i32" if -(2**31) <= value < 2**31 else "i64"
            aligned = value % 16 == 0
        else:
            signature[name] = "*" + _TORCH_TYPES[str(value.dtype).removeprefix("torch.")]
            aligned = value.device.type == "meta" or value.data_ptr() % 16 == 0
        if aligned:
            divisible.append(name)
    signature.update({name: "constexpr" for name in constexprs})
    return compile_for(
        kernel, signature, {**constexprs, **ones}, arch=arch, num_warps=num_warps, divisible=tuple(divisible)
    )


ELLIPSIS = "…"
# The line that opens the kernel in each stage: the function's definition, or the PTX entry point.
_OPENING = {
    "source": r"tt\.func",
    "ttir": r"tt\.func",
    "ttgir": r"tt\.func",
    "llir": r"^define",
    "ptx": r"^\.visible \.entry",
}


def stages(asm: dict) -> list[list[str]]:
    """Rows [stage, size, the line that opens the kernel] for what `compile_for` returned, in its order."""
    rows = []
    for name, stage in asm.items():
        if not isinstance(stage, (str, bytes)):  # a launch's .asm may hold other things too
            continue
        if isinstance(stage, bytes):
            rows.append([name, f"{len(stage):,} bytes", "machine code for the GPU, an ELF file"])
            continue
        opening = lines(stage, _OPENING.get(name, r"\S"))
        first = re.sub(r"\s*loc\(.*$|\s*\{$", "", opening[0]) if opening else ""
        first = first[:90] + (ELLIPSIS if len(first) > 90 else "")
        rows.append([name, f"{len(stage.splitlines()):,} lines", first])
    return rows


def count(text: str, pattern: str) -> int:
    """How many lines of `text` (PTX, TTIR, ...) match the regular expression `pattern`."""
    return sum(1 for line in text.splitlines() if re.search(pattern, line))


def lines(text: str, pattern: str) -> list[str]:
    """The lines of `text` that match `pattern`, stripped."""
    return [line.strip() for line in text.splitlines() if re.search(pattern, line)]


def ttir_arguments(ttir: str) -> list[tuple[str, bool]]:
    """The kernel's arguments in its TTIR signature, each with whether it is marked tt.divisibility = 16."""
    (signature, *_) = lines(ttir, r"tt\.func public")
    return [
        (name, bool(divisible))
        for name, divisible in re.findall(r"%(\w+): [^{(,]+(\{tt\.divisibility = 16[^}]*\})?", signature)
    ]


class Captured:
    """What `captured_fds` collected, filled in when the with-block ends: `streams`, the text of each stream
    by name ("file descriptor 1", "file descriptor 2", "Python's sys.stdout", "Python's sys.stderr"), and
    `text`, all of it."""

    streams: dict[str, str]
    text: str = ""


@contextlib.contextmanager
def captured_fds():
    """Collect everything written inside the with-block, stream by stream: to Python's sys.stdout and
    sys.stderr, and to file descriptors 1 and 2, where C and C++ code write.

        with captured_fds() as captured:
            ...
        print(captured.streams["file descriptor 2"])

    All four are needed: Triton 3.6 reports a failed MLIR verification from C++ on file descriptor 2, and its
    module dump through Python's print, which in Jupyter does not pass through file descriptor 1.
    """
    captured = Captured()
    python_out, python_err = io.StringIO(), io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as sink_1, tempfile.TemporaryFile() as sink_2:
        saved = os.dup(1), os.dup(2)
        os.dup2(sink_1.fileno(), 1)
        os.dup2(sink_2.fileno(), 2)
        try:
            with contextlib.redirect_stdout(python_out), contextlib.redirect_stderr(python_err):
                yield captured
        finally:
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL(None).fflush(None)  # C stdio buffers too
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink_1.seek(0)
            sink_2.seek(0)
            captured.streams = {
                "file descriptor 1": sink_1.read().decode(errors="replace"),
                "file descriptor 2": sink_2.read().decode(errors="replace"),
                "Python's sys.stdout": python_out.getvalue(),
                "Python's sys.stderr": python_err.getvalue(),
            }
            captured.text = "".join(captured.streams.values())


# Lines of a compiler's complaint worth reading: its error lines, the operation it names, the frontend's and
# the interpreter's messages.
USEFUL = r"error|tt\.atomic_rmw|Value argument|cannot reshape"


def explain(error: BaseException, captured: Captured, pattern: str = USEFUL, width: int = 200) -> None:
    """Print the exception's type and the lines matching `pattern`, each once, tagged with where it came
    from: the exception's own text or one of the captured streams; then how much each stream held."""
    print(f"exception: {type(error).__module__}.{type(error).__name__}")
    seen = set()
    # compile_for's copy of the kernel lives in a fresh temporary folder each time: name only the file
    scratch = re.escape(tempfile.gettempdir()) + r"/tmp\w+/"
    for where, text in {"the exception": str(error), **captured.streams}.items():
        for line in text.splitlines():
            line = re.sub(scratch, "", line.strip())[:width]
            if re.search(pattern, line) and line not in seen:
                seen.add(line)
                print(f"  [{where}] {line}")
    held = [f"{where}: {len(text.splitlines())}" for where, text in captured.streams.items()]
    print(f"lines printed while it ran, by stream: {', '.join(held)}")


if __name__ == "__main__":
    _main(sys.argv[1:])
