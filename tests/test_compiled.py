"""utils.compiled: kernels compile for Colab's T4 (sm_75) and for Hopper (sm_90) without a GPU."""

import pytest
import triton
import triton.language as tl

from utils.compiled import (
    captured_fds,
    compile_as_launched,
    compile_for,
    count,
    lines,
    stages,
    ttir_arguments,
)


@triton.jit
def one_atomic_sum_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0))


SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK_SIZE": "constexpr"}


@pytest.mark.parametrize("arch", [75, 90])
def test_compiles_for_a_gpu_target_here(arch):
    asm = compile_for(one_atomic_sum_kernel, SIGNATURE, {"BLOCK_SIZE": 1024}, arch=arch, num_warps=4)
    assert {"ttir", "ptx"} <= set(asm)
    assert f".target sm_{arch}" in asm["ptx"]
    assert count(asm["ptx"], r"atom\.global") == 1
    assert count(asm["ptx"], r"shfl\.sync\.bfly") == 5 + 2  # a warp of 32, then 4 warps


def test_lines_and_count_pick_matching_lines():
    text = "  a 1\nb 2\n  a 3\n"
    assert lines(text, r"^\s*a") == ["a 1", "a 3"]
    assert count(text, "b") == 1


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


def test_divisible_arguments_allow_vector_loads():
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK_SIZE": "constexpr"}
    plain = compile_for(copy_kernel, signature, {"BLOCK_SIZE": 1024}, arch=75)
    aligned = compile_for(
        copy_kernel, signature, {"BLOCK_SIZE": 1024}, arch=75, divisible=("x_ptr", "out_ptr", "n")
    )
    assert "tt.divisibility = 16" in aligned["ttir"] and "tt.divisibility" not in plain["ttir"]
    assert count(aligned["ptx"], r"ld\.global\.v4") >= 1
    assert count(plain["ptx"], r"ld\.global\.v4") == 0


def test_captured_fds_collects_what_c_code_writes():
    import ctypes
    import os

    with captured_fds() as captured:
        os.write(1, b"to fd 1\n")
        os.write(2, b"to fd 2\n")
        ctypes.CDLL(None).printf(b"from C printf\n")
        print("from Python's print")
    for text in ("to fd 1", "to fd 2", "from C printf", "from Python's print"):
        assert text in captured.text
    assert "to fd 2" in captured.streams["file descriptor 2"]
    assert "to fd 2" not in captured.streams["file descriptor 1"]
    assert "from Python's print" in captured.streams["Python's sys.stdout"]


def test_compile_as_launched_specialises_like_a_launch():
    import torch

    x = torch.empty(64, 1024, device="meta")
    asm = compile_as_launched(copy_kernel, {"x_ptr": x, "out_ptr": x, "n": 1}, {"BLOCK_SIZE": 1024})
    # n == 1 became a constant and left the signature; both pointers are marked 16-byte aligned
    assert [name for name, divisible in ttir_arguments(asm["ttir"])] == ["x_ptr", "out_ptr"]
    assert all(divisible for _, divisible in ttir_arguments(asm["ttir"]))
    assert isinstance(asm["cubin"], bytes) and asm["cubin"][:4] == b"\x7fELF"
    rows = stages(asm)
    assert [row[0] for row in rows][-2:] == ["ptx", "cubin"]
    assert any("copy_kernel" in row[2] for row in rows if row[0] == "ptx")


def test_the_course_signature_follows_the_argument_names():
    import triton
    import triton.language as tl

    from utils.compiled import course_signature

    @triton.jit
    def probe_kernel(x_ptr, order_ptr, n, BLOCK_SIZE: tl.constexpr):
        pass

    assert course_signature(probe_kernel) == {
        "x_ptr": "*fp32",
        "order_ptr": "*i64",
        "n": "i32",
        "BLOCK_SIZE": "constexpr",
    }


def test_explain_names_the_compiled_copy_without_its_temporary_folder(capsys):
    # compile_for writes the kernel to a new temporary folder each call: a printed path would differ
    # between two runs of the same notebook cell (tests/test_rerun.py compares them).
    import tempfile

    from utils.compiled import Captured, explain

    folder = f"{tempfile.gettempdir()}/tmpab12_cd"
    error = RuntimeError(f"{folder}/kernel_source.py:14:5: error: 'tt.atomic_rmw' op failed to verify")
    captured = Captured()
    captured.streams = {"file descriptor 2": f"{folder}/kernel_source.py:14:5: error: x"}
    explain(error, captured)
    printed = capsys.readouterr().out
    assert "kernel_source.py:14:5: error: 'tt.atomic_rmw'" in printed
    assert folder not in printed
