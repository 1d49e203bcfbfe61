#!/usr/bin/env bash
# The course's commands. Each first makes (or refreshes) the virtual environment .venv.
#   ./course.sh lab     open the course in JupyterLab
#   ./course.sh test    lint, unit tests, and every notebook run top to bottom (pytest --nbval)
#   ./course.sh bench   on a CUDA GPU: every reduction of the course against torch and the device copy
#   ./course.sh reference  on a CUDA GPU: run every solution notebook, outputs kept, into reference/<gpu>/
set -euo pipefail
cd "$(dirname "$0")"
VENV=${COURSE_VENV:-.venv}
PYTHON=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || { echo "The course needs Python 3.10 or newer; $PYTHON is $("$PYTHON" --version 2>&1)." >&2; exit 1; }
  "$PYTHON" -m venv "$VENV"
fi

# Where torch comes from. pip's default torch for Linux is a CUDA build of several GB, of no use without
# an NVIDIA GPU: there, PyTorch's CPU build comes from PyTorch's CPU index instead. COURSE_TORCH=cuda
# keeps pip's default, COURSE_TORCH=cpu asks for the CPU build anywhere on Linux, and COURSE_TORCH_INDEX
# names the index outright (as in .ci/run). A torch already in .venv that meets requirements.txt is kept,
# whichever build it is: to change builds, delete .venv.
CPU_INDEX=https://download.pytorch.org/whl/cpu
has_nvidia_gpu() {
  [ -n "$(ls -A /proc/driver/nvidia/gpus 2>/dev/null)" ] \
    || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }
}
choose_torch() {  # sets torch_index (empty: pip's default) and torch_note, the line that says why
  torch_index="" torch_note=""
  if [ -n "${COURSE_TORCH_INDEX:-}" ]; then
    torch_index=$COURSE_TORCH_INDEX torch_note="torch from COURSE_TORCH_INDEX, $COURSE_TORCH_INDEX."
    return
  fi
  case "${COURSE_TORCH:-}" in
    cuda | "") ;;
    cpu)
      if [ "$(uname -s)" = Linux ]; then
        torch_index=$CPU_INDEX torch_note="torch: PyTorch's CPU build, as COURSE_TORCH=cpu asks."
      fi ;;
    *) echo "COURSE_TORCH is '$COURSE_TORCH': use COURSE_TORCH=cpu or COURSE_TORCH=cuda." >&2; exit 2 ;;
  esac
  # PyPI's torch for macOS and Windows has no CUDA in it; Linux with an NVIDIA GPU wants the CUDA build.
  if [ -z "${COURSE_TORCH:-}" ] && [ "$(uname -s)" = Linux ] && ! has_nvidia_gpu; then
    torch_index=$CPU_INDEX
    torch_note="No NVIDIA GPU found: torch will be PyTorch's CPU build. COURSE_TORCH=cuda for the CUDA build."
  fi
}

# --no-compile: Python byte-compiles each module the first time it is imported, and caches it; compiling
# every file that pip installs up front took about half of the install's CPU time on two cores. Where
# PYTHONDONTWRITEBYTECODE is set, Python caches nothing, so every process (a notebook's kernel, a test
# worker) would compile torch's modules again: `import torch, triton` took 13.0 s instead of 5.5 s. There
# pip compiles them once, at install.
no_compile=--no-compile
if [ -n "${PYTHONDONTWRITEBYTECODE:-}" ]; then no_compile=; fi

# Reinstall only when the requirements changed since the last install.
stamp="$VENV/.course-requirements"
wanted=$(cat requirements.txt requirements-test.txt)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  choose_torch
  if [ -n "$torch_index" ]; then
    if ! "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("torch")' 2>/dev/null; then
      echo "$torch_note"
    fi
    # requirements.txt's torch line, from that index alone. pip keeps a torch already installed that
    # meets it (without asking the index), and the install below then leaves torch as it is.
    torch_spec=$(grep -E '^torch([^A-Za-z0-9_.-]|$)' requirements.txt | sed 's/[[:space:]]*#.*//' || true)
    "$VENV/bin/python" -m pip install --quiet $no_compile --index-url "$torch_index" "${torch_spec:-torch}"
  fi
  "$VENV/bin/python" -m pip install --quiet $no_compile -r requirements-test.txt
  printf '%s' "$wanted" > "$stamp"
fi

case "${1:-}" in
  lab)
    shift
    # the course's folder served, notebooks/ opened (utils/lab.py says why; as root, what it does)
    exec "$VENV/bin/python" -m utils.lab "$@" ;;
  test)
    shift
    "$VENV/bin/ruff" check .
    "$VENV/bin/ruff" format --check .
    # mypy (utils/ and benchmarks/, as pyproject.toml's [tool.mypy] says) runs beside pytest: alone it
    # kept one core busy for about 37 s while the other waited. Its report follows pytest's; either
    # failing fails the command.
    mypy_log=$(mktemp)
    "$VENV/bin/mypy" >"$mypy_log" 2>&1 &
    mypy_pid=$!
    # Two worker processes (pytest-xdist): CI has two cores, and a notebook in the interpreter keeps one
    # busy. pyproject.toml's --dist loadscope keeps each notebook on one worker. -n 0 or -n N overrides.
    pytest_status=0
    "$VENV/bin/python" -m pytest -n 2 "$@" || pytest_status=$?
    mypy_status=0
    wait "$mypy_pid" || mypy_status=$?
    echo "mypy:"; cat "$mypy_log"; rm -f "$mypy_log"
    [ "$mypy_status" -eq 0 ] || exit "$mypy_status"
    exit "$pytest_status" ;;
  bench)
    shift
    exec "$VENV/bin/python" benchmarks/run.py "$@" ;;
  reference)
    shift
    exec "$VENV/bin/python" -m utils.reference "$@" ;;
  *)
    echo "usage: ./course.sh lab | test | bench | reference" >&2
    exit 2 ;;
esac
