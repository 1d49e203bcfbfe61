"""The first cell of every notebook: pick the device, switch Triton to its interpreter when there is no GPU.

`setup()` must run before any `@triton.jit` kernel is defined, because the decorator reads
`TRITON_INTERPRET` when it runs. It prints one line naming the device, torch, triton and the mode (and a
second, a warning, when the interpreter's triton cannot work with the installed numpy), and
returns a `Course` that tells the notebook which device to allocate on and how large its problems may be
(the interpreter runs about one program instance per millisecond, so CPU sizes stay small).

`SETUP_CELL` is the exact source of that first cell; a test checks that every notebook starts with it.
On Colab the cell clones the course once and puts it on the path; it never installs torch or triton,
because Colab's torch pins an exact triton. When the clone fails (the repository is not reachable) it
stops with a message saying what to do instead, not a traceback.
"""

from __future__ import annotations

import datetime
import os
import subprocess
from dataclasses import dataclass

COURSE_REPO = "https://github.com/triton-reductions/triton-reductions-course"
COURSE_BRANCH = "main"


def setup_cell(repo: str, branch: str) -> str:
    """The set-up cell's source for a course that lives at `repo`, on `branch` (see SETUP_CELL)."""
    return f'''\
# Set-up: run this cell first. It finds the course's helpers (on Colab it fetches them once; it never
# installs torch or triton), then switches Triton to its CPU interpreter if there is no GPU.
import os
import subprocess
import sys

REPO = "{repo}"
COLAB_COPY = "/content/course"
if "google.colab" in sys.modules and not os.path.isdir(os.path.join(COLAB_COPY, "utils")):
    clone = ["git", "clone", "--depth=1", "--branch={branch}", REPO, COLAB_COPY]
    if subprocess.run(clone).returncode:  # SystemExit: a message for the learner, not a traceback
        raise SystemExit(
            f"Could not fetch the course from {{REPO}}. Upload the course folder to {{COLAB_COPY}} "
            "(Files pane), or set REPO above to where it lives; then run this cell again."
        )
ROOT = os.path.abspath(next(p for p in (".", "..", COLAB_COPY) if os.path.isfile(f"{{p}}/utils/setup.py")))
sys.path.insert(0, ROOT)
from utils.setup import setup  # noqa: E402 (utils is found through the line above)

course = setup()
DEVICE = course.device'''


SETUP_CELL = setup_cell(COURSE_REPO, COURSE_BRANCH)


@dataclass(frozen=True)
class Course:
    """What the notebook needs to know about where its kernels run."""

    device: str  # "cuda" or "cpu": pass it to every torch allocation
    on_gpu: bool  # False: kernels run in the Triton interpreter, on the CPU
    description: str  # the one-line banner that setup() printed

    def size(self, cpu: int, gpu: int) -> int:
        """Problem size for this machine: `cpu` in the interpreter, `gpu` on a real GPU."""
        return gpu if self.on_gpu else cpu


def interpreting() -> bool:
    """Whether `@triton.jit` kernels defined now run in Triton's interpreter (TRITON_INTERPRET=1): the
    one place the course reads that variable. setup() sets it when there is no GPU."""
    return os.environ.get("TRITON_INTERPRET") == "1"


def runs_on_gpu() -> bool:
    """Whether kernels compile for a GPU here: one is present and TRITON_INTERPRET=1 does not force the
    interpreter. setup() decides with this, and so do utils.checker.runner and utils.kernels.load."""
    import torch

    return torch.cuda.is_available() and not interpreting()


def gpu_driver() -> str:
    """The NVIDIA driver's version, from nvidia-smi (torch does not report it); "unknown" without one."""
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    versions = done.stdout.split()
    return versions[0] if done.returncode == 0 and versions else "unknown"


def setup(verbose: bool = True) -> Course:
    """Choose the device, switch Triton to the interpreter if needed, and print one line saying so.

    Setting TRITON_INTERPRET=1 yourself forces the interpreter even on a GPU machine (instructors use
    this to see what a CPU-only learner sees).
    """
    import numpy
    import torch

    forced = interpreting()
    on_gpu = runs_on_gpu()
    if not on_gpu:
        # Must happen before any @triton.jit runs: the decorator reads this variable.
        os.environ["TRITON_INTERPRET"] = "1"
    import triton

    if on_gpu:
        major, minor = torch.cuda.get_device_capability()
        where = f"{torch.cuda.get_device_name()} (sm_{major}{minor}, driver {gpu_driver()})"
        # The date too, so that a saved run (reference/, a screenshot) says when its figures were measured.
        mode = f"compiled GPU kernels | {datetime.date.today().isoformat()}"
    else:
        from utils.interpreter import install

        install()  # the same results, sooner (utils/interpreter.py says why)
        where = "CPU"
        reason = "TRITON_INTERPRET=1 was set" if forced else "no GPU found"
        mode = f"Triton interpreter ({reason}): kernels run on the CPU, one program after another"
    description = f"device: {where} | torch {torch.__version__} | triton {triton.__version__} | mode: {mode}"
    if verbose:
        print(description)
        warning = None if on_gpu else interpreter_warning(triton.__version__, numpy.__version__)
        if warning:
            print(warning)
    return Course(device="cuda" if on_gpu else "cpu", on_gpu=on_gpu, description=description)


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def interpreter_warning(triton_version: str, numpy_version: str) -> str | None:
    """A line for the learner when their triton and numpy cannot run every notebook in the interpreter.

    triton 3.6's interpreter (Colab's triton, and the one paired with torch 2.11) fails with numpy 2.4 or
    newer on a loop such as `range(0, n_cols, BLOCK)` with a runtime bound, which notebook 05 uses:
    "only 0-dimensional arrays can be converted to Python scalars". triton 3.7 fixed it.
    """
    if _major_minor(triton_version) < (3, 7) and _major_minor(numpy_version) >= (2, 4):
        return (
            f"warning: triton {triton_version}'s interpreter fails with numpy {numpy_version} on loops "
            f'with a runtime bound (notebook 05); install numpy<2.4, e.g. pip install "numpy<2.4"'
        )
    return None
