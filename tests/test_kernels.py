"""utils.kernels.load: a notebook's exported cells as a module; nothing guessed, nothing left behind."""

import re
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from utils import kernels, notebooks
from utils.kernels import ExportError, exported_source, load
from utils.notebooks import solution_paths


def test_a_notebook_loads_with_its_exported_kernels_and_launchers():
    module = load("01_vector_add")
    assert callable(module.copy) and hasattr(module.copy_kernel, "run")
    assert module.BLOCK_SIZE == 1024


def test_only_exported_cells_are_loaded():
    source = exported_source("01_vector_add")
    assert "def copy(" in source
    assert "copied {x.numel()" not in source, "the demo run after the wrapper is not exported"


def test_loading_writes_no_files(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    load("05_row_sum")
    assert not list(tmp_path.iterdir())


def _notebook(tmp_path: Path, monkeypatch, *sources: str) -> str:
    """A solution notebook of `sources`, each a cell tagged export, in tmp_path/solutions, released (its
    exported module written) as `python -m utils.release` does, into tmp_path/exported."""
    (tmp_path / "solutions").mkdir()
    cells = [v4.new_code_cell("# set-up")]
    for i, source in enumerate(sources):
        cell = v4.new_code_cell(source, metadata={"tags": ["export"]})
        cell.id = f"cell-{i}"
        cells.append(cell)
    nbformat.write(v4.new_notebook(cells=cells), tmp_path / "solutions" / "99_probe.ipynb")
    monkeypatch.setattr(kernels, "solution", lambda name: tmp_path / "solutions" / f"{name}.ipynb")
    monkeypatch.setattr(kernels, "EXPORTED", tmp_path / "exported")
    if sources:
        kernels.EXPORTED.mkdir()
        kernels.exported_path("99_probe").write_text(exported_source("99_probe"))
    return "99_probe"


def test_a_name_no_exported_cell_defines_is_named_when_the_module_is_written(tmp_path, monkeypatch):
    name = _notebook(tmp_path, monkeypatch)
    cell = v4.new_code_cell(
        "def best(x, out):\n    return fast(x, out) if split_works else None\n\n"
        "def fast(x, out):\n    return x\n",
        metadata={"tags": ["export"]},
    )
    nbformat.write(v4.new_notebook(cells=[cell]), tmp_path / "solutions" / f"{name}.ipynb")
    with pytest.raises(ExportError, match=r"split_works \(read by best\)"):
        exported_source(name)  # what python -m utils.release runs


def test_an_exported_cell_that_runs_code_reading_another_cell_is_named(tmp_path, monkeypatch):
    name = _notebook(tmp_path, monkeypatch, "total = sum(values)\n")
    with pytest.raises(ExportError, match="values"):
        load(name)


def test_a_notebook_without_exports_says_how_to_add_them(tmp_path, monkeypatch):
    name = _notebook(tmp_path, monkeypatch)
    with pytest.raises(ExportError, match="tag the cells"):
        exported_source(name)  # what the release tool runs
    with pytest.raises(ExportError, match="run python -m utils.release"):
        load(name)


def test_the_exported_modules_are_the_notebooks_export_cells():
    for path in solution_paths():
        if kernels.exported_path(path.stem).exists():
            assert kernels.exported_path(path.stem).read_text() == exported_source(path.stem)


def test_an_unknown_notebook_is_named():
    with pytest.raises(ValueError, match="solutions/99_nothing.ipynb"):
        load("99_nothing")


def test_a_function_is_found_in_the_notebook_that_exports_it():
    from utils.kernels import exporting_notebook

    assert exporting_notebook("row_sum_best") == "05_row_sum"
    with pytest.raises(ExportError, match="in no notebook"):
        exporting_notebook("no_such_function")


def test_a_function_is_found_without_solutions(monkeypatch):
    """The workshop hand-out ships utils/exported/ without solutions/: the lookup must not read them."""
    import utils.kernels

    def no_solutions(*args, **kwargs):
        raise FileNotFoundError("solutions/ is not shipped")

    monkeypatch.setattr(utils.kernels, "solution_paths", no_solutions)
    monkeypatch.setattr(utils.kernels, "code_cells", no_solutions)
    utils.kernels.exporting_notebook.cache_clear()  # an answer cached by an earlier test would prove nothing
    assert utils.kernels.exporting_notebook("l2_norm") == "04_l2_norm"


# `triton.autotune(configs, key=[...], ...)(kernel)`, as the solution notebooks write it
AUTOTUNED = re.compile(r"triton\.autotune\((?P<args>.*?)\)\((?P<kernel>\w+)\)", re.S)
KEY = re.compile(r"key=\[(?P<names>[^\]]*)\]")


@pytest.mark.parametrize("path", solution_paths(), ids=lambda p: p.stem)
def test_every_autotune_key_names_arguments_of_its_kernel(path):
    """A notebook builds its autotuners only on a GPU, so CI never constructs them; but triton 3.9 rejects
    a key that is not an argument of the kernel (3.6 ignored it), which would break the notebook there.
    So the keys are read from the exported source and checked against each kernel's arguments."""
    source = exported_source(path.stem)
    tuned = list(AUTOTUNED.finditer(source))
    if not tuned:
        pytest.skip("no autotuner in this notebook")
    module = load(path.stem)
    for match in tuned:
        key = KEY.search(match["args"])
        assert key, f"{path.stem}: an autotuner of {match['kernel']} without a literal key=[...]"
        names = [name.strip().strip("\"'") for name in key["names"].split(",") if name.strip()]
        arguments = getattr(module, match["kernel"]).arg_names
        unknown = [name for name in names if name not in arguments]
        assert not unknown, f"{path.stem}: {match['kernel']}'s key names {unknown}, not among {arguments}"


def test_kernels_that_take_float16_inputs_are_compiled_with_them_too(tmp_path):
    """09's looped LayerNorm once compiled with float32 pointers and in the interpreter, and failed on the
    GPU with float16 x (a loop-carried variable changed dtype): notebooks whose batteries hold float16
    cases are compiled with float16 x as well."""
    functions = {(f.notebook, f.name): f for f in kernels.jit_functions() if f.is_kernel}
    norms = kernels.kernel_module("09_norms", tmp_path)
    looped = kernels._signatures(
        functions["09_norms", "layer_norm_looped_kernel"], norms.layer_norm_looped_kernel
    )
    assert looped["float16 x"]["x_ptr"] == "*fp16" and looped["float32"]["x_ptr"] == "*fp32"
    numerics = kernels.kernel_module("06_numerics", tmp_path)  # float32 input only: one signature
    scaled = kernels._signatures(
        functions["06_numerics", "scaled_partials_kernel"], numerics.scaled_partials_kernel
    )
    assert list(scaled) == ["float32"]


def test_helpers_are_told_from_kernels_by_one_rule():
    """A jit function that returns a value, or that another names (called, or passed to tl.reduce), is a
    helper: the compile test does not compile it alone, and with_launchers leaves it as it is. The same
    source under two names (an autotuner and its kernel, in a loaded module) makes neither a helper."""
    kernel = "@triton.jit\ndef {name}(x_ptr, out_ptr):\n    tl.store(out_ptr, {body})\n"
    sources = {
        "combine": "@triton.jit\ndef combine(a, b):\n    return a + b\n",
        "store_twice": "@triton.jit\ndef store_twice(out_ptr, v):\n    tl.store(out_ptr, v)\n",
        "reduced_kernel": kernel.format(name="reduced_kernel", body="tl.reduce(tl.load(x_ptr), 0, combine)"),
        "caller_kernel": "@triton.jit\ndef caller_kernel(x_ptr, out_ptr):\n    store_twice(out_ptr, 1)\n",
        "plain_kernel": kernel.format(name="plain_kernel", body="tl.load(x_ptr)"),
        "tuned": kernel.format(name="plain_kernel", body="tl.load(x_ptr)"),
    }
    assert notebooks.jit_helpers(sources) == {"combine", "store_twice"}
    assert notebooks.jit_helpers({"alone": sources["store_twice"]}) == set()
    indented = "    @triton.jit\n    def nested(a):\n        return a\n"  # inspect.getsource of a nested one
    assert notebooks.jit_helpers({"nested": indented}) == {"nested"}


def test_a_kernels_own_names_do_not_pull_in_top_level_assignments(tmp_path, monkeypatch):
    """kernel_module keeps the top-level assignments a kernel reads from outside itself. Its parameters and
    locals are its own: a check cell's `x = ...` stays out (it imported a cell's names that the module
    lacks, and the compile test failed), while a constant the kernel reads stays in."""
    cells = [
        "SCALE = 2.0\nx = made_elsewhere()",
        "@triton.jit\ndef scaled_kernel(x_ptr, n):\n"
        "    x = tl.load(x_ptr)\n    tl.store(x_ptr, x * SCALE + n)",
    ]
    monkeypatch.setattr(kernels, "code_cells", lambda path: [v4.new_code_cell(c) for c in cells])
    monkeypatch.setattr(kernels, "solution", lambda notebook: notebook)
    module = kernels.kernel_module("99_probe", tmp_path)
    assert module.SCALE == 2.0 and not hasattr(module, "x")
