"""utils.interpreter: the interpreter's set-up skipped when repeated inside a launch, and nothing else."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from utils.interpreter import install
from utils.setup import _major_minor

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1", reason="the interpreter runs only without a GPU here"
)


@triton.jit
def _sums_of_tiles_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # tl.sum and tl.max are @triton.jit functions: each call used to patch triton.language again
    total = 0.0
    biggest = float("-inf")
    for start in range(0, n, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        tile = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        total += tl.sum(tile, axis=0)
        biggest = tl.maximum(biggest, tl.max(tile, axis=0))
    tl.store(out_ptr, total)
    tl.store(out_ptr + 1, biggest)


@triton.jit
def _wrapping_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # int32 and int8 arithmetic that overflows: it must wrap as before, the overflow checks skipped
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    wrapped = x * 65537 + 2_000_000_000
    small = (x & 127).to(tl.int8) * 3
    tl.store(out_ptr + offsets, wrapped + small.to(tl.int32), mask=offsets < n)


def _launch(n: int = 1000, block: int = 16) -> torch.Tensor:
    x = torch.randn(n, generator=torch.Generator().manual_seed(n))
    out = torch.empty(2)
    _sums_of_tiles_kernel[(1,)](x, out, n, BLOCK=block)
    ints = torch.randint(
        -(2**31), 2**31 - 1, (n,), dtype=torch.int32, generator=torch.Generator().manual_seed(n)
    )
    wrapped = torch.empty_like(ints)
    _wrapping_kernel[(triton.cdiv(n, block),)](ints, wrapped, n, BLOCK=block)
    return torch.cat([out.double(), wrapped.double()])


def test_a_launch_patches_each_module_once_however_many_helpers_it_calls(monkeypatch):
    from triton.runtime import interpreter

    if _major_minor(triton.__version__) < (3, 6):
        pytest.skip(f"triton {triton.__version__}: utils.interpreter was tried on 3.6 and newer only")
    assert install(), (
        f"triton {triton.__version__}'s interpreter no longer has the shape utils.interpreter expects"
    )
    walks = []
    original = interpreter._patch_builtin
    monkeypatch.setattr(interpreter, "_patch_builtin", lambda *a: walks.append(a[0]) or original(*a))
    _launch(n=32)  # the first launch of a process patches a little less: Triton leaves some patches behind
    walks.clear()
    _launch(n=32)  # 2 trips: 4 helper calls
    few = len(walks)
    walks.clear()
    _launch(n=1024)  # 64 trips: 128 helper calls
    assert len(walks) == few, f"{len(walks)} walks of triton.language for 64 trips, {few} for 2"


def test_a_launch_leaves_triton_language_as_it_found_it():
    install()
    before = {name: getattr(tl, name) for name in ("sum", "max", "load", "store", "arange")}
    _launch()
    assert {name: getattr(tl, name) for name in before} == before


def test_results_are_bit_for_bit_those_of_the_plain_interpreter():
    """The same kernels in a process without install(): every output equal to the last bit, integers
    that overflow included."""
    script = (
        "import json, os, sys; sys.path.insert(0, '.'); os.environ['TRITON_INTERPRET'] = '1'\n"
        "from tests.test_interpreter import _launch\n"
        "print(json.dumps([_launch(n, b).tolist() for n, b in ((1, 16), (1000, 16), (4099, 1024))]))"
    )
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    plain = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    install()
    mine = [_launch(n, b).tolist() for n, b in ((1, 16), (1000, 16), (4099, 1024))]
    assert json.loads(plain.stdout) == mine


def test_overflow_checks_are_skipped_only_where_nothing_reads_them(monkeypatch):
    """Without debug, Triton computes an overflow check for every int32 `+`, `-` and `*` and hands it to a
    `device_assert` that ignores it: install() turns the option off. With debug on, the check asserts,
    and the probe that decides says so."""
    from triton.runtime import interpreter

    from utils.interpreter import _int32_overflow_goes_unreported

    install()
    builder = interpreter.interpreter_builder
    assert not builder.options.sanitize_overflow, "install() left the unread overflow checks on"
    computed = []
    original = type(interpreter.interpreter_builder).create_int_cast
    monkeypatch.setattr(
        type(builder), "create_int_cast", lambda self, *a: computed.append(a) or original(self, *a)
    )
    _sums_of_tiles_kernel[(1,)](torch.ones(64), torch.empty(2), 64, BLOCK=16)  # int32 adds, no casts
    assert not computed, "an int32 add was widened to int64 for a check nobody reads"
    monkeypatch.setattr(
        builder, "options", dataclasses.replace(builder.options, debug=True, sanitize_overflow=True)
    )
    assert not _int32_overflow_goes_unreported(), "with debug on, an int32 overflow should be reported"
