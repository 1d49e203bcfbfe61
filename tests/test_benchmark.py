"""benchmarks/run.py: the course's benchmark command. Its timings need a GPU; what it runs, how it judges
the numbers and what it does without a GPU are tested here, with the kernels in the interpreter."""

import os
import subprocess
import sys

import matplotlib
import pytest
import torch

from benchmarks import run as bench
from utils.notebooks import ROOT, solution_paths

SOLUTIONS = ROOT / "solutions"

matplotlib.use("Agg")
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture(scope="module")
def functions():
    return bench.course_functions()


def test_without_a_gpu_it_says_so_in_one_line_and_exits_cleanly():
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run(
        [sys.executable, "benchmarks/run.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1 and "No CUDA GPU" in done.stdout
    assert "Traceback" not in done.stderr


def test_every_solution_notebook_has_a_row():
    notebooks = {path.stem for path in solution_paths()}
    assert {row.notebook for row in bench.ROWS} == notebooks


@pytest.mark.parametrize("row", bench.ROWS, ids=lambda row: row.name)
def test_each_course_function_agrees_with_its_torch_counterpart(functions, row):
    n = 3 * 4096 + 5  # several tiles and a ragged tail, small enough for the interpreter
    assert bench.agrees(row, functions[row.name], n, DEVICE) is None


def test_a_wrong_course_function_is_caught_before_it_is_timed():
    row = next(r for r in bench.ROWS if r.function == "sum_two_stage")
    why = bench.agrees(row, lambda x, out: out.fill_(0.0), 1000, DEVICE)
    assert why is not None and "not close" in why


def test_bytes_moved_counts_every_input_and_the_output():
    x, y, out = torch.empty(1000), torch.empty(1000), torch.empty(1000)
    assert bench.bytes_moved((x, y), out) == 12_000  # vector add: two reads and one write
    assert bench.bytes_moved((torch.empty(10, 100),), torch.empty(10)) == 4_040  # row sum: one float per row


def test_the_table_marks_each_shortfall():
    row = next(r for r in bench.ROWS if r.name == "sum, one launch")
    small, large = 2**12, bench.BANDWIDTH_BOUND_ELEMENTS
    copy = {small: 10.0, large: 100.0}
    cases = {  # (course GB/s, torch GB/s) -> what the goal column must say
        (9.0, 10.0): {small: "below torch", large: "below torch, below 95% of copy"},
        (94.0, 90.0): {small: "ok", large: "below 95% of copy"},  # launch-bound sizes have no copy goal
        (96.0, 96.0): {small: "ok", large: "ok"},
        (95.5, 96.0): {small: "ok", large: "ok"},  # within 1% of torch is level with it
    }
    for (course, reference), want in cases.items():
        results = {(row.name, n): (course, reference) for n in (small, large)}
        lines = bench.table([row], [small, large], results, copy)
        assert {n: line[-1] for n, line in zip((small, large), lines)} == want


def test_a_step_names_its_final_form_and_the_goal_verdict_leaves_it_out():
    step = next(r for r in bench.ROWS if r.name == "sum, two-stage")
    final = next(r for r in bench.ROWS if r.name == step.step_of)
    assert final.step_of is None, "a step's final form is a row held to the goal"
    assert bench.graphed(step).step_of == bench.graphed(final).name  # graphed against graphed
    small, large = 2**12, 2**16
    results = {(step.name, n): (1.0, 2.0) for n in (small, large)}  # the step: below torch everywhere
    results |= {(final.name, small): (1.0, 2.0), (final.name, large): (3.0, 2.0)}  # below at 2^12 only
    lines = bench.table([step], [small], results, {small: 10.0})
    assert lines[0][-1] == "step (below torch); goal: 'sum, one launch'"
    verdict = bench.goal_verdict([step, final], [small, large], results)
    assert verdict == "- eager: 1 of 1 reduction rows below torch at some size: sum, one launch (2^12)"
    results[final.name, small] = (2.0, 2.0)
    verdict = bench.goal_verdict([step, final], [small, large], results)
    assert verdict == "- eager: all 1 reduction rows at or above torch at every size"


def test_a_step_timed_without_its_final_form_is_held_to_the_goals_itself():
    step = next(r for r in bench.ROWS if r.name == "min, two-stage")
    final = next(r for r in bench.ROWS if r.name == step.step_of)
    (alone,) = bench.without_absent_finals([step])  # a run from before the final form, or an --only
    assert alone.step_of is None
    results = {(step.name, 2**12): (1.0, 2.0)}
    assert "1 of 1 reduction rows below torch" in bench.goal_verdict([alone], [2**12], results)
    assert bench.without_absent_finals([step, final])[0].step_of == final.name


def test_every_step_points_at_a_row_of_the_benchmark():
    names = {row.name for row in bench.ROWS}
    assert all(row.step_of in names for row in bench.ROWS if row.step_of)


def test_sizes_go_from_launch_bound_to_bandwidth_bound_within_memory():
    assert bench.sizes(False, 10**12) == [2**k for k in range(12, 29, 2)]
    assert bench.sizes(True, 10**12) == [2**k for k in range(12, 29, 4)]
    assert max(bench.sizes(False, 2**30)) * 12 <= 2**30 // 3


def test_plot_has_a_line_per_row_and_the_references():
    rows = bench.ROWS[:3]
    ns = [2**12, 2**14]
    results = {(row.name, n): (1.0 + i, 2.0) for i, row in enumerate(rows) for n in ns}
    fig = bench.plot(rows, ns, results, {n: 5.0 for n in ns}, "title")
    gbps_axes, ratio_axes = fig.axes
    assert len(gbps_axes.lines) == len(rows) + 1  # and the device copy
    assert len(ratio_axes.lines) == len(rows) + 1  # and torch at 1.0
    assert list(ratio_axes.lines[1].get_ydata()) == [1.0, 1.0]


def test_markdown_table_has_a_header_and_a_line_per_row():
    text = bench.markdown(["a", "b"], [["x", 1234.5], ["y", 2.0]])
    assert text.splitlines() == ["| a | b |", "|---|---|", "| x | 1,234 |", "| y | 2 |"]


def test_an_earlier_run_is_rebuilt_from_its_csv(tmp_path, capsys):
    first = tmp_path / "first"
    rows, ns = bench.ROWS[2:5], [2**12, bench.BANDWIDTH_BOUND_ELEMENTS]  # two steps and their final form
    assert rows[0].step_of == rows[1].step_of == rows[2].name
    results = {
        (rows[0].name, ns[0]): (1.0, 2.0),
        (rows[0].name, ns[1]): (4000.0, 3900.0),
        (rows[1].name, ns[0]): (3.0, 2.0),
        (rows[1].name, ns[1]): (3000.0, 3900.0),
        (rows[2].name, ns[0]): (2.0, 2.0),
        (rows[2].name, ns[1]): (4000.0, 3900.0),
    }
    bench.report(rows, ns, results, {ns[0]: 4.0, ns[1]: 4100.0}, "GPU X, 2026-12-01", first)
    assert bench.main(["--from-csv", str(first / "results.csv"), "--out", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "results.png").stat().st_size > 0
    assert (tmp_path / "again" / "results.csv").read_text() == (first / "results.csv").read_text()
    text = (tmp_path / "again" / "results.md").read_text()
    assert text.startswith("GPU X, 2026-12-01")
    goal = "step (below torch, below 95% of copy); goal: 'sum, one launch'"
    assert f"| {rows[1].name} | 2^28 | 3,000 | 73% | 3,900 | 0.77x | {goal} |" in text
    step_goal = "step (below torch); goal: 'sum, one launch'"
    assert f"| {rows[0].name} | 2^12 | 1 | 25% | 2 | 0.50x | {step_goal} |" in text
    assert f"| {rows[1].name} | 1.50x | 0.77x |" in text  # the ratio table


def test_a_csv_with_rows_the_benchmark_does_not_know_is_refused(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(",".join(bench.CSV_COLUMNS) + "\nnot a row,01,f,4096,1,1,1,GPU\n")
    with pytest.raises(SystemExit, match="not a row"):
        bench.main(["--from-csv", str(path), "--out", str(tmp_path)])


def test_graphed_rows_time_the_same_functions_and_come_back_from_a_csv(tmp_path, functions):
    row = next(r for r in bench.ROWS if r.function == "sum_one_launch")
    graphed = bench.graphed(row)
    assert graphed.graphed and graphed.name == row.name + bench.GRAPHED
    assert functions[graphed.name] is functions[row.name]  # one function, two ways of timing it
    ns = [2**12, bench.BANDWIDTH_BOUND_ELEMENTS]
    results = {(r.name, n): (1.0 + i, 2.0) for i, r in enumerate((row, graphed)) for n in ns}
    bench.report(
        [row, graphed],
        ns,
        results,
        {n: 4.0 for n in ns},
        "GPU X",
        tmp_path,
        floor={"kernel[grid]": 13.0, "torch zero_()": 7.0},
    )
    rows, _, again, _, _ = bench.read_csv(tmp_path / "results.csv")
    assert [r.name for r in rows] == [row.name, graphed.name] and rows[1].graphed
    assert again == results
    text = (tmp_path / "results.md").read_text()
    assert f"- {row.name}: below torch at 2^12, 2^28" in text
    assert f"- {graphed.name}: at or above torch at every size" in text
    assert "kernel[grid] 13.0; torch zero_() 7.0." in text
    assert bench.read_floor(tmp_path / "results.csv") == {"kernel[grid]": 13.0, "torch zero_()": 7.0}


def test_shortfalls_use_the_level_band():
    row = bench.ROWS[0]
    ns = [2**12, 2**16]
    level = {(row.name, 2**12): (0.995, 1.0), (row.name, 2**16): (0.98, 1.0)}
    assert bench.shortfalls([row], ns, level) == [f"- {row.name}: below torch at 2^16"]


def test_the_results_page_and_each_runs_markdown_are_what_the_committed_csvs_give(capsys):
    from benchmarks import tables

    assert tables.main(["--check"]) == 0, capsys.readouterr().out


def test_a_changed_csv_makes_the_results_page_stale(tmp_path, monkeypatch):
    import shutil

    from benchmarks import tables

    for card in {folder.relative_to(tables.HERE).parts[0] for _, folder, _ in tables.RUNS}:  # h200, h100
        shutil.copytree(tables.HERE / card, tmp_path / card)
    shutil.copy(tables.HERE / "README.md", tmp_path / "README.md")
    runs = [
        (heading, tmp_path / folder.relative_to(tables.HERE), what) for heading, folder, what in tables.RUNS
    ]
    monkeypatch.setattr(tables, "HERE", tmp_path)
    monkeypatch.setattr(tables, "RUNS", runs)
    assert tables.main(["--check"]) == 0
    csv_path = tmp_path / "h200" / "results.csv"
    lines = csv_path.read_text().splitlines()
    fields = lines[1].split(",")
    fields[4] = str(float(fields[4]) * 2)  # one course GB/s figure doubled
    csv_path.write_text("\n".join([lines[0], ",".join(fields), *lines[2:]]) + "\n")
    assert tables.main(["--check"]) == 1
    tables.main([])
    assert tables.main(["--check"]) == 0
