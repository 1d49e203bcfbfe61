"""The shape of utils/: no import cycle, no import tucked inside a function to dodge one, and every
module short enough to read (about 350 lines each)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UTILS = ROOT / "utils"
MAX_LINES = 350


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module, inside a function) for every import of a utils module that runs (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:  # the `if` body is for type checkers only
                visit(child, in_function)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "utils" or node.module.startswith("utils."):
                found.append((node.module, in_function))
                # `from utils.checker import probes`: a submodule, imported as a name
                found.extend((f"{node.module}.{a.name}", in_function) for a in node.names)
        elif isinstance(node, ast.Import):
            found.extend((a.name, in_function) for a in node.names if a.name.startswith("utils."))
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in UTILS.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target, _ in _imports(path):
            if target in modules and target != name:
                graph[name].add(target)
                # importing a.b.c runs a/__init__ and a/b/__init__ first, unless the importer is inside
                # that package (which has begun to run already)
                parts = target.split(".")
                parents = {".".join(parts[:i]) for i in range(2, len(parts))}
                graph[name].update(
                    p for p in parents if p in modules and p != name and not name.startswith(p + ".")
                )
    return graph


def test_the_imports_of_utils_have_no_cycle():
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                pytest.fail("an import cycle: " + " -> ".join(cycle))
            if target not in state:
                walk(target)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name)


def test_the_checker_imports_its_own_modules_at_the_top():
    """An import inside a function hides a cycle rather than removing it."""
    tucked = [
        f"{path.relative_to(ROOT)}: {target}"
        for path in (UTILS / "checker").rglob("*.py")
        for target, in_function in _imports(path)
        if in_function and target.startswith("utils.checker")
    ]
    assert not tucked, "imports inside functions:\n" + "\n".join(tucked)


WRITTEN = sorted(p for p in UTILS.rglob("*.py") if "exported" not in p.parts)  # not the generated modules


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: str(p.relative_to(UTILS)))
def test_a_utils_module_is_short_enough_to_read(path: Path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by job"


def test_the_layout_test_sees_a_cycle(tmp_path, monkeypatch):
    """The cycle test can fail: two modules that import each other are a cycle."""
    package = tmp_path / "utils"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from utils.b import f\n")
    (package / "b.py").write_text("def f():\n    from utils.a import g\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    monkeypatch.setattr(__import__(__name__), "UTILS", package)
    with pytest.raises(pytest.fail.Exception, match="cycle"):
        test_the_imports_of_utils_have_no_cycle()
