"""The committed reference run (reference/<gpu>/) is whole, current and says what it ran on.

Learners without a GPU read these notebooks for the figures their CPU cannot measure, so a reference
notebook whose code no longer matches its solution would show them numbers from code they are not
running. `python -m utils.reference` on a GPU regenerates them (see utils/reference.py). Each solution's
title links to its copy ("No GPU?"), and the link names the card: the copy a learner reaches is the one
tested here, and it must be the only copy of that notebook in reference/.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from utils import reference
from utils.notebooks import solution_paths

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
SOLUTIONS = solution_paths()
RUN_KEYS = {"gpu", "capability", "driver", "torch", "triton", "python", "date"}


def _code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _linked_copy(solution: Path) -> tuple[str, Path]:
    """The card a solution's "No GPU?" link names, and the copy it leads to."""
    title = nbformat.read(solution, as_version=4).cells[0].source
    found = reference.NO_GPU_LINK_TO_COPY.findall(title)
    assert len(found) == 1, (
        f'{solution.name}: its title has no one "No GPU?" link naming a card: {title[-200:]!r}'
    )
    card, target = found[0]
    return card, (solution.parent / target).resolve()


def _reference(solution: Path):
    _, path = _linked_copy(solution)
    assert path.is_file(), (
        f"{path.relative_to(ROOT)}, which solutions/{solution.name} links to, is missing: run "
        "`./course.sh reference` on a GPU and commit what it writes"
    )
    return nbformat.read(path, as_version=4)


def _where(solution: Path) -> str:
    return _linked_copy(solution)[1].relative_to(ROOT).as_posix()


def code_differences(solution_nb, reference_nb) -> list[str]:
    """What keeps a reference run from being a run of this solution, cell by cell id: code cells whose
    source changed, code cells added to the solution or removed from it, cells that moved, and reference
    cells whose source is not the source their run recorded (edited by hand afterwards)."""
    sol = {cell.id: cell for cell in _code_cells(solution_nb)}
    ref = {cell.id: cell for cell in _code_cells(reference_nb)}
    problems = [f"changed: {i}" for i in sol if i in ref and sol[i].source != ref[i].source]
    problems += [f"added to the solution: {i}" for i in sol if i not in ref]
    problems += [f"removed from the solution: {i}" for i in ref if i not in sol]
    shared = [i for i in sol if i in ref]
    if shared != [i for i in ref if i in sol]:
        problems.append("the code cells are in another order")
    problems += [
        f"not the source that ran: {i}"
        for i, cell in ref.items()
        if cell.metadata.get(reference.SOURCE_DIGEST) != reference.source_digest(cell.source)
    ]
    return problems


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.name)
def test_reference_code_is_the_solutions_code(solution):
    problems = code_differences(nbformat.read(solution, as_version=4), _reference(solution))
    assert not problems, (
        f"{_where(solution)} is not a run of solutions/{solution.name} ({'; '.join(problems)}): "
        "regenerate the reference run (./course.sh reference on a GPU)"
    )


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.name)
def test_reference_markdown_is_the_solutions(solution):
    """A learner reads the reference copy's prose beside its outputs: it is the solution's, title aside."""
    nb = _reference(solution)
    changed = reference.copy_markdown(nbformat.read(solution, as_version=4), nb)
    assert not changed, (
        f"{_where(solution)}: the markdown of cells {changed} is not the solution's: "
        "`python -m utils.reference --markdown` copies it (no GPU needed)"
    )


def test_copy_markdown_copies_prose_by_id_and_refuses_moved_cells():
    solution = v4.new_notebook(
        cells=[
            v4.new_markdown_cell("# Title\n\n" + reference.NO_GPU_LINK + "a link](x)", id="title"),
            v4.new_code_cell("1", id="code"),
            v4.new_markdown_cell("new prose", id="prose"),
        ]
    )
    ran = nbformat.from_dict(solution)
    ran.metadata["reference_run"] = {"gpu": "NVIDIA H100 80GB HBM3"}
    reference.as_reference_copy(ran, "NVIDIA H100 80GB HBM3")
    ran.cells[2].source = "old prose"
    ran.cells[1].outputs = [v4.new_output("stream", text="1")]
    assert reference.copy_markdown(solution, ran) == ["prose"]
    assert (
        ran.cells[2].source == "new prose"
        and reference.reference_note("NVIDIA H100 80GB HBM3") in ran.cells[0].source
    )
    assert ran.cells[1].outputs and solution.cells[0].source.endswith("a link](x)")  # nothing else touched
    assert reference.copy_markdown(solution, ran) == []
    solution.cells.insert(1, v4.new_markdown_cell("added", id="added"))
    with pytest.raises(ValueError, match="regenerate"):  # where it goes among the outputs: the run's to say
        reference.copy_markdown(solution, ran)
    del solution.cells[1:3]  # the added cell and the code; the prose is left, in its place
    assert reference.copy_markdown(solution, ran) == []
    del solution.cells[1]
    with pytest.raises(ValueError, match="regenerate"):
        reference.copy_markdown(solution, ran)


def test_the_comparison_names_each_kind_of_difference():
    def notebook(*cells):
        nb = v4.new_notebook(cells=[v4.new_code_cell(source, id=cell_id) for cell_id, source in cells])
        reference.record_sources(nb)
        return nb

    ran = notebook(("a", "1"), ("b", "2"), ("c", "3"))
    assert code_differences(notebook(("a", "1"), ("b", "2"), ("c", "3")), ran) == []
    assert code_differences(notebook(("a", "1"), ("new", "0"), ("b", "2"), ("c", "3")), ran) == [
        "added to the solution: new"
    ]  # an inserted cell names itself, not every cell after it
    assert code_differences(notebook(("a", "1"), ("b", "2!"), ("c", "3")), ran) == ["changed: b"]
    assert code_differences(notebook(("a", "1"), ("c", "3")), ran) == ["removed from the solution: b"]
    assert code_differences(notebook(("a", "1"), ("c", "3"), ("b", "2")), ran) == [
        "the code cells are in another order"
    ]
    ran.cells[1].source = "2!"  # edited after the run, to match an edited solution
    assert code_differences(notebook(("a", "1"), ("b", "2!"), ("c", "3")), ran) == [
        "not the source that ran: b"
    ]


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.name)
def test_reference_ran_every_cell_without_an_error(solution):
    cells = _code_cells(_reference(solution))
    counts = [cell.get("execution_count") for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), f"{solution.name}: not every cell ran once, in order"
    errors = [
        (i, out.get("ename"))
        for i, cell in enumerate(cells)
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors, f"{solution.name}: cells raised {errors}"
    images = sum("image/png" in out.get("data", {}) for cell in cells for out in cell.outputs)
    assert images, f"{solution.name}: no figure in the outputs (was MPLBACKEND=Agg set for the run?)"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.name)
def test_reference_names_gpu_driver_versions_and_date(solution):
    nb = _reference(solution)
    run = nb.metadata.get("reference_run", {})
    assert RUN_KEYS <= set(run), f"{solution.name}: reference_run metadata lacks {RUN_KEYS - set(run)}"
    card, path = _linked_copy(solution)
    assert reference.gpu_folder_name(run["gpu"]) == path.parent.name, (
        f"{_where(solution)} ran on {run['gpu']}, which is not its folder's card"
    )
    assert card in run["gpu"] and reference.gpu_folder_name(card) == path.parent.name, (
        f"solutions/{solution.name}'s link names the {card} and leads to {_where(solution)}; "
        f"its copy ran on {run['gpu']}"
    )
    banner = "".join(out.get("text", "") for out in _code_cells(nb)[0].outputs)
    for key in ("gpu", "driver", "torch", "triton", "date"):
        assert run[key] in banner, f"{solution.name}: the first output does not name the {key} ({run[key]})"


def test_every_reference_notebook_is_the_copy_its_solution_links_to():
    """No copy lies beside the linked one: an older run on another card would show figures from code the
    learner is not running, and no test would look at it."""
    linked = {_linked_copy(solution)[1] for solution in SOLUTIONS}
    extra = sorted(p.relative_to(ROOT).as_posix() for p in REFERENCE.glob("*/*.ipynb") if p not in linked)
    assert not extra, f"reference/ holds notebooks that no solution links to: {extra}"


@pytest.mark.parametrize(
    "name, folder",
    [
        ("NVIDIA H200", "h200"),
        ("NVIDIA H100 80GB HBM3", "h100"),
        ("Tesla T4", "t4"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("", "gpu"),
    ],
)
def test_gpu_folder_names(name, folder):
    assert reference.gpu_folder_name(name) == folder


def test_without_a_gpu_the_command_says_so(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert reference.main([]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().out


def test_a_run_keeps_outputs_and_keeps_a_failure_apart(tmp_path):
    # A tiny notebook through the real executor (a kernel of this Python), once passing, once raising.
    notebook = tmp_path / "src" / "99_probe.ipynb"
    notebook.parent.mkdir()
    nb = v4.new_notebook(cells=[v4.new_code_cell("print('hello from', 6 * 7)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, notebook)
    info = {"gpu": "test", "date": "2026-12-01"}
    written, _, error = reference.run_notebook(notebook, tmp_path / "out", info)
    assert error is None and written.name == "99_probe.ipynb"
    done = nbformat.read(written, as_version=4)
    assert done.cells[0].outputs[0]["text"] == "hello from 42\n"
    assert done.metadata["reference_run"]["gpu"] == "test"

    nb.cells.append(v4.new_code_cell("raise ValueError('planted')"))
    nbformat.write(nb, notebook)
    written, _, error = reference.run_notebook(notebook, tmp_path / "out", info)
    assert "planted" in error and written.name == "99_probe.FAILED.ipynb"
    assert (tmp_path / "out" / "99_probe.ipynb").is_file(), "a failed run must not replace the good one"


def test_a_run_past_its_deadline_hands_back_the_outputs_so_far(tmp_path):
    """A machine lent for a fixed time: the cell running at the deadline is interrupted, and the notebook is
    written as failed with the cells before it."""
    import time

    notebook = tmp_path / "src" / "99_slow.ipynb"
    notebook.parent.mkdir()
    cells = [v4.new_code_cell("print('before')"), v4.new_code_cell("import time; time.sleep(60)")]
    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, notebook)
    start = time.perf_counter()
    written, seconds, error = reference.run_notebook(
        notebook, tmp_path / "out", {"gpu": "test"}, deadline=start + 8
    )
    assert error is not None and written.name == "99_slow.FAILED.ipynb", error
    assert seconds < 40, f"the sleeping cell was not interrupted at the deadline ({seconds:.0f} s)"
    done = nbformat.read(written, as_version=4)
    assert done.cells[0].outputs[0]["text"] == "before\n"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.name)
def test_the_reference_copy_does_not_link_to_itself(solution):
    """The learner's "No GPU?" link is relative to notebooks/; in reference/<gpu>/ it would lead nowhere,
    so the reference run replaces it with a line saying that this is the copy, and on what it ran
    (utils.reference)."""
    nb = _reference(solution)
    title = nb.cells[0].source
    note = reference.reference_note(nb.metadata["reference_run"]["gpu"])
    assert reference.NO_GPU_LINK not in title and note in title, f"{solution.name}: {title[-200:]!r}"
