"""The course's public home, written from one setting: `COURSE_REPO` and `COURSE_BRANCH` in utils.setup.

A learner meets the course's address in three places: the set-up cell that opens every notebook (on
Colab it clones the course), the Colab badge of each notebook in README.md, and the clone command of
the workshop guide. `rewritten()` gives each file that holds one, with the address the setting names;
`python -m utils.release` writes them (the solution notebooks' set-up cells before the learner
notebooks are made from them) and `python -m utils.release --check` lists the ones that differ. To move
the course, change the setting and run the release tool.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from utils import setup as setting  # read at each call, so that a changed setting is seen
from utils.notebooks import solution_paths

# A Colab badge's target, whatever repository and branch it names now; group 1: the notebook's file name.
_BADGE = re.compile(
    r"https://colab\.research\.google\.com/github/[^)\s]+?/blob/[^/)\s]+/notebooks/([\w.-]+\.ipynb)"
)
_CLONE = re.compile(r"git clone (?:--branch \S+ )?https://\S+")


def badge_target(notebook: str) -> str:
    """Where the Colab badge of notebooks/<notebook> points: that notebook in the course's repository,
    on its branch."""
    repository = setting.COURSE_REPO.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repository}/blob/{setting.COURSE_BRANCH}/notebooks/{notebook}"


def clone_command() -> str:
    return f"git clone --branch {setting.COURSE_BRANCH} {setting.COURSE_REPO}"


def _with_setup_cell(path: Path) -> str | None:
    """A solution notebook's text with the set-up cell (utils.setup.setup_cell) as its first code cell;
    None if its first code cell is not a set-up cell (one that starts with the set-up cell's first line)."""
    nb = nbformat.read(str(path), as_version=4)
    cell = setting.setup_cell(setting.COURSE_REPO, setting.COURSE_BRANCH)
    first = next((c for c in nb.cells if c.cell_type == "code"), None)
    if first is None or not first.source.startswith(cell.splitlines()[0]):
        return None
    first.source = cell
    return nbformat.writes(nb) + "\n"


def rewritten(root: Path) -> dict[Path, str]:
    """{file: its text with the course's address taken from the setting}, for every file under `root`
    that holds it (a folder without README.md or docs/workshop.md has fewer)."""
    texts = {path: text for path in solution_paths(root) if (text := _with_setup_cell(path)) is not None}
    readme, guide = root / "README.md", root / "docs" / "workshop.md"
    if readme.exists():
        texts[readme] = _BADGE.sub(lambda m: badge_target(m.group(1)), readme.read_text(encoding="utf-8"))
    if guide.exists():
        texts[guide] = _CLONE.sub(clone_command(), guide.read_text(encoding="utf-8"))
    return texts


def stale(root: Path) -> list[Path]:
    """The files whose address differs from the setting's."""
    return [path for path, text in rewritten(root).items() if path.read_text(encoding="utf-8") != text]
