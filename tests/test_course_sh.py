"""course.sh's set-up: which torch it installs, and from where (the commands themselves are run by CI).

Each test runs the real course.sh from a copy of the course's top folder, with a stand-in for .venv's
python that records what it is asked to do instead of doing it, and a PATH on which `nvidia-smi` and
`uname` can be stand-ins too: a machine with or without an NVIDIA GPU, Linux or macOS.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../calls"
case "$*" in
  *importlib.metadata*) test -f "$(dirname "$0")/../torch-installed" ;;  # is torch installed?
  *) exit 0 ;;
esac
"""

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="course.sh's stand-ins are Linux shell tools")


def _torch_line() -> str:
    """requirements.txt's torch requirement, as course.sh should pass it to pip."""
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    (line,) = [line for line in lines if line.startswith("torch") and not line.startswith("torch_")]
    return line


def _course_sh(
    tmp_path: Path, *args: str, gpu: bool, system: str = "Linux", torch_installed=False, **env: str
):
    """course.sh ARGS in a copy (with none, it sets up and prints its usage); its process and calls."""
    course = tmp_path / "course"
    course.mkdir()
    for name in ("course.sh", "requirements.txt", "requirements-test.txt"):
        shutil.copy(ROOT / name, course / name)
    python = course / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    if torch_installed:
        (course / ".venv" / "torch-installed").touch()
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    if gpu:
        (bin_ / "nvidia-smi").write_text('#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-0)"\n')
    (bin_ / "uname").write_text(f"#!/bin/sh\necho {system}\n")
    for tool in bin_.iterdir():
        tool.chmod(0o755)
    system_path = [p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "nvidia-smi").exists()]
    environment = {
        "PATH": os.pathsep.join([str(bin_), *system_path]),
        "HOME": str(tmp_path),
        **env,
    }
    done = subprocess.run(
        ["bash", str(course / "course.sh"), *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, (course / ".venv" / "calls").read_text().splitlines()


def _run(tmp_path: Path, **machine):
    """course.sh's set-up on `machine`: what it printed, and what it asked pip to install."""
    done, calls = _course_sh(tmp_path, **machine)
    assert done.returncode == 2 and "usage: ./course.sh" in done.stderr, done.stderr
    return done.stdout, [call for call in calls if call.startswith("-m pip install")]


def _machine_has_nvidia_driver() -> bool:
    return any(Path("/proc/driver/nvidia/gpus").glob("*"))


no_driver = pytest.mark.skipif(_machine_has_nvidia_driver(), reason="this machine has an NVIDIA GPU")


@no_driver
def test_without_a_gpu_torch_is_the_cpu_build_and_the_command_says_so(tmp_path):
    out, pip = _run(tmp_path, gpu=False)
    torch_call = f"-m pip install --quiet --no-compile --index-url {CPU_INDEX} {_torch_line()}"
    assert pip == [
        "-m pip install --quiet --upgrade pip",
        torch_call,  # before the requirements, so that they find torch there and keep it
        "-m pip install --quiet --no-compile -r requirements-test.txt",
    ]
    notes = [line for line in out.splitlines() if "torch" in line]
    assert len(notes) == 1 and "No NVIDIA GPU" in notes[0] and "COURSE_TORCH=cuda" in notes[0], out


@no_driver
def test_a_torch_already_installed_is_left_to_pip_to_keep(tmp_path):
    # .ci/run installs torch==...+cpu first: pip is asked for the same range (which that torch meets, so
    # pip keeps it), never to upgrade or reinstall, and the note about downloading is not printed.
    out, pip = _run(tmp_path, gpu=False, torch_installed=True)
    assert f"--index-url {CPU_INDEX} {_torch_line()}" in pip[1]
    assert [call for call in pip if "--upgrade" in call or "--force" in call] == [pip[0]]  # pip's own
    assert "No NVIDIA GPU" not in out


@pytest.mark.parametrize(
    "machine",
    [
        {"gpu": True},  # an NVIDIA GPU: pip's default torch for Linux, a CUDA build
        {"gpu": False, "COURSE_TORCH": "cuda"},  # asked for
        {"gpu": False, "system": "Darwin"},  # PyPI's macOS torch has no CUDA to avoid
    ],
    ids=["gpu", "course-torch-cuda", "macos"],
)
def test_otherwise_torch_comes_from_the_requirements_alone(tmp_path, machine):
    out, pip = _run(tmp_path, **machine)
    assert pip == [
        "-m pip install --quiet --upgrade pip",
        "-m pip install --quiet --no-compile -r requirements-test.txt",
    ]
    assert "torch" not in out


def test_course_torch_index_names_the_index(tmp_path):
    # as .ci/run reads it: on a GPU machine too, the index set wins
    out, pip = _run(tmp_path, gpu=True, COURSE_TORCH_INDEX="file:///wheelhouse")
    assert pip[1] == f"-m pip install --quiet --no-compile --index-url file:///wheelhouse {_torch_line()}"
    assert "file:///wheelhouse" in out


def test_course_torch_cpu_on_a_gpu_machine(tmp_path):
    _, pip = _run(tmp_path, gpu=True, COURSE_TORCH="cpu")
    assert pip[1] == f"-m pip install --quiet --no-compile --index-url {CPU_INDEX} {_torch_line()}"


def test_a_misspelt_course_torch_stops_before_installing(tmp_path):
    done, calls = _course_sh(tmp_path, gpu=False, COURSE_TORCH="gpu")
    assert done.returncode == 2 and "COURSE_TORCH is 'gpu'" in done.stderr
    assert not [call for call in calls if "requirements-test.txt" in call or "--index-url" in call]


def test_lab_starts_jupyterlab_through_utils_lab(tmp_path):
    # utils.lab holds the server's options (the course's folder served, notebooks/ opened), which the
    # browser test uses too; the learner's own options follow
    done, calls = _course_sh(tmp_path, "lab", "--port=9999", gpu=False)
    assert done.returncode == 0, done.stderr
    assert calls[-1] == "-m utils.lab --port=9999"


@no_driver
def test_where_python_caches_no_bytecode_pip_compiles_it_at_install(tmp_path):
    """With PYTHONDONTWRITEBYTECODE set, a --no-compile install would leave every process to compile torch
    again; there the install compiles."""
    _, pip = _run(tmp_path, gpu=False, PYTHONDONTWRITEBYTECODE="1")
    assert len(pip) == 3 and not any("--no-compile" in call for call in pip), pip
