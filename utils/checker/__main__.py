"""`python -m utils.checker`: the catalogue of exercises as a Markdown table (id, family, signature,
what it asks, the mistakes it diagnoses), for CONTRIBUTING.md and for instructors choosing exercises."""

from utils.checker.families import EXERCISES
from utils.checker.keys import KEY_EXERCISES, MISTAKES
from utils.checker.messages import ENGINE_MISTAKES


def catalogue() -> str:
    rows = [
        "| id | family | signature | what it asks | mistakes it names (besides the checker's own) |",
        "|---|---|---|---|---|",
    ]
    for exercise in EXERCISES.values():
        family = exercise.predictions.__module__.rsplit(".", 1)[-1]
        codes = ", ".join(f"`{code}`" for code in exercise.mistakes if code not in ENGINE_MISTAKES)
        rows.append(
            f"| `{exercise.id}` | {family} | `{exercise.signature}` | {exercise.description} | {codes} |"
        )
    key_codes = ", ".join(f"`{code}`" for code in MISTAKES)
    for key in KEY_EXERCISES.values():  # judged by the keys it gives on pairs of calls (utils.checker.keys)
        rows.append(f"| `{key.id}` | keys | `{key.signature}` | {key.description} | {key_codes} |")
    engine = ", ".join(f"`{code}`" for code in ENGINE_MISTAKES)
    return "\n".join(rows) + f"\n\nThe checker's own, for every exercise: {engine}, and `exception`."


if __name__ == "__main__":
    print(catalogue())
