"""How many programs of a compiled kernel fit on one SM at once, and which of the SM's limits binds: the
arithmetic of Triton's fused-softmax tutorial, from the registers and shared memory the compiled kernel
reports. Notebooks 08 and 09 print it beside their sweeps.

Triton exposes no occupancy calculator (CUDA's cudaOccupancyMaxActiveBlocksPerMultiprocessor is not
reachable from it), so this counts what the tutorial counts; the hardware allocates registers in blocks, so
the number can come out lower on the GPU.
"""

from __future__ import annotations

# What an SM offers, where torch does not report it: every NVIDIA GPU since 2014 has 65,536 registers per SM
REGISTERS_PER_SM = 65536
PROGRAMS_PER_SM = 32  # the most thread blocks one SM holds (compute capability 7.5 to 9.0)


def programs_per_sm(n_regs: int, shared_bytes: int, num_warps: int, properties) -> tuple[int, str]:
    """(programs that fit on one SM, the limit that binds, or the limits joined by " = " where two allow the
    same number), for a kernel using `n_regs` registers per thread and `shared_bytes` of shared memory per
    program, launched with `num_warps` warps; `properties` is torch.cuda.get_device_properties(device)."""
    threads = 32 * num_warps
    limits = {
        "registers": getattr(properties, "regs_per_multiprocessor", REGISTERS_PER_SM)
        // max(1, n_regs * threads),
        "threads": properties.max_threads_per_multi_processor // threads,
        "32 programs": PROGRAMS_PER_SM,
    }
    if shared_bytes:  # a kernel that uses no shared memory is not limited by it
        limits["shared memory"] = properties.shared_memory_per_multiprocessor // shared_bytes
    fewest = min(limits.values())
    return fewest, " = ".join(name for name, count in limits.items() if count == fewest)


def programs_resident(compiled, num_warps: int, properties) -> int:
    """Programs of `compiled` (the CompiledKernel that `kernel.warmup(...)` or a launch returns) that a whole
    GPU holds at once, running nothing else: programs_per_sm times the SMs. A kernel whose programs wait for
    each other needs every one of them resident, or it waits forever. Registers are allocated per thread in
    steps of 8, so the count uses the kernel's registers rounded up to 8."""
    compiled._init_handles()  # loads the kernel, which fills in n_regs
    registers = -(-compiled.n_regs // 8) * 8
    per_sm, _ = programs_per_sm(registers, compiled.metadata.shared, num_warps, properties)
    return per_sm * properties.multi_processor_count
