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
# Reinstall only when the requirements changed since the last install.
stamp="$VENV/.course-requirements"
wanted=$(cat requirements.txt requirements-test.txt)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -r requirements-test.txt
  printf '%s' "$wanted" > "$stamp"
fi

case "${1:-}" in
  lab)
    shift
    exec "$VENV/bin/jupyter" lab notebooks "$@" ;;
  test)
    shift
    "$VENV/bin/ruff" check .
    "$VENV/bin/ruff" format --check .
    "$VENV/bin/mypy"  # utils/ and benchmarks/, as pyproject.toml's [tool.mypy] says
    # Two worker processes (pytest-xdist): CI has two cores, and a notebook in the interpreter keeps one
    # busy. pyproject.toml's --dist loadscope keeps each notebook on one worker. -n 0 or -n N overrides.
    exec "$VENV/bin/python" -m pytest -n 2 "$@" ;;
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
