"""utils.lab, `./course.sh lab`'s command: the root it serves, the folder it opens, and running as root.

The browser test (tests/e2e) starts JupyterLab with the same command and clicks a "No GPU?" link; these
tests need no browser.
"""

import sys
from pathlib import Path

import nbformat
import pytest

from utils import lab
from utils.notebooks import learner_paths
from utils.reference import NO_GPU_LINK_TO_COPY

ROOT = Path(__file__).resolve().parent.parent


def test_the_server_serves_the_course_folder_and_opens_the_notebooks():
    assert lab.server_arguments(ROOT) == [
        f"--ServerApp.root_dir={ROOT}",
        f"--LabApp.default_url=/lab/tree/{lab.OPENS}",
    ]
    assert {path.parent for path in learner_paths()} == {ROOT / lab.OPENS}


@pytest.mark.parametrize("path", learner_paths(), ids=lambda p: p.name)
def test_each_no_gpu_link_leads_to_a_file_inside_the_served_folder(path):
    # JupyterLab opens a link relative to the notebook, and only inside its root: a server rooted at
    # notebooks/ could not open ../reference/h200/ (its link did nothing, silently).
    ((_, target),) = NO_GPU_LINK_TO_COPY.findall(nbformat.read(path, as_version=4).cells[0].source)
    resolved = (path.parent / target).resolve()
    assert resolved.is_relative_to(ROOT) and resolved.is_file(), f"{path.name}: {target}"
    assert not resolved.is_relative_to(ROOT / lab.OPENS), "the link is meant to leave notebooks/"


def test_as_root_in_a_container_jupyter_is_allowed_root_and_told_why():
    extra, note = lab.root_arguments(0, True, [])
    assert extra == ["--allow-root"] and "container" in note and "--allow-root" in note


def test_as_root_elsewhere_nothing_is_added_and_the_learner_is_told_what_to_do():
    extra, note = lab.root_arguments(0, False, [])
    assert extra == [] and "ordinary user" in note and "--allow-root" in note


@pytest.mark.parametrize("argv", [["--allow-root"], ["--ServerApp.allow_root=True"]])
def test_as_root_with_the_flag_given_nothing_more_is_said(argv):
    assert lab.root_arguments(0, True, argv) == ([], "")


def test_an_ordinary_user_gets_nothing_added():
    assert lab.root_arguments(1000, True, []) == ([], "")


def test_the_command_runs_this_python_and_puts_the_learners_options_last(monkeypatch):
    monkeypatch.setattr(lab, "root_arguments", lambda uid, container, argv: ([], ""))
    command = lab.command(["--port=9999"], root=Path("/somewhere"))
    assert command[:4] == [sys.executable, "-m", "jupyter", "lab"]
    assert command[4:] == [*lab.server_arguments(Path("/somewhere")), "--port=9999"]
