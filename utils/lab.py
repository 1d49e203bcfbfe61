"""`./course.sh lab`: JupyterLab serving the course's folder and opening its notebooks/.

    ./course.sh lab [jupyter lab options]     # or: python -m utils.lab [jupyter lab options]

The server's root is the course's folder, not notebooks/, so that what a notebook links to can be
reached: every notebook's "No GPU?" link (../reference/<gpu>/NN_topic.ipynb), and solutions/ beside it.
The browser opens at notebooks/. The browser test (tests/e2e) starts its server with the same
`server_arguments`. As root inside a container, JupyterLab is started with `--allow-root`, which it
otherwise requires; as root elsewhere, this says why JupyterLab will refuse to start.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPENS = "notebooks"  # the folder the browser opens at, in the served root


def server_arguments(root: Path = ROOT) -> list[str]:
    """The options that make `jupyter lab` serve `root` and open its notebooks/ folder."""
    return [f"--ServerApp.root_dir={root}", f"--LabApp.default_url=/lab/tree/{OPENS}"]


def in_container() -> bool:
    """Whether this process runs in a container: Docker's and Podman's marker files, or systemd's
    `container` variable (set by systemd-nspawn, LXC and Podman)."""
    return any(Path(marker).exists() for marker in ("/.dockerenv", "/run/.containerenv")) or bool(
        os.environ.get("container")
    )


def root_arguments(uid: int, container: bool, argv: list[str]) -> tuple[list[str], str]:
    """What running as `uid` adds to the command, and a line saying so ("" when nothing needs saying).

    Jupyter refuses to start as root unless told `--allow-root`. In a container, root is often the only
    user there is, so the flag is passed; elsewhere the learner is told to start as an ordinary user.
    """
    if uid != 0 or any(arg.startswith(("--allow-root", "--ServerApp.allow_root")) for arg in argv):
        return [], ""
    if container:
        return ["--allow-root"], "Running as root in a container: starting JupyterLab with --allow-root."
    return [], (
        "You are root: JupyterLab refuses to start as root outside a container. Start it as an ordinary "
        "user, or add --allow-root to this command if you mean to."
    )


def command(argv: list[str], root: Path = ROOT) -> list[str]:
    """The `jupyter lab` command line for `./course.sh lab ARGV`, serving `root`, in this Python's
    environment; prints a line to stderr where running as root needs one."""
    extra, note = root_arguments(os.geteuid() if hasattr(os, "geteuid") else -1, in_container(), argv)
    if note:
        print(note, file=sys.stderr)
    # argv last: an option given on the command line overrides ours
    return [sys.executable, "-m", "jupyter", "lab", *server_arguments(root), *extra, *argv]


def main(argv: list[str]) -> None:
    args = command(argv)
    os.execv(args[0], args)


if __name__ == "__main__":
    main(sys.argv[1:])
