"""Pytest set-up: one CPU thread per process for torch; the Triton interpreter when there is no GPU."""

import os

# Before torch is imported, here and in the notebook kernels that inherit this environment: the tests'
# tensors are small, and with two test workers on two cores (./course.sh test) each process's OpenMP
# threads only compete (measured on two cores: the whole suite ran about 15% faster).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The checker's compile for a GPU after a pass in the interpreter (utils.checker.gpu_compile) costs about a
# second a kernel: tests/test_gpu_compile.py runs it, the other tests and the notebooks' check cells skip it.
os.environ.setdefault("COURSE_COMPILE_CHECK", "0")

import torch  # noqa: E402

if not torch.cuda.is_available():
    # Must happen before any @triton.jit decorator runs: the decorator reads this variable.
    os.environ["TRITON_INTERPRET"] = "1"
    from utils.interpreter import install  # noqa: E402

    install()  # as utils.setup does for the notebooks: the same results, sooner
