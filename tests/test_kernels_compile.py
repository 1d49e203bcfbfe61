"""Every kernel of the course compiles for Colab's T4 (sm_75) and for sm_90, here, without a GPU.

The kernels come from the solution notebooks through utils.kernels; one subprocess compiles them all
(the interpreter, which the tests switch on without a GPU, cannot compile for a GPU).
"""

import json
import os
import subprocess
import sys

import pytest

from utils.kernels import ARCHES, EXPECTED_TO_FAIL, jit_functions
from utils.notebooks import ROOT

KERNELS = [f for f in jit_functions() if f.is_kernel]


@pytest.fixture(scope="module")
def compiled():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run(
        [sys.executable, "-m", "utils.kernels", "--compile"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {(r["notebook"], r["kernel"], r["arch"]): r["error"] for r in results}


def test_the_notebooks_have_kernels():
    assert len(KERNELS) >= 20
    assert {f.notebook for f in KERNELS} >= {
        "01_vector_add",
        "02_sum_atomics",
        "03_max",
        "04_l2_norm",
        "05_row_sum",
        "06_numerics",
    }


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda f: f"{f.notebook}:{f.name}")
def test_kernel_compiles(compiled, kernel, arch):
    key = (kernel.notebook, kernel.name, arch)
    assert key in compiled, f"{kernel.name} ({kernel.notebook}) was not compiled for sm_{arch}"
    error = compiled[key]
    if kernel.name.endswith(EXPECTED_TO_FAIL):  # the notebook shows this kernel's compile error on purpose
        assert error, f"{kernel.name} ({kernel.notebook}) is meant not to compile, but compiled for sm_{arch}"
    else:
        assert error is None, f"{kernel.name} ({kernel.notebook}) does not compile for sm_{arch}: {error}"
