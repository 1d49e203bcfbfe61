"""Pytest set-up: run Triton kernels in the CPU interpreter when there is no GPU."""

import os

import torch

if not torch.cuda.is_available():
    # Must happen before any @triton.jit decorator runs: the decorator reads this variable.
    os.environ["TRITON_INTERPRET"] = "1"
