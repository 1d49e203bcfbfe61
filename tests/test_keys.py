"""utils.checker.keys: exercise 3 of notebook 07, a cache key judged by the keys it gives on pairs of
calls, against right and wrong submissions (tests/submissions/sum_eager_key.py)."""

from __future__ import annotations

import pytest

from tests.submissions import sum_eager_key as submissions
from utils.check import ExerciseFailed, check
from utils.checker.keys import KEY_EXERCISES, PAIRS
from utils.launch import argument_key


@pytest.mark.parametrize("key", submissions.CORRECT, ids=lambda f: f.__name__)
def test_a_right_key_passes(key, capsys):
    assert check("sum_eager_key", key) is True
    assert "all 26 pairs keyed as the JIT compiles them" in capsys.readouterr().out


@pytest.mark.parametrize(
    "key, codes, phrase", submissions.WRONG, ids=[wrong[0].__name__ for wrong in submissions.WRONG]
)
def test_a_wrong_key_gets_its_diagnosis(key, codes, phrase):
    with pytest.raises(ExerciseFailed) as failed:
        check("sum_eager_key", key)
    assert failed.value.diagnoses == codes
    assert phrase in str(failed.value)


def test_a_stub_is_not_attempted_yet(capsys):
    assert check("sum_eager_key", submissions.not_attempted) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_each_pair_is_judged_as_the_launchers_key_judges_it():
    """The pairs' verdicts agree with utils.launch's key, which holds what the JIT specialises on, so
    the two cannot drift apart."""
    for i, pair in enumerate(PAIRS):
        first = pair.first.build("cpu", seed=0)
        if pair.between == "new":
            second = pair.second.build("cpu", seed=1)
        else:
            second = first

        def key(arguments):
            x, out, n, partials_block = arguments
            return (argument_key(x, False), argument_key(out, False), argument_key(n, False), partials_block)

        assert (key(first) == key(second)) == pair.share, f"pair {i}: {pair.differs}"


def test_the_pairs_each_differ_in_something_else():
    assert len({pair.differs for pair in PAIRS}) == len(PAIRS) == 26
    assert {pair.share for pair in PAIRS} == {True, False}


def test_an_unknown_exercise_names_the_key_exercises_too():
    with pytest.raises(ValueError, match="sum_eager_key"):
        check("sum_eager_keys", submissions.by_address)
    assert set(KEY_EXERCISES) == {"sum_eager_key"}
