"""Tests for utils.release: learner stubs, marker errors, determinism, --check, and the repo's notebooks."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from utils import release
from utils.release import REPO_ROOT, ReleaseError, expected_outputs, release_notebook, stale_notebooks

IMPORTS = """%matplotlib inline
!echo shell lines are masked too
import torch
import triton
import triton.language as tl"""

KERNEL = """@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    ### BEGIN SOLUTION
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2, mask=mask)
    ### END SOLUTION"""

KERNEL_STUB = """@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    # YOUR CODE HERE
    pass"""

HOST = '''def double(x):
    """Return 2 * x computed by copy_kernel."""
    out = torch.zeros_like(x)
    ### BEGIN SOLUTION
    copy_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    ### END SOLUTION
    return out
'''

HOST_STUB = '''def double(x):
    """Return 2 * x computed by copy_kernel."""
    out = torch.zeros_like(x)
    # YOUR CODE HERE
    raise NotImplementedError("exercise: double")
    return out
'''

PLAIN = "x = torch.arange(100, dtype=torch.float32)\nprint(x.sum())"
MARKDOWN = "## Doubling\nWrite `copy_kernel`; `### BEGIN SOLUTION` in markdown is left alone."


def solution_notebook() -> nbformat.NotebookNode:
    """A small solution notebook: imports, a kernel region, a host region, a plain cell, markdown."""
    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        v4.new_markdown_cell(MARKDOWN),
        v4.new_code_cell(IMPORTS),
        v4.new_code_cell(KERNEL),
        v4.new_code_cell(HOST, execution_count=4, metadata={"tags": ["exercise"]}),
        v4.new_code_cell(
            PLAIN, execution_count=5, outputs=[v4.new_output("stream", name="stdout", text="tensor(4950.)\n")]
        ),
    ]
    return nb


def make_repo(root: Path, name: str = "01_double.ipynb", nb: nbformat.NotebookNode | None = None) -> Path:
    (root / "solutions").mkdir(parents=True, exist_ok=True)
    path = root / "solutions" / name
    nbformat.write(nb if nb is not None else solution_notebook(), str(path))
    return path


def code_cells(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def test_kernel_region_becomes_pass_and_host_region_raises():
    solution = solution_notebook()
    learner = release_notebook(solution)
    assert learner.cells[2].source == KERNEL_STUB
    assert learner.cells[3].source == HOST_STUB
    # Cells without a region, including magics, and markdown are copied verbatim.
    assert learner.cells[0].source == MARKDOWN
    assert learner.cells[1].source == IMPORTS
    assert learner.cells[4].source == PLAIN
    assert "BEGIN SOLUTION" not in "".join(code_cells(learner))
    ast.parse(learner.cells[2].source)  # the stubbed kernel is still valid Python
    # The solution notebook itself is left untouched.
    assert solution.cells[2].source == KERNEL
    assert solution.cells[4].outputs


def test_learner_notebook_has_no_outputs_and_keeps_ids_and_metadata():
    solution = solution_notebook()
    learner = release_notebook(solution)
    assert [cell.id for cell in learner.cells] == [cell.id for cell in solution.cells]
    for cell in learner.cells:
        if cell.cell_type == "code":
            assert cell.outputs == []
            assert cell.execution_count is None
    assert learner.cells[3].metadata == {"tags": ["exercise"]}
    assert learner.metadata == solution.metadata


def test_magics_and_nested_functions_are_handled():
    cell = (
        "%%time\n!nvidia-smi\ndef outer(x):\n    %timeit x\n    ### BEGIN SOLUTION\n"
        "    def helper(y):\n        return y + 1\n    return helper(x)\n    ### END SOLUTION\n"
    )
    learner = release_notebook(v4.new_notebook(cells=[v4.new_code_cell(cell)]))
    assert learner.cells[0].source == (
        "%%time\n!nvidia-smi\ndef outer(x):\n    %timeit x\n    # YOUR CODE HERE\n"
        '    raise NotImplementedError("exercise: outer")\n'
    )


@pytest.mark.parametrize(
    "decorator",
    ["@triton.jit", "@jit", "@triton.jit(do_not_specialize=['n'])", "@triton.autotune([])\n@triton.jit"],
)
def test_every_jit_spelling_gets_the_pass_stub(decorator):
    cell = f"{decorator}\ndef k(n):\n    ### BEGIN SOLUTION\n    x = n\n    ### END SOLUTION\n"
    learner = release_notebook(v4.new_notebook(cells=[v4.new_code_cell(cell)]))
    assert learner.cells[0].source.endswith("    # YOUR CODE HERE\n    pass\n")


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        ("x = 1\n### BEGIN SOLUTION\ny = 2\n### END SOLUTION\n", 2, "not inside a function"),
        ("class C:\n    ### BEGIN SOLUTION\n    y = 2\n    ### END SOLUTION\n", 2, "not inside a function"),
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", 2, "without '### END SOLUTION'"),
        ("def f():\n    return 1\n    ### END SOLUTION\n", 3, "without '### BEGIN SOLUTION'"),
        (
            "def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n",
            3,
            "nested",
        ),
        (
            "def f():\n    ## BEGIN SOLUTION\n    return 1\n    ## END SOLUTION\n",
            2,
            "looks like a solution marker",
        ),
        (
            "def f():\n    ### BEGIN SOLUTION\n    return 1\nz = 2\n    ### END SOLUTION\n",
            4,
            "outside the body",
        ),
        (
            "def f():\n    y = (1 +\n    ### BEGIN SOLUTION\n    2)\n    ### END SOLUTION\n",
            2,
            "does not parse",
        ),
    ],
    ids=[
        "module-level",
        "class-body",
        "begin-without-end",
        "end-without-begin",
        "nested",
        "misspelt",
        "dedented-line",
        "mid-statement",
    ],
)
def test_bad_regions_are_errors_naming_notebook_cell_and_line(source, line, message):
    nb = v4.new_notebook(cells=[v4.new_markdown_cell("intro"), v4.new_code_cell(source)])
    with pytest.raises(ReleaseError, match=message) as error:
        release_notebook(nb, name="solutions/07_bad.ipynb")
    assert str(error.value).startswith(f"solutions/07_bad.ipynb: cell 1, line {line}:")


def test_cli_writes_nothing_when_a_solution_is_invalid(tmp_path, capsys):
    make_repo(tmp_path, "01_good.ipynb")
    bad = v4.new_notebook(cells=[v4.new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")])
    make_repo(tmp_path, "02_bad.ipynb", bad)
    assert release.main(["--root", str(tmp_path)]) == 2
    assert "solutions/02_bad.ipynb: cell 0, line 1" in capsys.readouterr().err
    assert not list(tmp_path.glob("notebooks/*"))


def test_release_writes_notebooks_byte_identically_twice(tmp_path):
    solution_path = make_repo(tmp_path)
    solution_bytes = solution_path.read_bytes()
    assert release.main(["--root", str(tmp_path)]) == 0
    learner_path = tmp_path / "notebooks" / "01_double.ipynb"
    first = learner_path.read_bytes()
    learner_path.unlink()
    assert release.main(["--root", str(tmp_path)]) == 0
    assert learner_path.read_bytes() == first
    assert first.decode("utf-8") == expected_outputs(tmp_path)[learner_path]
    assert solution_path.read_bytes() == solution_bytes
    written = nbformat.read(str(learner_path), as_version=4)
    assert code_cells(written) == code_cells(release_notebook(solution_notebook()))


def test_check_reports_missing_stale_and_orphan_notebooks(tmp_path, capsys):
    solution_path = make_repo(tmp_path)
    root = ["--root", str(tmp_path)]
    assert release.main([*root, "--check"]) == 1
    assert "notebooks/01_double.ipynb: missing" in capsys.readouterr().out
    assert not (tmp_path / "notebooks").exists()  # --check writes nothing

    assert release.main(root) == 0
    assert release.main([*root, "--check"]) == 0
    assert release.main([*root, "--check", str(solution_path)]) == 0

    changed = solution_notebook()
    changed.cells[4].source += "\nprint('new line')"
    nbformat.write(changed, str(solution_path))
    capsys.readouterr()
    assert release.main([*root, "--check"]) == 1
    assert "notebooks/01_double.ipynb: differs" in capsys.readouterr().out
    assert release.main(root) == 0
    assert release.main([*root, "--check"]) == 0

    nbformat.write(v4.new_notebook(), str(tmp_path / "notebooks" / "09_orphan.ipynb"))
    assert stale_notebooks(tmp_path) == [
        "notebooks/09_orphan.ipynb: no solution source solutions/09_orphan.ipynb"
    ]
    assert release.main([*root, "--check"]) == 1


def test_paths_outside_solutions_are_refused(tmp_path, capsys):
    make_repo(tmp_path)
    assert release.main(["--root", str(tmp_path)]) == 0
    assert release.main(["--root", str(tmp_path), str(tmp_path / "notebooks" / "01_double.ipynb")]) == 2
    assert "not a solution notebook" in capsys.readouterr().err


def import_cells(nb: nbformat.NotebookNode, path: Path):
    """Import a notebook's code cells as a module from a real file (triton.jit needs the source)."""
    lines = [
        line for source in code_cells(nb) for line in source.split("\n") if not line.startswith(("%", "!"))
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[path.stem]
    return module


def test_stubbed_kernel_compiles_and_runs_in_the_interpreter(tmp_path, monkeypatch, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # read by @triton.jit when the module below is imported
    x = torch.arange(100, dtype=torch.float32)

    solved = import_cells(solution_notebook(), tmp_path / "solved_double.py")
    assert torch.equal(solved.double(x), 2 * x)  # the test's own kernel is right

    learner = import_cells(release_notebook(solution_notebook()), tmp_path / "learner_double.py")
    out = torch.full_like(x, -1.0)
    learner.copy_kernel[(2,)](x, out, x.numel(), BLOCK=64)  # the stub compiles and does nothing
    assert torch.equal(out, torch.full_like(x, -1.0))
    with pytest.raises(NotImplementedError, match="exercise: double"):
        learner.double(x)


def committed_notebooks() -> list[Path]:
    return sorted([*(REPO_ROOT / "notebooks").glob("*.ipynb"), *(REPO_ROOT / "solutions").glob("*.ipynb")])


def test_repo_notebooks_are_what_the_release_tool_produces():
    if not release.solution_paths(REPO_ROOT):
        pytest.skip("solutions/ has no NN_*.ipynb notebooks yet, so there is nothing to release")
    assert stale_notebooks(REPO_ROOT) == [], "run: python -m utils.release"


@pytest.mark.parametrize("path", committed_notebooks(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_repo_notebooks_are_saved_without_outputs(path):
    nb = nbformat.read(str(path), as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {index} has outputs; clear them before committing"
            assert cell.execution_count is None, f"cell {index} has an execution count; clear it"


def test_the_course_address_is_written_everywhere_from_one_setting(monkeypatch):
    """utils.home: change COURSE_REPO and COURSE_BRANCH, and the set-up cell of every solution notebook,
    every Colab badge in the README and the workshop guide's clone command all follow."""
    import utils.setup
    from utils import home

    monkeypatch.setattr(utils.setup, "COURSE_REPO", "https://github.com/someone/fork")
    monkeypatch.setattr(utils.setup, "COURSE_BRANCH", "autumn")
    texts = home.rewritten(REPO_ROOT)
    readme, guide = texts.pop(REPO_ROOT / "README.md"), texts.pop(REPO_ROOT / "docs" / "workshop.md")
    badges = re.findall(r"https://colab\.research\.google\.com/github/\S+?\.ipynb", readme)
    assert len(badges) == len(texts) >= 9
    assert all(
        b.startswith("https://colab.research.google.com/github/someone/fork/blob/autumn/") for b in badges
    )
    assert "git clone --branch autumn https://github.com/someone/fork" in guide
    for path, text in texts.items():
        cell = next(c for c in nbformat.reads(text, as_version=4).cells if c.cell_type == "code").source
        assert 'REPO = "https://github.com/someone/fork"' in cell and '"--branch=autumn"' in cell, path
    assert home.stale(REPO_ROOT), "with the setting changed, the files on disk are out of date"


def test_the_export_cells_become_a_module_that_check_keeps_current(tmp_path, capsys):
    solution_path = make_repo(tmp_path)
    nb = solution_notebook()
    nb.cells[4].metadata["tags"] = ["export"]
    nbformat.write(nb, str(solution_path))
    root = ["--root", str(tmp_path)]
    assert release.main(root) == 0
    module = tmp_path / "utils" / "exported" / "nb01_double.py"
    assert (
        nb.cells[4].source in module.read_text()
        and "Generated by `python -m utils.release`" in module.read_text()
    )
    assert release.main([*root, "--check"]) == 0
    nb.cells[4].source += "\nEXTRA = 1"
    nbformat.write(nb, str(solution_path))
    capsys.readouterr()
    assert release.main([*root, "--check"]) == 1
    assert "utils/exported/nb01_double.py: differs from what solutions/01_double.ipynb produces" in (
        capsys.readouterr().out
    )
