"""The course's kernels, taken from the one place they are written: the solution notebooks.

`jit_functions()` lists every `@triton.jit` function defined in `solutions/NN_*.ipynb`, with its source and
parameters. `load("04_l2_norm")` returns a module holding one notebook's definitions: its kernels, the
host functions that launch them, and the upper-case constants those functions use (`SMS`, `PROGRAMS`,
`BLOCK_SIZE`), so scripts and tests run the notebook's own code, not copies. `python -m utils.kernels
--compile` compiles every kernel for sm_75 (Colab's T4) and sm_90 without a GPU and prints one JSON line per
kernel and architecture.
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
    "COUNT": ["min", "sum"],  # notebook 06: a tile's count by arithmetic, or by a tl.sum
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


# What a notebook's definitions may use besides each other: the imports and names of its set-up cell.
# `course` is built here, not by utils.setup.setup(), which would switch on the interpreter as a side effect.
PRELUDE = """\
import torch
import triton
import triton.language as tl

from utils.setup import Course, runs_on_gpu

_ON_GPU = runs_on_gpu()
course = Course(device="cuda" if _ON_GPU else "cpu", on_gpu=_ON_GPU, description="loaded by utils.kernels")
DEVICE = course.device
"""


def definitions(notebook: str) -> str:
    """The notebook's function definitions and the upper-case constants they read, in notebook order.

    The notebook is read as plain JSON, not with nbformat: notebook 06 loads notebook 04 in a cell, and
    importing nbformat there would cost about a second of the interpreter run for nothing.
    """
    path = SOLUTIONS / f"{notebook}.ipynb"
    if not path.exists():
        raise ValueError(f"no notebook solutions/{notebook}.ipynb")
    found = []  # (node, its source) in notebook order
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
               for cell in cells if cell["cell_type"] == "code"]
    for source in sources[1:]:  # the first code cell is the set-up cell: PRELUDE stands in
        for node in ast.parse(source).body:
            is_constant = (isinstance(node, ast.Assign) and len(node.targets) == 1
                           and isinstance(node.targets[0], ast.Name) and node.targets[0].id.isupper())
            if isinstance(node, ast.FunctionDef) or is_constant:
                first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                found.append((node, "\n".join(source.splitlines()[first - 1:node.end_lineno])))
    kept = [isinstance(node, ast.FunctionDef) for node, _ in found]
    while True:  # a constant is kept when a kept definition reads it (PROGRAMS reads SMS)
        read = {name.id for (node, _), keep in zip(found, kept) if keep
                for name in ast.walk(node) if isinstance(name, ast.Name)}
        more = [keep or node.targets[0].id in read for (node, _), keep in zip(found, kept)]
        if more == kept:
            return "\n\n\n".join(source for (_, source), keep in zip(found, kept) if keep)
        kept = more


def load(notebook: str, **names):
    """A module with the notebook's definitions (see `definitions`) as attributes.

    `names` adds globals that the notebook's functions read from cells not loaded, e.g. `split_works=True`
    for notebook 05's `row_sum_best`, which falls back when the learner's split kernel failed its check.
    The module is written to a temporary file because Triton reads a kernel's source from its file.
    """
    folder = Path(tempfile.mkdtemp(prefix="course_kernels_"))
    path = folder / f"kernels_{notebook}.py"
    path.write_text(PRELUDE + "\n\n" + definitions(notebook) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(names)
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
