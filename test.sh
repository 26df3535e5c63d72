#!/usr/bin/env bash
# Runs every test of the repository: the Rust workspace, then the Python
# package's tests. `--no-fail-fast` runs every test binary even when one
# fails, so a failure never hides the others.
#
# The Python tests run in a virtual environment under target/pyenv (Python
# 3.11 or later: $PYTHON, else python3), into which `pip install ".[ray,test]"`
# builds and installs the package (maturin, from PyPI, compiles crates/python).
set -uo pipefail
cd "$(dirname "$0")"
status=0
cargo test --workspace --no-fail-fast || status=1

python=${PYTHON:-python3}
venv=target/pyenv
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "test.sh: the Python tests need Python 3.11 or later as \$PYTHON or python3" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv" || { echo "test.sh: cannot create $venv (python3-venv missing?)" >&2; exit 1; }
fi
if ! "$venv/bin/python" -m pip install --quiet ".[ray,test]"; then
  echo "test.sh: cannot build and install the Python package" >&2
  exit 1
fi
"$venv/bin/python" -m pytest python/tests || status=1
exit $status
