"""utils.occupancy: programs per SM from registers, threads and shared memory, as the H200 reports them."""

from types import SimpleNamespace

from utils.occupancy import programs_per_sm, programs_resident

H200 = SimpleNamespace(
    regs_per_multiprocessor=65536,
    max_threads_per_multi_processor=2048,
    shared_memory_per_multiprocessor=233472,
)


def test_registers_bind_a_kernel_that_uses_many():
    assert programs_per_sm(128, 0, 16, H200) == (1, "registers")  # 128 x 512 threads = all 65,536


def test_a_tie_names_both_limits():
    assert programs_per_sm(32, 0, 16, H200) == (4, "registers = threads")


def test_shared_memory_binds_only_a_kernel_that_uses_it():
    assert programs_per_sm(16, 100_000, 4, H200) == (2, "shared memory")
    assert programs_per_sm(16, 0, 1, H200) == (32, "32 programs")


def test_registers_default_where_torch_does_not_report_them():
    older = SimpleNamespace(max_threads_per_multi_processor=1024, shared_memory_per_multiprocessor=65536)
    assert programs_per_sm(64, 0, 8, older) == (4, "registers = threads")


def test_resident_programs_round_registers_up_to_eight_and_count_every_sm():
    loaded = []
    compiled = SimpleNamespace(
        n_regs=85, metadata=SimpleNamespace(shared=0), _init_handles=lambda: loaded.append(True)
    )
    gpu = SimpleNamespace(**vars(H200), multi_processor_count=132)
    # 85 registers count as 88: 88 x 256 threads = 22,528 a program, so 2 an SM (85 would make it 3)
    assert programs_resident(compiled, 8, gpu) == 2 * 132
    assert loaded == [True]
