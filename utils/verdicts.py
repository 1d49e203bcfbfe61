"""The words a cell prints for what it measured: a value against its bands (`verdict`), a ratio of rates
against the band for "level" (`standing`), how much a run moved (`run_variation`), and a sweep's goal line
(`goal_line`). The notebooks' findings read as one line each; the thresholds stand beside their words.
Two sets of timed rounds are compared by `utils.bench.compare`, beside the rounds it reads.
"""

from __future__ import annotations


def verdict(value: float, bands: list[tuple[float, str]], otherwise: str) -> str:
    """The words for a measured value: those of the first band whose limit `value` is under, bands listed
    from the lowest limit up; `otherwise` at or above every limit. A notebook's finding then reads as one
    line, its thresholds beside their words:
    `verdict(ratio, [(0.1, "removes nearly all of it"), (0.5, "removes part of it")], "leaves most of it")`.
    """
    limits = [limit for limit, _ in bands]
    if limits != sorted(limits):
        raise ValueError(f"bands must be listed from the lowest limit up, not {limits}")
    return next((words for limit, words in bands if value < limit), otherwise)


LEVEL_BAND = 0.01  # the course's band for "level": rates within 1% of each other (notebook 08)


def standing(ratio: float, band: float = LEVEL_BAND) -> str:
    """A ratio of rates (yours / theirs) as the sweeps' tables read it: "ahead", "level" within `band` of 1,
    or "behind". Pass the run's own variation as `band` where it is wider than 1%: a difference the run
    cannot resolve is level."""
    return verdict(ratio, [(1 - band, "behind"), (1 + band, "level")], "ahead")


def run_variation(rates: list[float]) -> float:
    """How much a rate that should not change moved across a run (the copy's GB/s, timed beside every row
    of a sweep): max / min - 1. A ratio nearer 1 than this is within the run's own variation."""
    return max(rates) / min(rates) - 1


def goal_line(goal: str, shortfalls: dict[str, float], variation: float) -> str:
    """The sweep's goal line, `goal (...): met` or not. `shortfalls` holds the points outside the goal's
    band, each with its ratio to what the goal asks (0.988 for 0.988x the fastest peer; share / 0.9 for a
    share of the copy where nine tenths are asked). A ratio within the run's `variation` of 1 is not a
    measured miss: the line then calls the goal met within the run's variation and names those points, so
    that the reader sees both the band the goal asks for and the one the run could resolve.
    """
    beyond = [what for what, ratio in shortfalls.items() if ratio < 1 - variation]
    within = [what for what, ratio in shortfalls.items() if ratio >= 1 - variation]
    if beyond:
        rest = f"; outside the band by less than the run's variation ({variation:.1%}): " if within else ""
        return f"goal ({goal}): not met: " + "; ".join(beyond) + rest + "; ".join(within)
    if within:
        return (
            f"goal ({goal}): met within the run's variation ({variation:.1%}); outside the band by less than "
            "that: " + "; ".join(within)
        )
    return f"goal ({goal}): met"
