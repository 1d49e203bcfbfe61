"""utils.kernels.load: one notebook's kernels, launchers and constants, as a module."""

import pytest

from utils.kernels import definitions, load


def test_a_notebook_loads_with_its_launchers_and_the_constants_they_read():
    module = load("02_sum_atomics")
    assert callable(module.sum_two_stage) and hasattr(module.partial_sums_kernel, "run")
    assert module.PROGRAMS == 8 * module.SMS  # PROGRAMS reads SMS, so both are kept, in order


def test_only_constants_that_a_function_reads_are_kept():
    source = definitions("01_vector_add")
    assert "BLOCK_SIZE = 1024" in source  # copy() reads it
    assert "DEMO_BLOCK" not in source and "COLAB_COPY" not in source  # demo and set-up names are not


def test_names_fill_in_what_the_loaded_functions_read_from_other_cells():
    assert load("05_row_sum", split_works=True).split_works is True


def test_an_unknown_notebook_is_named():
    with pytest.raises(ValueError, match="solutions/99_nothing.ipynb"):
        load("99_nothing")
