"""The solution notebooks' cells tagged `export`, one module per notebook, written by
`python -m utils.release` from solutions/ (generated: edit the notebooks, not these files).
utils.kernels.load loads them."""
