"""End to end, what a learner does: start JupyterLab, open notebook 01, Run > Run All Cells, read the page.

The test starts `jupyter lab` as `./course.sh lab` does (utils.lab: the course's folder served, notebooks/
opened), from this very environment (sys.executable), on a free 127.0.0.1 port with a fresh token,
serving a temporary copy of the course, so running cells, autosave and checkpoints never touch the
repository; Jupyter's config, data, runtime, settings and workspace folders point into the same temporary
folder. A headless Chromium (Debian's `chromium` package, driven by Playwright) first opens the server's
front page, opens notebook 01 from the file browser and clicks its "No GPU?" link, which must open the
H200 reference copy. It then opens the notebook afresh and runs every cell from the Run menu. The test
asserts what a learner would see: every code cell ran, no cell shows an error, and each check cell prints
what it should ("not attempted yet" for the learner's stubs, "all N cases passed" for given code and for
the solutions). The page is saved as a screenshot in test-artifacts/ (or $COURSE_ARTIFACTS), on failure
too, next to the server's log.

Without Chromium or Playwright the test is skipped, unless COURSE_E2E=1 (CI sets it): then it fails.
"""

from __future__ import annotations

import ast
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from utils import lab as course_lab
from utils.reference import reference_note

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("COURSE_ARTIFACTS") or ROOT / "test-artifacts")
REQUIRED = os.environ.get("COURSE_E2E") == "1"  # CI: a missing browser is a failure, not a skip
PASSED = r"^{}: all \d+ cases passed \("
NOT_ATTEMPTED = r"^{}: not attempted yet\. Hint: "


def expected_check_lines(notebook: Path) -> dict[str, list[str]]:
    """What each check cell of `notebook` must print, by cell id, read from the notebook itself.

    Only checks that are statements of their own are read (`works = check("id", fn)`): one inside a
    `try` shows a failure on purpose. A check of a function that the release tool stubbed
    (`raise NotImplementedError("exercise: fn")`) says "not attempted yet"; any other passes. So a new
    exercise needs no line here.
    """
    nb = nbformat.read(notebook, as_version=4)
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    expected: dict[str, list[str]] = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or "check(" not in cell.source:
            continue
        for statement in ast.parse(cell.source).body:
            call = (
                getattr(statement, "value", None) if isinstance(statement, (ast.Assign, ast.Expr)) else None
            )
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "check"):
                continue
            exercise_id, function = call.args[0].value, ast.unparse(call.args[1])
            stubbed = f'NotImplementedError("exercise: {function}")' in code
            pattern = (NOT_ATTEMPTED if stubbed else PASSED).format(re.escape(exercise_id))
            expected.setdefault(cell.id, []).append(pattern)
    return expected


# The learner's notebook passes the given code and says "not attempted yet" for the exercises; the
# solutions pass everything. The solutions also run under nbval, so this test opens them only when
# COURSE_E2E_SOLUTIONS=1 (another minute on two cores).
OPENED = ["notebooks/01_vector_add.ipynb"] + (
    ["solutions/01_vector_add.ipynb"] if os.environ.get("COURSE_E2E_SOLUTIONS") == "1" else []
)
EXPECTED = {name: expected_check_lines(ROOT / name) for name in OPENED}


def test_the_expected_lines_follow_from_the_notebooks():
    # Runs without a browser: the learner's 01 checks the worked copy and leaves two exercises to do.
    learner = expected_check_lines(ROOT / "notebooks/01_vector_add.ipynb")
    assert learner["check-copy"] == [PASSED.format("copy")]
    assert learner["check-vector-add"] == [NOT_ATTEMPTED.format("vector_add")]
    solution = expected_check_lines(ROOT / "solutions/01_vector_add.ipynb")
    assert solution["check-vector-add"] == [PASSED.format("vector_add")]
    assert "check-broken-demo" not in learner, "a check inside try shows a failure on purpose"


# Without the background-networking flags Chromium keeps dialling Google's services; on a closed network
# those connections are refused, many at a time.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Bounds on every wait, generous: measured on two busy CPU cores, the server answered after 13-14 s, the page
# showed the notebook with an idle kernel 18-19 s later, and Run All Cells took 33-35 s.
SERVER_START_S = 90
PAGE_LOAD_S = 120
RUN_ALL_S = 300
LINK_OPENS_S = 60  # measured: the reference copy showed its outputs 3 s after the click
# Settings a learner would click away once: the "Jupyter news?" toast would cover part of the screenshot.
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}


def _unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"COURSE_E2E=1 but {reason}")
    pytest.skip(reason)


def _chromium() -> str:
    path = os.environ.get("COURSE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path or not os.access(path, os.X_OK):
        _unavailable(
            f"no Chromium at {path or 'chromium on PATH'} (Debian: apt-get install chromium; "
            f"or set COURSE_CHROMIUM to its path)"
        )
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _copy_course(dest: Path) -> Path:
    """What the server serves: notebooks and helpers, copied, so running cells never writes to the repo."""
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    for name in ("utils", "notebooks", "solutions", "reference"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    return dest


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A running JupyterLab: yields (base URL, token, served folder); afterwards stopped, kernels and all."""
    tmp = tmp_path_factory.mktemp("jupyterlab")
    course = _copy_course(tmp / "course")
    home = tmp / "jupyter"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}  # the notebook decides, as at home
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("IPYTHONDIR", "ipython"),
    ]:
        env[var] = str(home / sub)
        (home / sub).mkdir(parents=True)
    for name, values in SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    log_path = tmp / "jupyterlab.log"
    # `./course.sh lab`'s command (utils.lab), serving the copy, with what a test needs on top
    command = course_lab.command(
        [
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            "--ServerApp.allow_root=True",
            # nothing that reaches beyond this machine: no update check, no extension index
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
        ],
        root=course,
    )
    assert command[:4] == [sys.executable, "-m", "jupyter", "lab"]
    url = f"http://127.0.0.1:{port}"
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, env=env, cwd=course, stdout=log, stderr=subprocess.STDOUT)
    try:
        started = time.monotonic()
        deadline = started + SERVER_START_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter lab exited with {server.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with no_proxy.open(f"{url}/api/status?token={token}", timeout=5) as answer:
                    if answer.status == 200:
                        print(f"jupyter lab answered after {time.monotonic() - started:.1f} s")
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab did not answer within {SERVER_START_S} s:\n{log_path.read_text()[-3000:]}"
                )
            time.sleep(0.5)
        yield url, token, course
    finally:
        server.send_signal(signal.SIGTERM)  # the server shuts its kernels down on SIGTERM
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()  # its kernels notice their parent is gone and exit
            server.wait(timeout=10)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(log_path, ARTIFACTS / "jupyterlab.log")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Python package playwright is not installed (pip install playwright)")
    executable = _chromium()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


# One snapshot of the open notebook, read from the DOM: for every cell its kind, its input prompt
# ("[3]:", "[*]:" while queued or running, "[ ]:" before) and the text and MIME type of its outputs.
READ_CELLS = """() => {
  const panels = document.querySelectorAll('.jp-NotebookPanel');
  if (panels.length !== 1) return null;
  return Array.from(panels[0].querySelectorAll('.jp-Notebook .jp-Cell')).map(cell => ({
    code: cell.classList.contains('jp-CodeCell'),
    prompt: (cell.querySelector('.jp-InputArea-prompt')?.textContent || '').trim(),
    outputs: Array.from(cell.querySelectorAll('.jp-OutputArea-output')).map(out => ({
      mime: out.dataset.mimeType || '', text: out.textContent})),
  }));
}"""


IDLE = ".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']"


def _cells(page):
    return page.evaluate(READ_CELLS)


def _wait_until(page, what: str, condition, timeout_s: float, poll_s: float = 0.5):
    """Poll the page's cells until condition(cells) holds; fail naming `what` after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        cells = _cells(page)
        if cells is not None and condition(cells):
            return cells
        if time.monotonic() > deadline:
            prompts = [c["prompt"] for c in cells or [] if c["code"]]
            raise AssertionError(f"timed out after {timeout_s} s waiting until {what}; prompts: {prompts}")
        time.sleep(poll_s)


def _screenshot(page, path: Path) -> None:
    """The whole notebook in one image: scroll it to the top and grow the viewport to its full height."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        height = page.evaluate("""() => {
          const outer = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
          if (!outer) return 0;
          outer.scrollTop = 0;
          return outer.scrollHeight - outer.clientHeight;
        }""")
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"], "height": min(size["height"] + height, 16000)})
        page.wait_for_timeout(1000)  # let JupyterLab lay the taller page out
        page.screenshot(path=str(path))
    except Exception as error:  # a screenshot is evidence, never the reason a test fails
        print(f"screenshot {path} failed: {error}")


VISIBLE_NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"
NO_GPU_LINK_TEXT = "What these cells print on an H200"
REFERENCE_BANNER = "device: NVIDIA H200"  # the set-up cell's saved output in reference/h200/
REFERENCE_TITLE = "You are reading the copy run on the NVIDIA H200"  # in the copy's title cell


def _stop_kernels(url: str, token: str) -> None:
    """Shut down the kernels that opening notebooks started: the Run All test wants the cores."""
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with no_proxy.open(f"{url}/api/sessions?token={token}", timeout=10) as answer:
        sessions = json.load(answer)
    for session in sessions:
        request = urllib.request.Request(f"{url}/api/sessions/{session['id']}?token={token}", method="DELETE")
        no_proxy.open(request, timeout=30).close()


def test_the_no_gpu_link_opens_the_reference_copy(browser, lab):
    """Where `./course.sh lab` lands (notebooks/, in the file browser), notebook 01 opened from there, and
    its "No GPU?" link (../reference/h200/01_vector_add.ipynb) clicked: the H200 copy must open. With the
    server's root at notebooks/, that link led outside it, and nothing opened."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    url, token, _ = lab
    shot = ARTIFACTS / "no-gpu-link.png"
    failed_shot = shot.with_name(shot.stem + "-FAILED.png")
    for stale in (shot, failed_shot):
        stale.unlink(missing_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.set_default_timeout(PAGE_LOAD_S * 1000)
        started = time.monotonic()
        page.goto(f"{url}/?token={token}")  # the front page, as the browser that course.sh opens
        page.wait_for_url(re.compile(rf"/lab/tree/{course_lab.OPENS}\b"))
        listed = page.locator(".jp-DirListing-itemText", has_text=re.compile(r"^01_vector_add\.ipynb$"))
        listed.dblclick()  # as a learner opens a notebook
        link = page.locator(f"{VISIBLE_NOTEBOOK} .jp-RenderedMarkdown a", has_text=NO_GPU_LINK_TEXT)
        # JupyterLab writes the address it resolved into the link (and cuts a ../ that leads above its root)
        assert "/files/reference/h200/01_vector_add.ipynb" in (link.get_attribute("href") or "")
        clicked = time.monotonic()
        link.click()
        # The reference copy, in JupyterLab: its title cell says what it is, its set-up cell's saved output
        # names the H200. A link to nowhere shows a "File Load Error" dialog instead.
        assert REFERENCE_TITLE in reference_note("NVIDIA H200")
        opened = page.locator(VISIBLE_NOTEBOOK, has_text=REFERENCE_TITLE)
        error = page.locator(".jp-Dialog")
        try:
            opened.or_(error).first.wait_for(timeout=LINK_OPENS_S * 1000)
        except PlaywrightTimeout:
            # what a server rooted at notebooks/ did: the link led outside the root, and nothing opened
            raise AssertionError(
                f"the reference copy did not open within {LINK_OPENS_S} s of the click"
            ) from None
        assert not error.count(), f"clicking the link showed a dialog: {error.first.inner_text()}"
        banner = opened.locator(".jp-OutputArea-output", has_text=REFERENCE_BANNER)
        banner.first.wait_for()
        now = time.monotonic()
        print(
            f"the reference copy showed its outputs {now - clicked:.1f} s after the click "
            f"({now - started:.1f} s after the front page was asked for)"
        )
        page.screenshot(path=str(shot))
    except BaseException:
        page.screenshot(path=str(failed_shot))
        raise
    finally:
        page.close()
        _stop_kernels(url, token)


@pytest.mark.parametrize("notebook", list(EXPECTED))
def test_run_all_cells_in_jupyterlab(browser, lab, notebook):  # browser first: skip before starting a server
    url, token, course = lab
    nb = nbformat.read(course / notebook, as_version=4)
    index = {cell.get("id"): i for i, cell in enumerate(nb.cells)}
    shot = ARTIFACTS / f"{notebook.replace('/', '__').removesuffix('.ipynb')}.png"
    failed_shot = shot.with_name(shot.stem + "-FAILED.png")
    for stale in (shot, failed_shot):
        stale.unlink(missing_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.set_default_timeout(30_000)
        opened = time.monotonic()
        # ?reset: start from an empty workspace, so only this notebook is open
        page.goto(f"{url}/lab/tree/{notebook}?reset&token={token}", timeout=PAGE_LOAD_S * 1000)
        # Every cell is in the DOM (JupyterLab attaches them in batches) and the kernel has started.
        _wait_until(page, "every cell is on the page", lambda cells: len(cells) == len(nb.cells), PAGE_LOAD_S)
        page.wait_for_selector(IDLE, timeout=PAGE_LOAD_S * 1000)
        print(f"{notebook}: open with its kernel idle after {time.monotonic() - opened:.1f} s")
        kinds = [c["code"] for c in _cells(page)]
        assert kinds == [cell.cell_type == "code" for cell in nb.cells], "page and file disagree on the cells"

        started = time.monotonic()
        page.locator("#jp-MainMenu").get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        # Run All queues every code cell at once ("[*]:"). It has finished, or stopped at an error, when
        # no prompt shows "[*]:" any more.
        _wait_until(
            page,
            "Run All Cells has started",
            lambda cells: any(c["prompt"] != "[ ]:" for c in cells if c["code"]),
            30,
        )
        _wait_until(
            page,
            "no cell is queued or running",
            lambda cells: all(c["prompt"] != "[*]:" for c in cells if c["code"]),
            RUN_ALL_S,
        )
        page.wait_for_selector(IDLE)
        print(f"{notebook}: Run All Cells took {time.monotonic() - started:.1f} s")
        cells = _cells(page)
        _screenshot(page, shot)

        # An exception shows as stderr text starting with its traceback. Any other stderr (a warning)
        # fails the test too: the learner sees the same red box.
        red = [
            (i, out["text"][-3000:])
            for i, c in enumerate(cells)
            for out in c["outputs"]
            if out["mime"] == "application/vnd.jupyter.stderr"
        ]
        assert not red, "cells show errors:\n" + "\n\n".join(f"cell {i}:\n{text}" for i, text in red)
        prompts = [c["prompt"] for c in cells if c["code"]]
        assert prompts == [f"[{n}]:" for n in range(1, len(prompts) + 1)], f"not every cell ran: {prompts}"

        setup = cells[index["setup"]]["outputs"]
        assert setup and setup[0]["text"].startswith("device: "), "the set-up cell printed no device line"
        for cell_id, patterns in EXPECTED[notebook].items():
            text = "\n".join(out["text"] for out in cells[index[cell_id]]["outputs"])
            for pattern in patterns:
                assert re.search(pattern, text, re.MULTILINE), (
                    f"cell {cell_id} should match {pattern!r}:\n{text}"
                )
    except BaseException:
        if shot.exists():
            shot.rename(failed_shot)
        else:
            _screenshot(page, failed_shot)
        raise
    finally:
        page.close()
