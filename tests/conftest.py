"""Pytest set-up: one CPU thread per process for torch; the Triton interpreter when there is no GPU."""

import os

# Before torch is imported, here and in the notebook kernels that inherit this environment: the tests'
# tensors are small, and with two test workers on two cores (./course.sh test) each process's OpenMP
# threads only compete (measured on two cores: the whole suite ran about 15% faster).
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

if not torch.cuda.is_available():
    # Must happen before any @triton.jit decorator runs: the decorator reads this variable.
    os.environ["TRITON_INTERPRET"] = "1"


# The modules whose tests are many, independent and slow (each a checker battery in the interpreter):
# spread over the workers one test at a time. Grouped by module, as --dist loadscope did, they kept one
# worker busy for minutes after the other had finished (measured: 10 min 38 s of wall time for 14 min
# 54 s of work on two workers).
SPREAD_MODULES = {"test_check.py", "test_exercises.py"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups into the test ids
def pytest_collection_modifyitems(items):
    """Groups for pytest-xdist's --dist loadgroup (pyproject.toml): a notebook's cells (nbval) and a
    module's tests share one worker and run in order, since they share a kernel or fixtures; the tests
    of SPREAD_MODULES go to whichever worker is free."""
    for item in items:
        if item.path.name in SPREAD_MODULES:
            continue
        cls = getattr(item, "cls", None)  # tests/test_rerun.py: one class per notebook
        item.add_marker(
            pytest.mark.xdist_group(f"{item.path.name}::{cls.__name__}" if cls else item.path.name)
        )
