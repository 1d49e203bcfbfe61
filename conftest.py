"""Pytest set-up for the whole repository (tests/, notebooks/, solutions/): how pytest-xdist spreads the
tests over its workers. tests/conftest.py holds what only the unit tests need."""

# The modules whose tests are many, independent and slow (each a checker battery in the interpreter):
# spread over the workers one test at a time. Scheduled by module, as --dist loadscope does, they kept
# one worker busy for minutes after the other had finished (measured on two cores: 10 min 38 s of wall
# time for 14 min 54 s of work).
SPREAD_MODULES = {"test_check.py", "test_exercises.py"}


def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's --dist loadscope, except for SPREAD_MODULES: a notebook's cells (nbval), a class's
    tests (tests/test_rerun.py: one class per notebook) and a module's tests stay on one worker, in
    order, since they share a kernel or fixtures; the largest scopes start first; each test of
    SPREAD_MODULES is a scope of its own, sent to whichever worker is free.

    Not --dist loadgroup with xdist_group marks: under pytest 9.2 it silently stops grouping
    (pytest-dev/pytest-xdist#1386), and the notebooks' cells then run in kernels of their own."""
    from xdist.scheduler import LoadScopeScheduling

    class Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.split("::", 1)[0].rsplit("/", 1)[-1] in SPREAD_MODULES:
                return nodeid
            return super()._split_scope(nodeid)

    return Scheduling(config, log)
