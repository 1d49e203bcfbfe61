"""The course's kernels, taken from the one place they are written: the solution notebooks.

- `python -m utils.release` writes the cells of each solution notebook tagged `export` (see utils.notebooks),
  in order, after a prelude that stands in for the set-up cell, to `utils/exported/nbNN_topic.py`
  (`exported_source`). The contract is the tag, nothing is guessed: a name that an exported cell reads but no
  exported cell defines stops the release, naming itself and the function that reads it, rather than failing
  later as a NameError.
- `load("02_sum_atomics")` imports that file as a fresh module on each call (a notebook's caches start empty),
  so the benchmark, the tests and later notebooks run the notebook's own kernels and host functions, not
  copies; ruff and mypy read the files like any module.
- `jit_functions()` lists every `@triton.jit` function of `solutions/`, exported or not, and `python -m
  utils.kernels --compile` compiles each one for sm_75 (Colab's T4) and sm_90 without a GPU, printing one JSON
  line per kernel and architecture (tests/test_kernels_compile.py reads them). For that it writes each
  notebook's kernels, and the assignments they read, to a temporary file and imports it: Triton reads a
  kernel's source from its file when decorating it.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import functools
import importlib.util
import itertools
import json
import symtable
import tempfile
import types
from dataclasses import dataclass, replace
from pathlib import Path

from utils.kernel_examples import EXAMPLE_CONSTEXPRS
from utils.notebooks import code_cells, is_exported, is_triton_jit, jit_helpers, solution, solution_paths
from utils.setup import interpreting

ARCHES = (75, 90)
EXPECTED_TO_FAIL = "_broken_kernel"  # a notebook's deliberately invalid kernel ends its name with this

# What a notebook's exported cells may use besides each other: the names of its set-up cell. `course` is
# built here, not by utils.setup.setup(), which would switch on the interpreter as a side effect.
PRELUDE = """\
import torch
import triton
import triton.language as tl

from utils.setup import Course, runs_on_gpu

_ON_GPU = runs_on_gpu()
course = Course(device="cuda" if _ON_GPU else "cpu", on_gpu=_ON_GPU, description="loaded by utils.kernels")
DEVICE = course.device
"""


def _assigned_names(node: ast.AST) -> set[str]:
    """The names a top-level assignment binds (`BLOCK = 1024`), or an import of an earlier notebook's
    exported cells (`from utils.exported.nb08_softmax import leave_barrier`: a helper a kernel calls)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return {node.targets[0].id}
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("utils.exported"):
        return {alias.asname or alias.name for alias in node.names}
    return set()


PRELUDE_NAMES = set().union(*(_assigned_names(node) for node in ast.parse(PRELUDE).body))  # course, DEVICE


class ExportError(ValueError):
    """A notebook's exported cells do not make a module on their own."""


@dataclass(frozen=True)
class JitFunction:
    notebook: str  # e.g. "04_l2_norm"
    name: str
    source: str  # decorator included
    parameters: tuple[str, ...]
    constexprs: tuple[str, ...]  # the parameters annotated tl.constexpr
    helper: bool = False  # utils.notebooks.jit_helpers: it returns a value, or another jit function names it

    @property
    def is_kernel(self) -> bool:
        """A launchable kernel: it takes pointers (a combine function takes values) and is no helper."""
        return any(name.endswith("_ptr") for name in self.parameters) and not self.helper


def _definitions(source: str):
    """(node, its source) for each top-level function, assignment and import from utils.exported of a cell."""
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.Assign, ast.ImportFrom)):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            yield node, "\n".join(lines[first - 1 : node.end_lineno])


def jit_functions(notebook: str | None = None) -> list[JitFunction]:
    """The @triton.jit functions of every solution notebook (or of one), in notebook order."""
    found = []
    for path in [solution(notebook)] if notebook else solution_paths():
        functions = []
        for cell in code_cells(path):
            for node, source in _definitions(cell.source):
                if isinstance(node, ast.FunctionDef) and is_triton_jit(node):
                    parameters = tuple(a.arg for a in node.args.args)
                    annotations = [ast.unparse(a.annotation) if a.annotation else "" for a in node.args.args]
                    constexprs = tuple(p for p, a in zip(parameters, annotations) if "constexpr" in a)
                    functions.append(JitFunction(path.stem, node.name, source, parameters, constexprs))
        helpers = jit_helpers({f.name: f.source for f in functions})
        found += [replace(f, helper=f.name in helpers) for f in functions]
    return found


def _import_file(name: str, path: Path) -> types.ModuleType:
    """The Python file at `path`, run as a new module called `name` (not entered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unresolved(source: str, filename: str) -> dict[str, list[str]]:
    """Free names of each function in `source` that nothing at the top level binds: name -> functions."""
    table = symtable.symtable(source, filename, "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    bound |= {child.get_name() for child in table.get_children()}
    missing: dict[str, list[str]] = {}

    def visit(scope, owner):
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            free = symbol.is_global() and symbol.is_referenced()
            if free and name not in bound and not hasattr(builtins, name):
                missing.setdefault(name, []).append(owner)
        for child in scope.get_children():
            visit(child, owner)

    for child in table.get_children():
        visit(child, child.get_name())
    return missing


EXPORTED = Path(__file__).resolve().parent / "exported"


def exported_path(notebook: str) -> Path:
    """Where `python -m utils.release` writes a notebook's exported cells: utils/exported/nbNN_topic.py."""
    return EXPORTED / f"nb{notebook}.py"  # EXPORTED read when called: the tests point it elsewhere


def exported_source(notebook: str, cells: list | None = None) -> str:
    """The module `python -m utils.release` writes for a notebook: a header, the prelude and the cells
    tagged `export`, in order (`cells`: the notebook's code cells, if it was read already)."""
    cells = [
        cell for cell in (code_cells(solution(notebook)) if cells is None else cells) if is_exported(cell)
    ]
    if not cells:
        raise ExportError(
            f"solutions/{notebook}.ipynb exports no cell: tag the cells that define its kernels "
            f"and launchers `export` (see CONTRIBUTING.md)"
        )
    header = (
        f"# Generated by `python -m utils.release` from the cells of solutions/{notebook}.ipynb tagged\n"
        "# `export`: edit the notebook, not this file (`python -m utils.release --check` fails while they\n"
        "# differ). utils.kernels.load loads it.\n"
    )
    source = header + PRELUDE + "".join(f"\n\n# --- cell {cell.id!r}\n{cell.source}\n" for cell in cells)
    missing = _unresolved(source, f"solutions/{notebook}.ipynb")
    if missing:
        where = "; ".join(
            f"{name} (read by {', '.join(sorted(set(users)))})" for name, users in missing.items()
        )
        raise ExportError(
            f"solutions/{notebook}.ipynb: its exported cells read names they do not define: "
            f"{where}. Export the cell that defines each, or pass it as an argument."
        )
    return source


@functools.cache  # the benchmark asks once per row, and the notebooks do not change during a run
def exporting_notebook(function: str) -> str:
    """The one notebook whose exported cells define `function` at the top level ("05_row_sum"), read
    from the modules `python -m utils.release` writes in utils/exported/, not from solutions/: the
    workshop hand-out (docs/workshop.md) ships the modules of notebooks 02, 03, 04 and 06 without
    solutions/, and notebook 04 finds the benchmark's rows through this on a GPU."""
    found = [
        path.stem.removeprefix("nb")
        for path in sorted(EXPORTED.glob("nb*.py"))
        if any(
            isinstance(node, ast.FunctionDef) and node.name == function
            for node in ast.parse(path.read_text()).body
        )
    ]
    if len(found) != 1:
        where = f"in {', '.join(found)}" if found else "in no notebook"
        raise ExportError(
            f"{function} must be defined by exactly one notebook's exported cells; it is {where}"
        )
    return found[0]


def load(notebook: str) -> types.ModuleType:
    """The notebook's exported cells as a fresh module, from utils/exported/ (see the module's docstring)."""
    path = exported_path(notebook)
    if not path.exists():
        solution(notebook)  # a ValueError naming solutions/<notebook>.ipynb if there is no such notebook
        raise ExportError(f"utils/exported/{path.name} is missing: run python -m utils.release")
    try:
        return _import_file(f"course_kernels_{notebook}", path)
    except NameError as error:  # a top-level statement of an exported cell
        raise ExportError(
            f"solutions/{notebook}.ipynb: an exported cell failed: {error}. Export the cell that defines it."
        ) from error


def kernel_module(notebook: str, folder: Path) -> types.ModuleType:
    """Every @triton.jit function of the notebook, exported or not, with the assignments they read (kernels
    read nothing else), written to `folder` and imported: what the compile test compiles."""
    found = [pair for cell in code_cells(solution(notebook)) for pair in _definitions(cell.source)]
    kept = [isinstance(node, ast.FunctionDef) and is_triton_jit(node) for node, _ in found]
    assigned = [_assigned_names(node) for node, _ in found]
    reads = [  # what each definition reads from outside itself
        set(_unresolved(source, notebook))  # a function: its own `x` is not a check cell's `x = ...`
        if isinstance(node, ast.FunctionDef)
        else {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}
        for node, source in found
    ]
    while True:  # an assignment is kept when a kept definition reads it (a block size reading another one)
        read = set().union(*(names for names, keep in zip(reads, kept) if keep))
        more = [keep or bool(names & read - PRELUDE_NAMES) for keep, names in zip(kept, assigned)]
        if more == kept:
            break
        kept = more
    path = folder / f"jit_{notebook}.py"
    path.write_text(
        PRELUDE + "\n\n" + "\n\n\n".join(source for (_, source), keep in zip(found, kept) if keep) + "\n"
    )
    return _import_file(f"course_jit_{notebook}", path)


# Notebooks whose kernels take float16 x (their checkers' batteries hold float16 cases): each of their
# kernels with an `x_ptr` is compiled again with x and out as float16 pointers. The interpreter accepts
# what the GPU's compiler refuses there, such as a loop-carried variable loaded as float32 before its loop
# and as float16 in it (notebook 09's looped LayerNorm met that only on the H200).
HALF_INPUTS = {"05_row_sum", "08_softmax", "09_norms", "10_backward"}


def _signatures(function: JitFunction, kernel) -> dict[str, dict[str, str]]:
    """The signatures to compile `kernel` with, by name: the course's (float32 pointers), and for a kernel
    of HALF_INPUTS with an `x_ptr`, the same with x_ptr and out_ptr float16."""
    from utils.compiled import course_signature

    signature = course_signature(kernel)
    signatures = {"float32": signature}
    if function.notebook in HALF_INPUTS and "x_ptr" in signature:
        half = {"x_ptr": "*fp16", "out_ptr": "*fp16"}
        signatures["float16 x"] = {name: half.get(name, kind) for name, kind in signature.items()}
    return signatures


def _example(value):
    """A constexpr's example value; "tl.<dtype>" names a Triton dtype. Named, not imported: this module is
    loaded by the release hook's environment (.pre-commit-config.yaml), which has no triton."""
    if isinstance(value, str) and value.startswith("tl."):
        import triton.language as tl

        return getattr(tl, value.removeprefix("tl."))
    return value


def _compile(function: JitFunction, kernel, arch: int) -> str | None:
    """The first failing (signature, constexpr choice)'s error compiling `kernel` for `arch`, else None."""
    from utils.compiled import compile_for

    # an entry for this kernel alone ("kernel_name.PARAMETER") before the parameter's own
    keys = {
        c: f"{function.name}.{c}" if f"{function.name}.{c}" in EXAMPLE_CONSTEXPRS else c
        for c in function.constexprs
    }
    missing = [c for c, key in keys.items() if key not in EXAMPLE_CONSTEXPRS]
    if missing:
        return f"no example values for constexpr {missing} in utils/kernel_examples.py"
    choices = [[(c, _example(v)) for v in EXAMPLE_CONSTEXPRS[key]] for c, key in keys.items()]
    for name, signature in _signatures(function, kernel).items():
        for constexprs in itertools.product(*choices):
            try:
                compile_for(kernel, signature, dict(constexprs), arch=arch, num_warps=4)
            except Exception as error:  # reported under the kernel's name, with the choice that failed
                text = str(error).strip()
                last = text.splitlines()[-1] if text else type(error).__name__
                return f"{name}, {dict(constexprs)}: {type(error).__name__}: {last}"
    return None


def _compile_all() -> None:
    """Compile every kernel for every architecture in ARCHES; one JSON line per (kernel, arch)."""
    functions = jit_functions()
    with tempfile.TemporaryDirectory(prefix="course-jit-") as folder:
        modules = {
            notebook: kernel_module(notebook, Path(folder)) for notebook in {f.notebook for f in functions}
        }
        for function in filter(lambda f: f.is_kernel, functions):
            kernel = getattr(modules[function.notebook], function.name)
            for arch in ARCHES:
                error = _compile(function, kernel, arch)
                print(
                    json.dumps(
                        {"notebook": function.notebook, "kernel": function.name, "arch": arch, "error": error}
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true", help="compile every kernel for sm_75 and sm_90")
    arguments = parser.parse_args()
    if arguments.compile:
        if interpreting():
            raise SystemExit("unset TRITON_INTERPRET: the interpreter cannot compile for a GPU")
        _compile_all()
    else:
        for function in jit_functions():
            print(f"{function.notebook}: {function.name}({', '.join(function.parameters)})")
