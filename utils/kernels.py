"""The course's kernels, taken from the one place they are written: the solution notebooks.

`jit_functions()` lists every `@triton.jit` function defined in `solutions/NN_*.ipynb`, with its source and
parameters; `load("04_l2_norm")` returns a module holding one notebook's kernels, so scripts and tests can
use them without copies. `python -m utils.kernels --compile` compiles every kernel for sm_75 (Colab's T4)
and sm_90 without a GPU and prints one JSON line per kernel and architecture.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import itertools
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
ARCHES = (75, 90)
# Values to compile each constexpr parameter with: every branch a notebook's launches take. A kernel with a
# constexpr parameter that is not listed here fails the compile test and asks for an entry.
EXAMPLE_CONSTEXPRS = {
    "BLOCK_SIZE": [1024], "BLOCK_ROWS": [4], "TRANSFORM": ["square", "abs", "nonzero"],
    "SHIFT": [True, False], "OTHER": [0.0, float("-inf")], "OP": ["max", "min", "sum", "prod"],
}
# Pointer parameters are compiled as float32 pointers, except these, named by the course's convention:
POINTER_TYPES = {"order_ptr": "*i64"}  # notebook 02's permutation of tiles, from torch.randperm
EXPECTED_TO_FAIL = "_broken_kernel"  # a notebook's deliberately invalid kernel ends its name with this


@dataclass(frozen=True)
class JitFunction:
    notebook: str  # e.g. "04_l2_norm"
    name: str
    source: str  # decorator included
    parameters: tuple[str, ...]
    constexprs: tuple[str, ...]  # the parameters annotated tl.constexpr

    @property
    def is_kernel(self) -> bool:
        """A launchable kernel (a helper such as a combine function takes only values, not pointers)."""
        return any(name.endswith("_ptr") for name in self.parameters)


def jit_functions(notebook: str | None = None) -> list[JitFunction]:
    """The @triton.jit functions of every solution notebook (or of one), in notebook order."""
    import nbformat

    paths = sorted(SOLUTIONS.glob(f"{notebook or '[0-9][0-9]_*'}.ipynb"))
    found = []
    for path in paths:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            lines = cell.source.splitlines()
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.FunctionDef) and any(
                        "jit" in ast.unparse(d) for d in node.decorator_list):
                    start = node.decorator_list[0].lineno - 1
                    parameters = tuple(a.arg for a in node.args.args)
                    constexprs = tuple(a.arg for a in node.args.args if a.annotation is not None
                                       and "constexpr" in ast.unparse(a.annotation))
                    found.append(JitFunction(path.stem, node.name, "\n".join(lines[start:node.end_lineno]),
                                             parameters, constexprs))
    return found


def load(notebook: str):
    """A module with the notebook's @triton.jit functions as attributes (written to a temporary file:
    Triton reads a kernel's source from its file)."""
    functions = jit_functions(notebook)
    if not functions:
        raise ValueError(f"no kernels in solutions/{notebook}.ipynb")
    folder = Path(tempfile.mkdtemp(prefix="course_kernels_"))
    path = folder / f"kernels_{notebook}.py"
    path.write_text("import triton\nimport triton.language as tl\n\n\n"
                    + "\n\n\n".join(f.source for f in functions) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compile_all() -> None:
    """Compile every kernel for every architecture in ARCHES; one JSON line per (kernel, arch)."""
    from utils.compiled import compile_for

    functions = jit_functions()
    modules = {notebook: load(notebook) for notebook in sorted({f.notebook for f in functions})}
    for function in filter(lambda f: f.is_kernel, functions):
        kernel = getattr(modules[function.notebook], function.name)
        signature = {p: "constexpr" if p in function.constexprs else
                     POINTER_TYPES.get(p, "*fp32") if p.endswith("_ptr") else "i32"
                     for p in function.parameters}
        missing = [c for c in function.constexprs if c not in EXAMPLE_CONSTEXPRS]
        choices = [[(c, v) for v in EXAMPLE_CONSTEXPRS.get(c, [])] for c in function.constexprs]
        for arch in ARCHES:
            result = {"notebook": function.notebook, "kernel": function.name, "arch": arch, "error": None}
            if missing:
                result["error"] = f"no example values for constexpr {missing} in EXAMPLE_CONSTEXPRS"
            for constexprs in ([] if missing else itertools.product(*choices)):
                try:
                    compile_for(kernel, signature, dict(constexprs), arch=arch, num_warps=4)
                except Exception as error:  # the first failing constexpr choice, under the kernel's name
                    text = str(error).strip()
                    last = text.splitlines()[-1] if text else type(error).__name__
                    result["error"] = f"{dict(constexprs)}: {type(error).__name__}: {last}"
                    break
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true", help="compile every kernel for sm_75 and sm_90")
    arguments = parser.parse_args()
    if arguments.compile:
        if os.environ.get("TRITON_INTERPRET") == "1":
            raise SystemExit("unset TRITON_INTERPRET: the interpreter cannot compile for a GPU")
        _compile_all()
    else:
        for function in jit_functions():
            print(f"{function.notebook}: {function.name}({', '.join(function.parameters)})")
