"""Tests for utils.checker.describe: each finding is said when its relation holds on every failing case, and
not said when it fails on one. The runs are made by hand (no kernel), so each relation is exact."""

from __future__ import annotations

import torch

from utils.checker.data import values
from utils.checker.describe import describe, index_set
from utils.checker.families import EXERCISES
from utils.checker.judge import Run
from utils.checker.model import Case

GARBAGE = -1234.0


def _run(exercise_id: str, inputs: tuple[torch.Tensor, ...], got, out_shape=(1,), layout="contiguous") -> Run:
    exercise = EXERCISES[exercise_id]
    case = Case(f"N={inputs[0].numel()}", inputs, out_shape, layout)
    expected = exercise.reference(*(x.double() for x in inputs)).reshape(out_shape)
    result = got(expected) if callable(got) else got
    return Run(case, result.double().reshape(out_shape), expected, GARBAGE, True, (), None)


def _kinds(exercise_id: str, runs: list[Run]) -> dict[str, str]:
    return {f.kind: f.text for f in describe(EXERCISES[exercise_id], runs, runs)}


def _sums(scale) -> list[Run]:
    """Failing sum runs on three sizes, out = scale(n) * the right sum."""
    return [
        _run("sum_atomic", (values(n, "positive", seed=n),), lambda e, n=n: scale(n) * e)
        for n in (100, 1000, 3001)
    ]


def test_index_sets_in_words():
    assert index_set([0, 1, 2], 10) == "the first 3 elements (of 10)"
    assert index_set([7, 8, 9], 10) == "the last 3 elements (from element 7 of 10)"
    assert index_set([3, 4], 10) == "elements 3 to 4 (of 10)"
    assert index_set([1, 9, 17], 20, "row") == "every 8th row from row 1 (3 of 20)"
    assert index_set(list(range(5)), 5, "row") == "all 5 rows"
    assert index_set([2], 5) == "element 2 only (of 5)"
    assert index_set([0, 3, 4, 9], 10) == "elements 0, 3, 4, 9 (4 of 10)"


def test_a_constant_factor_is_said_with_its_value():
    found = _kinds("sum_atomic", _sums(lambda n: 0.5))
    assert "1/2" in found["factor"]


def test_a_factor_that_follows_the_length_is_said_as_n():
    found = _kinds("sum_atomic", _sums(lambda n: n))
    assert found["factor"].startswith("every wrong value is n times")
    found = _kinds("sum_atomic", _sums(lambda n: (n - 1) / n))
    assert "(n - 1) / n times" in found["factor"]


def test_a_relation_that_fails_on_one_failing_case_is_not_said():
    runs = _sums(lambda n: 2.0)
    runs[-1] = _run("sum_atomic", runs[-1].case.inputs, lambda e: 3 * e)  # another factor here
    found = _kinds("sum_atomic", runs)
    assert "factor" not in found and "offset" not in found
    assert "size" in found  # only what is true of all: the size of the errors


def test_a_value_rounded_through_float16_is_said():
    runs = [
        _run("sum_atomic", (values(n, "mixed", seed=n),), lambda e: e.half().double()) for n in (100, 1000)
    ]
    assert _kinds("sum_atomic", runs)["rounded"] == "every wrong value is the right one rounded to float16"


def test_a_count_wrapped_like_an_8_bit_integer_is_said():
    runs = [
        _run("count_nonzero", (values(n, "sparse", seed=n),), lambda e: torch.remainder(e, 256.0))
        for n in (1000, 3001)
    ]
    assert "wrapped around 2^8" in _kinds("count_nonzero", runs)["wrapped"]


def test_a_function_of_the_right_value_is_said():
    runs = [_run("l2_norm", (values(n, "positive", seed=n),), lambda e: e * e) for n in (100, 1000)]
    assert _kinds("l2_norm", runs)["function"] == "every wrong value is the square of the right value"


def test_rows_holding_another_rows_values_are_said():
    def shifted(e):
        return e.roll(1, dims=0)  # row i holds row i - 1's, the first row the last's

    x = values(6 * 5, "mixed", seed=1).view(6, 5)
    runs = [_run("softmax", (x,), shifted, out_shape=(6, 5))]
    text = _kinds("softmax", runs)["other_row"]
    assert "row i holds row i - 1's" in text and "counting round" in text
    runs = [_run("softmax", (x,), lambda e: e[:1].expand(6, 5), out_shape=(6, 5))]
    assert _kinds("softmax", runs)["other_row"] == "every wrong row holds row 0's right values"
    runs = [_run("softmax", (x,), lambda e: e.flip(0), out_shape=(6, 5))]
    assert "row i holds row n - 1 - i's, the order reversed" in _kinds("softmax", runs)["other_row"]


def test_a_row_sum_written_in_reverse_order_is_said():
    x = values(7 * 9, "mixed", seed=3).view(7, 9)
    runs = [_run("row_sum", (x,), lambda e: e.flip(0), out_shape=(7,))]
    text = _kinds("row_sum", runs)["other_row"]
    assert text == (
        "every wrong element holds the right value of another element: "
        "element i holds element n - 1 - i's, the order reversed"
    )
    runs = [_run("row_sum", (x,), lambda e: e + 1.0, out_shape=(7,))]
    assert "other_row" not in _kinds("row_sum", runs)


def test_inputs_swapped_are_said():
    x = values(4 * 7, "mixed", seed=2).view(4, 7)
    w, b = values(7, "positive", seed=3), values(7, "mixed", seed=4)
    exercise = EXERCISES["layer_norm"]
    runs = [
        _run(
            "layer_norm", (x, w, b), exercise.reference(x.double(), b.double(), w.double()), out_shape=(4, 7)
        )
    ]
    # named as the signature names them
    assert (
        _kinds("layer_norm", runs)["inputs"] == "the result is the right answer with weight and bias swapped"
    )


def test_wrong_elements_laid_out_by_blocks_are_said():
    def tail_zeroed(n):
        def got(e):
            e = e.clone()
            e[n - n % 256 :] = 0.0
            return e

        return got

    runs = [
        _run(
            "vector_add",
            (values(n, "positive", seed=n), values(n, "positive", seed=n + 1)),
            tail_zeroed(n),
            (n,),
        )
        for n in (1000, 3000)
    ]
    found = _kinds("vector_add", runs)
    assert "last (length mod 256)" in found["block"]


def test_a_tail_that_fits_many_blocks_names_their_range_not_one():
    """Only the last element wrong at N = 1,025: one past a block of 16 and of every power of two up to
    1,024 alike (an unseen copy whose grid was cdiv(n - 1, 1024)). Naming the block of 16 alone named a
    cause the results do not prove."""
    n = 1025
    x = values(n, "positive", seed=n)
    run = _run("copy", (x,), lambda e: torch.cat([e[:-1], torch.full((1,), GARBAGE, dtype=e.dtype)]), (n,))
    block = _kinds("copy", [run])["block"]
    assert "for every power of two B from 16 to 1,024 alike" in block, block
    assert "last (length mod 16)" not in block, block


def test_never_written_elements_are_said():
    x = values(300, "positive", seed=5)
    got = lambda e: torch.cat([e[:100], torch.full((200,), GARBAGE, dtype=torch.float64)])  # noqa: E731
    runs = [_run("vector_add", (x, x), got, (300,))]
    texts = [f.text for f in describe(EXERCISES["vector_add"], runs, runs)]
    assert any(
        "the last 200 elements" in t and "all of them still hold out's value from before the call" in t
        for t in texts
    ), texts


def test_a_one_value_out_never_written_is_said_with_its_cases():
    unwritten = [
        _run("sum_atomic", (values(n, "mixed", seed=n),), torch.full((1,), GARBAGE)) for n in (5, 700)
    ]
    written = _run("sum_atomic", (values(9, "mixed", seed=9),), lambda e: 2 * e)
    said = [f.text for f in describe(EXERCISES["sum_atomic"], unwritten, unwritten)]
    held = "never written, or written back with it (a max or a sum that took out's old value in)"
    assert f"out still holds its value from before the call in every failing case: {held}" in said
    runs = [*unwritten, written]
    said = [f.text for f in describe(EXERCISES["sum_atomic"], runs, runs) if f.kind == "where"]
    assert said == [f"out still holds its value from before the call in 'N=5', 'N=700': {held}"]


def test_an_all_zero_result_is_said_as_zero_not_as_a_factor():
    """0 times the right value is no relation a mistake of arithmetic makes as such (an overflow to inf
    divided into, a reset after the launch): said plainly, and not as a structure that rules out a trait."""
    found = describe(EXERCISES["sum_atomic"], (runs := _sums(lambda n: 0.0)), runs)
    zero = [f for f in found if f.kind == "zero"]
    assert [f.text for f in zero] == ["every wrong value is 0"] and not any(f.structural for f in found)


def test_a_factor_is_read_off_the_large_values_and_holds_near_zero_ones():
    """A row sum near 0 doubled in float32 is no exact double of the float64 value: the factor is read
    off the large values and checked against the case's scale, not element by element."""
    x = values(40 * 64, "mixed", seed=6).view(40, 64)

    def doubled(e):
        return (2 * e.float()).double() + 1e-9  # float32 arithmetic on the way, and a hair of noise

    runs = [_run("row_sum", (x,), doubled, out_shape=(40,))]
    assert "2 times the right one" in _kinds("row_sum", runs)["factor"]


def test_runs_with_right_values_that_wrote_outside_out_are_not_described_as_wrong():
    """A copy without a mask on a GPU: every value right, the canaries around out overwritten. There is
    no wrong value to locate or relate, so the description says nothing of them, and does not fail."""
    from utils.checker import second_looks

    exercise = EXERCISES["copy"]
    runs = []
    for case in exercise.cases(False):
        expected = exercise.reference(*(x.double() for x in case.inputs), **case.kwargs)
        runs.append(Run(case, expected.clone(), expected, GARBAGE, False, (), None))
    assert second_looks.described(exercise, runs, runs) == []  # before: "could not describe: IndexError"
    # the split by size is still said: it is about which cases failed, not about values
    kinds = [finding.kind for finding in second_looks.described(exercise, runs, runs[3:])]
    assert kinds == ["cases"]


def test_cases_not_listed_are_counted_as_left_out_only_where_they_would_have_been_listed():
    """Failing cases whose every row is wrong in columns of its own get no line of their own (the table says
    as much): the "... and N more" line counts only cases that would have had one."""

    def scattered(k):  # row r wrong in column (r + k) % 8 only
        def got(e):
            e = e.clone()
            for r in range(4):
                e[r, (r + k) % 8] += 1.0
            return e

        return got

    def first_row_wrong(e):
        e = e.clone()
        e[0] += 1.0
        return e

    x = values(32, "mixed", seed=3).view(4, 8)
    runs = [_run("softmax", (x,), scattered(k), (4, 8)) for k in range(5)]
    runs.append(_run("softmax", (x,), first_row_wrong, (4, 8)))
    texts = [f.text for f in describe(EXERCISES["softmax"], runs, runs) if f.kind == "where"]
    assert not any("more failing cases" in t for t in texts), texts
    assert any("wrong in row 0" in t for t in texts), texts
    assert not any("row 0 only" in t and "of each" in t for t in texts), texts  # one row: no "of each"


def test_a_result_that_changes_in_the_same_order_is_not_blamed_on_the_order():
    """second_looks.order runs a failing case again in the same order first: a result that changes there
    (memory no program wrote) is said as such, and the programs' order is not blamed."""
    from dataclasses import replace

    from utils.checker import second_looks

    x = values(300, "positive", seed=5)
    run = _run("vector_add", (x, x), lambda e: e + 1.0, (300,))
    calls = []

    def rerun(case, seed, stages=None):  # a different wrong result on every call
        calls.append(seed)
        return replace(run, result=run.result + len(calls))

    found = second_looks.order(EXERCISES["vector_add"], rerun, [run], [run])
    assert [f.kind for f in found] == ["rerun"], found
    assert "same order" in found[0].text and "reverse" not in found[0].text

    steady = second_looks.order(EXERCISES["vector_add"], lambda case, seed, stages=None: run, [run], [run])
    assert steady == []  # the same result in either order: nothing to say


def test_a_case_right_before_and_wrong_when_run_again_is_said():
    """second_looks.passed_before runs again the smallest case that passed before the first failure: wrong
    now, the result depends on the calls made before; right again, nothing is said."""
    from dataclasses import replace

    from utils.checker import second_looks

    x = values(300, "positive", seed=5)
    passed = _run("vector_add", (x, x), lambda e: e, (300,))
    failed = _run("vector_add", (x, x), lambda e: e + 1.0, (300,))
    exercise = EXERCISES["vector_add"]
    wrong_now = replace(passed, result=passed.result + 1.0)
    found = second_looks.passed_before(
        exercise, lambda case, seed, stages=None: wrong_now, [passed, failed], [failed]
    )
    assert [f.kind for f in found] == ["state"], found
    assert "depends on the calls made before" in found[0].text
    right_again = second_looks.passed_before(
        exercise, lambda case, seed, stages=None: passed, [passed, failed], [failed]
    )
    assert right_again == []
    assert (
        second_looks.passed_before(exercise, lambda case, seed, stages=None: wrong_now, [failed], [failed])
        == []
    )


def _softmax_runs(shapes, wrong_if):
    """softmax runs of the given (rows, cols) shapes: a row sum 1.01 times the right one where wrong_if."""
    runs = []
    for i, (rows, cols) in enumerate(shapes):
        x = values(rows * cols, "mixed", seed=i).view(rows, cols)
        scale = 1.01 if wrong_if(rows, cols) else 1.0
        runs.append(_run("softmax", (x,), lambda e, s=scale: s * e, (rows, cols)))
    return runs


def test_a_split_by_a_multiple_is_said():
    """Cases that fail exactly where a length is not a power of two, or not a multiple of k, and pass where
    it is, are said so; the split is a fact of the battery, said only when it holds both ways."""
    from utils.checker.splits import which_cases

    shapes = [(3, 5), (2, 8), (4, 300), (2, 64), (7, 1000), (5, 128)]
    runs = _softmax_runs(shapes, lambda rows, cols: cols & (cols - 1) != 0)
    failing = [r for r in runs if not torch.equal(r.result, r.expected)]
    texts = [f.text for f in which_cases(runs, failing)]
    assert (
        "every failing case's number of columns is not a power of two, and every passing case's is" in texts
    )

    shapes = [(3, 5), (4, 6), (8, 7), (6, 9), (5, 11), (12, 13)]  # no size split: rows 3, 5, 6 fail, 4 passes
    runs = _softmax_runs(shapes, lambda rows, cols: rows % 4 != 0)
    failing = [r for r in runs if not torch.equal(r.result, r.expected)]
    texts = [f.text for f in which_cases(runs, failing)]
    assert "every failing case's number of rows is not a multiple of 4, and every passing case's is" in texts

    runs = _softmax_runs(shapes, lambda rows, cols: rows in (3, 4, 6))  # 4 breaks the split: nothing said
    failing = [r for r in runs if not torch.equal(r.result, r.expected)]
    assert not any("multiple" in f.text or "power" in f.text for f in which_cases(runs, failing))

    # the other way round: only lengths that are multiples of 2,048 fail (a loop one tile short), 1,024 passes
    lengths = [1, 100, 1024, 2048, 3000, 4096, 6000, 65536]
    runs = [
        _run("sum_atomic", (values(n, "positive", seed=n),), lambda e, n=n: e if n % 2048 else e - 1)
        for n in lengths
    ]
    failing = [r for r in runs if not torch.equal(r.result, r.expected)]
    texts = [f.text for f in which_cases(runs, failing)]
    assert "every failing case's number of elements is a multiple of 2,048, and no passing case's is" in texts
    runs[4] = _run(
        "sum_atomic", runs[4].case.inputs, lambda e: e - 1
    )  # 3,000 fails too: their gcd 8 divides 1,024
    failing = [r for r in runs if not torch.equal(r.result, r.expected)]
    assert not any("multiple" in f.text for f in which_cases(runs, failing))


def test_columns_left_unwritten_in_rows_wrong_throughout_are_said():
    """Every row wrong in columns of its own, and the last 3 columns of each never written (a tile capped
    below the row's length): the line for the case says which columns were left, where the table alone
    would not; and so it does when every element is wrong."""

    def capped(e):
        e = e * 1.01
        e[0, 1], e[1, 2] = e[0, 1] / 1.01, e[1, 2] / 1.01  # right by chance, as some are in a real run
        e[:, -3:] = GARBAGE
        return e

    x = values(2 * 40, "mixed", seed=1).view(2, 40)
    runs = [_run("softmax", (x,), capped, (2, 40))]
    texts = [f.text for f in describe(EXERCISES["softmax"], runs, runs) if f.kind == "where"]
    assert any(
        "6 of the wrong elements still hold out's value from before the call" in t
        and "the last 3 columns (from column 37 of 40)" in t
        for t in texts
    ), texts
    runs = [
        _run("softmax", (x,), lambda e: torch.cat([e[:, :-3] * 1.01, e[:, -3:] * 0 + GARBAGE], 1), (2, 40))
    ]
    texts = [f.text for f in describe(EXERCISES["softmax"], runs, runs) if f.kind == "where"]
    assert any("the last 3 columns (from column 37 of 40) of each row" in t for t in texts), texts


def test_partials_are_judged_only_where_they_prove_something():
    """A scratch of right per-tile maxima says the error comes after it, unless the launch also wrote an
    integer scratch larger than a ticket (an argmax's indices, not judged), and tiles whose partials are all
    equal (zeros, ties) prove nothing."""
    from utils.checker.stages import Stage, partials_finding

    x = values(4000, "mixed", seed=3).double()
    maxima = torch.stack([t.max() for t in x.split(1024)])
    found = partials_finding(x, [Stage("partial_max", (4,), [maxima])])
    assert found is not None and "right maximum of each tile of 1024 elements" in found[0] and found[1]
    indices = torch.zeros(4, dtype=torch.int32)
    _, every = partials_finding(x, [Stage("partial_argmax", (4,), [maxima], [indices])])
    assert not every
    ticket = torch.zeros(1, dtype=torch.int32)
    assert partials_finding(x, [Stage("one_launch", (4,), [maxima], [ticket])])[1]
    zeros = torch.zeros(4000, dtype=torch.float64)
    assert partials_finding(zeros, [Stage("partial_max", (4,), [torch.zeros(4)])]) is None


def _layer_norm_dx_runs(scale_row):
    """Failing layer_norm_dx runs on two shapes, each row of dx scaled by scale_row(rstd)[row]."""
    runs = []
    for rows, cols, seed in ((6, 9, 5), (4, 33, 6)):
        x = values(rows * cols, "mixed", seed=seed).view(rows, cols)
        w, dy = (
            values(cols, "positive", seed=seed + 1),
            values(rows * cols, "mixed", seed=seed + 2).view(rows, cols),
        )
        mean = x.mean(1)
        rstd = 1 / (x.var(1, unbiased=False) + 1e-5).sqrt()
        factor = scale_row(rstd.double())[:, None]
        runs.append(
            _run("layer_norm_dx", (x, w, dy, mean, rstd), lambda e, f=factor: e * f, out_shape=(rows, cols))
        )
    return runs


def test_rows_scaled_by_a_number_of_their_own_are_said_and_named_by_the_input_it_is():
    said = _kinds("layer_norm_dx", _layer_norm_dx_runs(lambda rstd: rstd))["row_factor"]
    assert said == "every wrong row is its right values times a number of its own, that row's rstd"
    said = _kinds("layer_norm_dx", _layer_norm_dx_runs(lambda rstd: 1 / rstd))["row_factor"]
    assert said.endswith("that row's 1 / rstd")
    # factors that are no input's: said with their range, no input named
    said = _kinds("layer_norm_dx", _layer_norm_dx_runs(lambda rstd: 2 + torch.arange(len(rstd))))[
        "row_factor"
    ]
    assert said.endswith("from 2 to 7 over the wrong rows")


def test_rows_scaled_are_not_said_when_one_row_is_not_a_multiple_or_all_share_one_factor():
    runs = _layer_norm_dx_runs(lambda rstd: rstd)
    runs[1].result[2] += 0.5  # one row of the second case is its scaled values plus an offset: no relation
    assert "row_factor" not in _kinds("layer_norm_dx", runs)
    kinds = _kinds("layer_norm_dx", _layer_norm_dx_runs(lambda rstd: torch.full_like(rstd, 3.0)))
    assert "row_factor" not in kinds and kinds["factor"] == "every wrong value is 3 times the right one"
    # rows of one column: any value is a multiple of another, so nothing is said
    x = values(5, "mixed", seed=9).view(5, 1)
    runs = [_run("softmax", (x,), lambda e: e * torch.arange(1.0, 6.0)[:, None].double(), out_shape=(5, 1))]
    assert "row_factor" not in _kinds("softmax", runs)


def test_a_result_that_is_an_earlier_calls_answer_for_its_keywords_or_dtype_is_said():
    """After a passing call of the same shape with eps=1e-3 (or in float16), a failing call whose whole result
    is the right answer for that eps (or rounded through float16) is said to meet what that call left;
    a result that is only wrong is not."""
    from utils.checker.splits import after_same_shape

    exercise = EXERCISES["layer_norm"]
    x = values(5 * 40, "mixed", seed=7).view(5, 40) * 0.03
    w, b = values(40, "positive", seed=8), values(40, "mixed", seed=9)

    def run(case, result):
        expected = exercise.reference(*(t.double() for t in case.inputs), **case.kwargs)
        return Run(case, result.double(), expected, GARBAGE, True, (), None)

    first = Case("with eps=1e-3", (x, w, b), (5, 40), keywords=(("eps", 1e-3),))
    x2 = values(5 * 40, "mixed", seed=11).view(5, 40) * 0.03  # other data: out's old values say nothing
    second = Case("default eps", (x2, w, b), (5, 40))
    before = run(first, exercise.reference(x.double(), w.double(), b.double(), eps=1e-3))
    kept = run(second, exercise.reference(x2.double(), w.double(), b.double(), eps=1e-3))
    said = after_same_shape(exercise, [before, kept], [kept])
    assert (
        len(said) == 1
        and "is the right answer for the keywords (eps=0.001) of 'with eps=1e-3'" in said[0].text
    )
    wrong = run(second, kept.expected * 1.01)
    assert after_same_shape(exercise, [before, wrong], [wrong]) == []

    softmax = EXERCISES["softmax"]
    y = values(4 * 30, "mixed", seed=10).view(4, 30)
    half = Case(
        "float16", (values(4 * 30, "mixed", seed=12).view(4, 30).half(),), (4, 30), out_dtype=torch.float16
    )
    single = Case("float32", (y,), (4, 30))
    through_half = torch.softmax(y.half().double(), 1).half()
    runs = [
        Run(
            half,
            torch.softmax(half.inputs[0].double(), 1),
            torch.softmax(half.inputs[0].double(), 1),
            GARBAGE,
            True,
            (),
            None,
        ),
        Run(single, through_half.double(), torch.softmax(y.double(), 1), GARBAGE, True, (), None),
    ]
    said = after_same_shape(softmax, runs, runs[1:])
    assert (
        len(said) == 1 and "the right answer in float16 (each value one that float16 holds)" in said[0].text
    )
    runs[1] = Run(single, runs[1].expected + 1e-6, runs[1].expected, GARBAGE, True, (), None)
    assert after_same_shape(softmax, runs, runs[1:]) == []


def test_a_result_of_a_prefix_of_x_is_said_with_its_length():
    def first(k):
        return lambda x: x[:k].double().amax().reshape(1)

    xs = [values(n, "ascending", seed=n) for n in (5000, 7000)]  # every prefix has a maximum of its own
    runs = [_run("max_two_stage", (x,), first(4096)(x)) for x in xs]
    assert (
        _kinds("max_two_stage", runs)["inputs"]
        == "the result is the right answer for x's first 4,096 elements only"
    )
    # a different prefix in each case: no one length to name
    runs = [_run("max_two_stage", (x,), first(k)(x)) for x, k in zip(xs, (4096, 2048))]
    assert "inputs" not in _kinds("max_two_stage", runs)


def test_a_scratchs_slots_past_the_tiles_are_blamed_on_a_combine_only_where_out_was_written():
    """A scratch holding each tile's right partial and other values past them: "a combine that reads every
    slot takes them in" only where out was written; where no program stored into out, no combine ran."""
    from utils.checker.stages import Stage, partials_finding

    x = torch.arange(1.0, 129.0, dtype=torch.float64)
    scratch = torch.cat([x.view(4, 32).sum(1), torch.tensor([7.0, 9.0], dtype=torch.float64)]).float()
    stage = Stage(kernel="k", grid=(6,), scratch=[scratch])
    written, _ = partials_finding(x, [stage])
    unwritten, _ = partials_finding(x, [stage], out_written=False)
    assert "in its other 2 values that are no tile's" in written and "takes them in" in written, written
    assert "in its other 2 values that are no tile's" in unwritten and "takes them in" not in unwritten, (
        unwritten
    )
