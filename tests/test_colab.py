"""Colab readiness: the badges, the clone in the set-up cell, and a notebook opened on its own.

On Colab a learner opens one notebook from its README badge, with no checkout around it; the set-up cell
clones the course into /content/course and imports utils/ from there. These tests keep the badges and
that clone on the same repository and branch, run the cell as Colab would (in a fresh process, in an
empty folder, with `google.colab` imported and the clone served from a local repository instead of
GitHub), and make sure no notebook installs anything: Colab's torch is built for one exact triton.
"""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import torch

from utils.notebooks import learner_paths, solution_paths
from utils.setup import COURSE_BRANCH, COURSE_REPO, SETUP_CELL

ROOT = Path(__file__).resolve().parent.parent
LEARNER = learner_paths()
SOLUTIONS = solution_paths()
BADGE = re.compile(r"\(https://colab\.research\.google\.com/github/([^)\s]+)\)")
COLAB_COPY = 'COLAB_COPY = "/content/course"'  # where the cell clones to on Colab (cwd there is /content)


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _badges() -> list[tuple[str, str]]:
    """(README line, badge target) for every Open-in-Colab badge."""
    lines = (ROOT / "README.md").read_text().splitlines()
    return [(line, target) for line in lines for target in BADGE.findall(line)]


# --- Badges and the clone: same repository, same branch -------------------------------------------------


def test_one_badge_per_learner_notebook_on_the_branch_the_setup_cell_clones():
    assert LEARNER, "no notebooks in notebooks/"
    assert COURSE_REPO.startswith("https://github.com/"), "Colab's /github/ badges open GitHub repositories"
    slug = COURSE_REPO.removeprefix("https://github.com/")
    targets = sorted(target for _, target in _badges())
    # Learner versions only (solutions/ would give the answers away), each exactly once, from the
    # repository and branch that the set-up cell clones, so a badge can never open a notebook whose
    # utils/ come from elsewhere.
    wanted = [f"{slug}/blob/{COURSE_BRANCH}/notebooks/{path.name}" for path in LEARNER]
    extra, missing = sorted(set(targets) - set(wanted)), sorted(set(wanted) - set(targets))
    assert targets == wanted, f"wrong badges: {extra}; missing: {missing}; {len(targets)} badges in all"


def test_each_badge_sits_in_the_row_of_its_notebook():
    prefix = f"/blob/{COURSE_BRANCH}/"
    for line, target in _badges():
        linked = re.findall(r"\]\((notebooks/[^)\s]+\.ipynb)\)", line)
        assert linked == [target.split(prefix, 1)[1]], f"row links one notebook, badges another:\n{line}"


def _clone_command() -> list:
    """The `git clone` argument list of SETUP_CELL, names (REPO, COLAB_COPY) resolved to their values."""
    tree = ast.parse(SETUP_CELL)
    names = {
        node.targets[0].id: node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
    }
    commands = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.List)
        and [getattr(e, "value", None) for e in node.elts[:2]] == ["git", "clone"]
    ]
    assert len(commands) == 1, "the set-up cell should hold exactly one `git clone`"
    return [e.value if isinstance(e, ast.Constant) else names[e.id] for e in commands[0].elts]


def test_the_setup_cell_clones_a_fixed_branch_shallowly():
    assert COURSE_BRANCH and COURSE_BRANCH != "HEAD" and not COURSE_BRANCH.startswith("-")
    assert _clone_command() == [
        "git",
        "clone",
        "--depth=1",
        f"--branch={COURSE_BRANCH}",
        COURSE_REPO,
        "/content/course",
    ]


# --- Nothing installs anything ----------------------------------------------------------------------------

INSTALL = re.compile(r"\b(pip3?|conda|mamba|micromamba|uv)\b.*\b(install|add)\b", re.IGNORECASE)
PIP = re.compile(r"\bpip3?\b")


def _install_lines(path: Path, cell_types: tuple[str, ...]) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [
        line.strip()
        for cell in nb.cells
        if cell.cell_type in cell_types
        for line in cell.source.splitlines()
        if INSTALL.search(line)
    ]


@pytest.mark.parametrize("path", LEARNER + SOLUTIONS, ids=_id)
def test_no_notebook_installs_anything(path):
    # On Colab, installing torch or triton replaces the pair Colab's torch was built for: never, in
    # any cell, not even as an instruction in the text.
    everywhere = _install_lines(path, ("code", "markdown", "raw"))
    assert not [line for line in everywhere if re.search(r"torch|triton", line, re.IGNORECASE)], (
        f"{_id(path)} installs torch or triton: {everywhere}"
    )
    # Nor anything else, so far: everything the notebooks import comes with Colab (and with
    # requirements.txt elsewhere). Relax this line, not the one above, if that ever changes.
    assert not _install_lines(path, ("code",)), f"{_id(path)} installs packages from a code cell"


def test_the_setup_cell_installs_nothing():
    # Stricter than for the notebooks: the cell does not even mention pip.
    assert not [line for line in SETUP_CELL.splitlines() if INSTALL.search(line) or PIP.search(line)]


# --- A notebook opened on its own, as on Colab ------------------------------------------------------------

# What a Colab kernel does with the first cell: google.colab is already imported (Colab imports it at
# start-up; the cell only checks sys.modules), the cell runs in the notebook's namespace, and later cells
# import from utils/. The script prints what the tests check as one JSON line.
DRIVER = """\
import json, sys
import google.colab
cell, later, runs = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3])
namespace = {"__name__": "__main__"}
for _ in range(runs):
    exec(compile(cell, "set-up cell", "exec"), namespace)
exec(compile(later, "import cells", "exec"), {"__name__": "__main__"})
import utils.setup
print(json.dumps({"DEVICE": namespace["DEVICE"], "ROOT": namespace["ROOT"], "utils": utils.setup.__file__}))
"""


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=course tests", "-c", "user.email=tests@localhost", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=_git_env(),
    )


def _git_env() -> dict:
    """The environment without the user's or the system's git configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return env | {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}


def _tracked_files() -> list[str]:
    """What GitHub would hold: the tracked files (read from this working tree); utils/ without git."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        files = []
    return files or [str(p.relative_to(ROOT)) for p in (ROOT / "utils").rglob("*.py")]


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    """A stand-in for Colab and for GitHub, in a temporary folder.

    remote/  the course repository as the clone sees it: COURSE_BRANCH holds this checkout's tracked
             files, two commits deep (so that --depth=1 shows), and the default branch holds none
             (so that a clone without --branch would find no utils/)
    stub/    a `google.colab` module
    content/ the notebook's working directory, empty: Colab's /content
    """
    base = tmp_path_factory.mktemp("colab")
    remote, content = base / "remote", base / "content"
    content.mkdir()
    remote.mkdir()
    _git("init", "--quiet", "--initial-branch=some-other-default", cwd=remote)
    (remote / "README.md").write_text("not the course\n")
    _git("add", ".", cwd=remote)
    _git("commit", "--quiet", "-m", "older", cwd=remote)
    _git("checkout", "--quiet", "-b", COURSE_BRANCH, cwd=remote)
    for name in _tracked_files():
        (remote / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, remote / name)
    _git("add", ".", cwd=remote)
    _git("commit", "--quiet", "-m", "the course", cwd=remote)
    _git("checkout", "--quiet", "some-other-default", cwd=remote)

    package = base / "stub" / "google"
    (package / "colab").mkdir(parents=True)
    # extend_path: share the name `google` with any google.* package installed here (protobuf, say).
    (package / "__init__.py").write_text("__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n")
    (package / "colab" / "__init__.py").write_text('"""A stand-in for Colab\'s own module."""\n')

    # The set-up cell exactly as a learner gets it, except that its copy goes to content/course, not
    # to /content/course: Colab's layout inside the temporary folder.
    cell = next(c.source for c in nbformat.read(LEARNER[0], as_version=4).cells if c.cell_type == "code")
    assert cell.count(COLAB_COPY) == 1, "the set-up cell should name /content/course once"
    copy = content / "course"
    (base / "cell.py").write_text(cell.replace(COLAB_COPY, f"COLAB_COPY = {str(copy)!r}"))
    # The same cell where nothing has been copied yet and the repository cannot be reached.
    (base / "elsewhere").mkdir()
    nowhere = base / "elsewhere" / "course"
    (base / "cell-nowhere.py").write_text(cell.replace(COLAB_COPY, f"COLAB_COPY = {str(nowhere)!r}"))
    # The import cell (the second code cell) of every notebook: what the clone must provide.
    (base / "later.py").write_text(
        "\n".join(
            [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"][1].source
            for path in LEARNER
        )
    )

    def run(runs: int, github: str, cell: str = "cell.py") -> subprocess.CompletedProcess:
        """The cell `runs` times in one fresh Python; clones of COURSE_REPO go to `github` instead."""
        env = {k: v for k, v in _git_env().items() if k not in ("TRITON_INTERPRET", "PYTHONPATH")}
        env |= {
            "PYTHONPATH": str(base / "stub"),
            "GIT_ALLOW_PROTOCOL": "file",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"url.{github}.insteadOf",
            "GIT_CONFIG_VALUE_0": COURSE_REPO,
        }
        return subprocess.run(
            [sys.executable, "-c", DRIVER, str(base / cell), str(base / "later.py"), str(runs)],
            cwd=content,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    first = run(2, remote.as_uri())
    # A restarted runtime, or the next notebook opened in it: the copy is there, GitHub is not.
    again = run(1, (base / "no-such-repository").as_uri())
    # A notebook uploaded alone while the repository is unreachable (not published, or offline).
    unreachable = run(1, (base / "no-such-repository").as_uri(), cell="cell-nowhere.py")
    return {"first": first, "again": again, "copy": copy, "unreachable": unreachable, "nowhere": nowhere}


def _result(process: subprocess.CompletedProcess) -> dict:
    assert process.returncode == 0, f"the set-up cell failed:\n{process.stdout}\n{process.stderr}"
    return json.loads(process.stdout.splitlines()[-1])


def test_opened_alone_the_setup_cell_clones_the_course_and_picks_a_device(colab):
    result, copy = _result(colab["first"]), colab["copy"]
    assert result["ROOT"] == str(copy)
    assert Path(result["utils"]).is_relative_to(copy), "utils/ must come from the clone"
    assert result["DEVICE"] == ("cuda" if torch.cuda.is_available() else "cpu")
    banners = [line for line in colab["first"].stdout.splitlines() if line.startswith("device: ")]
    assert len(banners) == 2, colab["first"].stdout  # the cell ran twice, one banner each time
    if not torch.cuda.is_available():
        assert "mode: Triton interpreter (no GPU found)" in banners[0]
    git = ["git", "-C", str(copy)]
    branch = subprocess.run([*git, "branch", "--show-current"], capture_output=True, text=True, check=True)
    depth = subprocess.run([*git, "rev-list", "--count", "HEAD"], capture_output=True, text=True, check=True)
    assert (branch.stdout.strip(), depth.stdout.strip()) == (COURSE_BRANCH, "1")


def test_running_the_setup_cell_again_does_not_clone_again(colab):
    """Run twice in one kernel, and once more with the repository gone: a second clone into the copy
    would fail (the folder exists; the repository is unreachable), and a failed clone stops the cell,
    so cells that ran through cloned once."""
    first, again = colab["first"], colab["again"]
    assert _result(first)["ROOT"] == str(colab["copy"])
    assert _result(again)["ROOT"] == str(colab["copy"])
    assert again.stdout.startswith("device: ")


def test_a_failed_clone_says_what_to_do_instead_of_a_traceback(colab):
    failed = colab["unreachable"]
    assert failed.returncode != 0 and not colab["nowhere"].exists()
    message = failed.stderr.strip().splitlines()[-1]  # SystemExit's message, as Python prints it
    assert message.startswith("Could not fetch the course from " + COURSE_REPO), failed.stderr
    assert "Upload the course folder to" in message and "set REPO above" in message
    assert "Traceback" not in failed.stderr, failed.stderr
