"""utils.setup: the first cell picks GPU or interpreter and says so in one line (Colab: test_colab.py)."""

import datetime
import os
from pathlib import Path

import numpy
import torch
import triton

from utils.setup import SETUP_CELL, Course, interpreter_warning, setup

ROOT = Path(__file__).resolve().parent.parent


def _unset_interpreter(monkeypatch):
    # setenv first, so that monkeypatch restores the variable (set or not) after setup() changed it.
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.delenv("TRITON_INTERPRET")


def test_without_a_gpu_the_interpreter_is_switched_on(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    _unset_interpreter(monkeypatch)
    course = setup()
    assert os.environ["TRITON_INTERPRET"] == "1"
    assert (course.device, course.on_gpu) == ("cpu", False)
    banner, *rest = capsys.readouterr().out.splitlines()
    warning = interpreter_warning(triton.__version__, numpy.__version__)
    assert rest == ([warning] if warning else []), "one line, and a second only to warn about numpy"
    assert "device: CPU" in banner and "no GPU found" in banner
    assert f"torch {torch.__version__}" in banner and f"triton {triton.__version__}" in banner


def test_on_a_gpu_kernels_are_compiled(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda: (7, 5))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda: "Tesla T4")
    monkeypatch.setattr("utils.setup.gpu_driver", lambda: "535.104.05")
    _unset_interpreter(monkeypatch)
    course = setup()
    assert "TRITON_INTERPRET" not in os.environ
    assert (course.device, course.on_gpu) == ("cuda", True)
    assert "Tesla T4 (sm_75, driver 535.104.05)" in capsys.readouterr().out


def test_the_gpu_banner_names_the_driver_and_the_date(monkeypatch, capsys):
    # A saved run (the reference notebooks) must say what it came from: GPU, driver, versions, date.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda: (9, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda: "NVIDIA H200")
    monkeypatch.setattr("utils.setup.gpu_driver", lambda: "580.159.04")
    _unset_interpreter(monkeypatch)
    setup()
    banner = capsys.readouterr().out.strip()
    assert banner.startswith("device: NVIDIA H200 (sm_90, driver 580.159.04) | torch ")
    assert datetime.date.today().isoformat() in banner and f"triton {triton.__version__}" in banner


def test_triton_interpret_forces_the_interpreter_even_on_a_gpu(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    course = setup()
    assert course.device == "cpu"
    assert "TRITON_INTERPRET=1 was set" in capsys.readouterr().out


def test_sizes_follow_the_device():
    assert Course("cpu", False, "").size(cpu=10, gpu=1000) == 10
    assert Course("cuda", True, "").size(cpu=10, gpu=1000) == 1000


def test_setup_cell_runs_from_the_notebooks_folder(monkeypatch, capsys):
    monkeypatch.chdir(ROOT / "notebooks")
    monkeypatch.setenv("TRITON_INTERPRET", os.environ.get("TRITON_INTERPRET", "0"))
    namespace: dict = {}
    exec(SETUP_CELL, namespace)
    assert namespace["DEVICE"] == namespace["course"].device
    assert namespace["ROOT"] == str(ROOT)
    assert capsys.readouterr().out.startswith("device: ")


def test_a_triton_and_numpy_pair_the_interpreter_cannot_run_is_named():
    warning = interpreter_warning("3.6.0", "2.4.1")
    assert warning and "numpy<2.4" in warning and "3.6.0" in warning
    for triton_version, numpy_version in (
        ("3.6.0", "2.3.5"),
        ("3.7.0", "2.4.1"),
        ("3.9.0", "2.5.0"),
        ("3.3.1", "1.26.4"),
        ("3.6.0", "2.0.2"),
    ):
        assert interpreter_warning(triton_version, numpy_version) is None, (triton_version, numpy_version)
    assert interpreter_warning("3.6.0+git1234", "2.4.0rc1")  # local and pre-release versions parse too


def test_the_warning_is_printed_under_the_banner_in_the_interpreter(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(triton, "__version__", "3.6.0")
    monkeypatch.setattr(numpy, "__version__", "2.4.1")
    _unset_interpreter(monkeypatch)
    setup()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("device: CPU") and "numpy<2.4" in lines[1]
