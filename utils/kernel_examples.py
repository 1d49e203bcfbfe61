"""The compile test's example values: what each constexpr parameter of the course's kernels is compiled with
(`python -m utils.kernels --compile`, tests/test_kernels_compile.py). A table of its own, since every
notebook that adds a kernel adds to it."""

# Values to compile each constexpr parameter with: every branch a notebook's launches take. A kernel with a
# constexpr parameter that is not listed here fails the compile test and asks for an entry. An entry named
# "kernel_name.PARAMETER" holds for that kernel alone, in place of the parameter's own entry.
EXAMPLE_CONSTEXPRS: dict[str, list] = {
    "BLOCK_SIZE": [1024],
    "BLOCK_ROWS": [4],
    "TRANSFORM": ["square", "abs", "nonzero"],
    "SHIFT": [True, False],
    "OTHER": [0.0, float("-inf")],
    "OP": ["max", "min", "sum", "prod"],
    "COUNT": ["min", "sum"],  # notebook 06: a tile's count by arithmetic, or by a tl.sum
    "PARTIALS_BLOCK": [1024],  # notebook 07: the one-launch kernels load every partial as one tile
    "BLOCK": [1024],  # notebook 07: the copy kernel of the misaligned launch
    "COMPENSATED": [True, False],  # notebook 06: Kahan's compensated sum, or a plain one
    "N_COLS": [4096],  # notebook 09: the looped kernels, compiled for each width
    "FORM": ["exp", "sqrt", "sqrt_rn", "rsqrt", "div", "div_rn", "fma"],  # notebook 06: Triton's fast math
    "CHUNK": [4096],  # notebook 08: the split row's chunk
    "PAIRS": [4],  # notebook 08: a row's (max, sum) pairs, loaded as one tile
    "K_POW2": [4],  # notebook 10: a split row's parts, loaded as one tile (K rounded up to a power of 2)
    "K": [4],  # notebook 08: the one launch's chunks per row; notebook 10: the programs a split row runs on
    "SPIN_LIMIT": [1024],  # notebook 08: the one launch's bounded wait
    # notebook 10: the fused backward's norms, combines, statistics, stages and reloads, each costlier setting
    "LAYER": [True, False],
    "COMBINE": ["atomics", "ticket", "none"],  # "none": dx alone, the first of two passes
    "RECOMPUTE": [False, True],
    "STAGES": [3],
    "RELOAD": ["rows"],  # every branch: w read on every tile, then x and dy again after the sums
    "READ_TWICE": [True],  # notebook 10: the softmax backward's tile read again after its sums
    "EVEN": [True, False],  # notebook 10: a split row's K parts cover it exactly (no column masked), or not
    "ACC": ["tl.float32"],  # a Triton dtype, named: see _example
    "BLOCK_P": [32],  # notebook 10: sum_partials' partial rows per step
    "BLOCK_COLS": [128],
    # notebook 10's split row: both reloads, since "none" keeps a tile across the wait, a branch of its own;
    # a narrower part than notebook 08's, since each compile of a wide part takes seconds
    "norm_backward_split_kernel.RELOAD": ["none", "rows"],
    "norm_backward_split_kernel.CHUNK": [512],
}
