"""The checker: runs a learner's host function on its exercise's battery, judges it, and explains failures.

Learners call it through utils.check. Its modules, each with one job, import one another without a cycle
(tests/test_layout.py):

- `messages`: the sentences a learner reads; `tolerance`: the sum tolerance, measured on each case;
- `model`: Case, Exercise, Mistake, and predictions (what a mistake would have produced);
- `data`: the batteries' input data; `families/`: the exercises, by family, with their predictions;
- `judge`: right or wrong, and does a prediction explain a run; `diagnose`: naming the mistake;
- `relations` and `describe`: what the wrong results show, true by construction;
- `stages` and `second_looks`: what each launch left in its scratch, programs run in reverse, probes;
- `bounds` and `access`: a far out-of-bounds access in the interpreter, caught before it happens and
  traced to its argument; `errors`: that and any exception, as a report;
- `report`: the report's table; `probes`: the state probe and bit-identity; `runner`: `check` itself.

`python -m utils.checker` prints the catalogue of exercises and the mistakes each names.
"""
