#!/usr/bin/env bash
# Runs the tests of the repository in three tiers and ends with a line per
# tier saying whether it passed, failed or was not run, and why:
#
#   rust         every Rust test that needs no privilege: the unit tests of
#                every crate, every tests/*.rs not listed in ROOT_TESTS, and
#                the doc tests;
#   rust-root    the test files in ROOT_TESTS (network namespaces, eBPF,
#                cgroups, another user's uid): run only as root;
#   python       the Python package's pytest suite, in a virtual environment
#                under the target directory ($CARGO_TARGET_DIR/pyenv, default
#                target/pyenv), into which `pip install ".[ray,test]"` builds
#                and installs the package (maturin, from PyPI, compiles
#                crates/python). Python 3.11 or later: $PYTHON, else python3.
#
# As root all three run (as CI runs them: `.ci/run`). Without root the
# rust-root tier is not run: the last lines name its files, say why and how
# to run them, and the exit status is that of the tiers that ran. The test
# targets of each tier are listed from `cargo metadata`, so a new test file
# outside ROOT_TESTS runs in the rust tier with nothing to add here. A test in
# a file of ROOT_TESTS fails, never skips, when it lacks a privilege or a
# tool. `--no-fail-fast` runs every test binary even when one fails, so a
# failure never hides the others.
set -uo pipefail
cd "$(dirname "$0")"

# Test files that need root. A new test file that needs a privilege goes
# here (docs/TESTING.md); one listed but not (yet) in the tree is ignored.
ROOT_TESTS=(
  crates/emu/tests/emu.rs                # network namespaces, setuid to nobody
  crates/emu/tests/security.rs
  crates/agent/tests/bpf.rs              # eBPF sock_ops, cgroups v2
  crates/agent/tests/security.rs
  crates/agent/tests/daemon_security.rs
  crates/agent/tests/link_budget.rs      # network namespaces, veth, eBPF
)
ROOT_REASON="needs root: network namespaces, eBPF, cgroups"

status=0
results=()
tier() { # tier NAME OUTCOME
  results+=("$(printf '%-10s %s' "$1" "$2")")
}

present_root_tests=()
for f in "${ROOT_TESTS[@]}"; do
  [ -f "$f" ] && present_root_tests+=("$f")
done

# Every integration test target of the workspace as `--test NAME`
# arguments: those whose file is in ROOT_TESTS on the second line.
if ! selection=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, os, sys
root = set(os.path.abspath(p) for p in sys.argv[1:])
meta = json.load(sys.stdin)
tests, root_names = set(), set()
for p in meta["packages"]:
    for t in p["targets"]:
        if "test" in t["kind"]:
            (root_names if os.path.abspath(t["src_path"]) in root else tests).add(t["name"])
clash = tests & root_names
if clash:
    sys.exit("test.sh: test files named %s exist both in ROOT_TESTS and outside it: "
             "cargo selects tests by name, so rename one" % ", ".join(sorted(clash)))
print(" ".join("--test " + n for n in sorted(tests)))
print(" ".join("--test " + n for n in sorted(root_names)))
' "${present_root_tests[@]}"); then
  echo "test.sh: cannot list the workspace's test targets (cargo metadata, python3)" >&2
  exit 1
fi
plain_tests=$(sed -n 1p <<<"$selection")
root_tests=$(sed -n 2p <<<"$selection")

rust=passed
# shellcheck disable=SC2086 # one word per argument
cargo test --workspace --no-fail-fast --lib --bins $plain_tests || rust=failed
cargo test --workspace --no-fail-fast --doc || rust=failed
# The API reference must build: a broken intra-doc link or a stray HTML tag
# in a doc comment fails the tier.
RUSTDOCFLAGS="${RUSTDOCFLAGS:-} -D warnings" cargo doc --workspace --no-deps --quiet || rust=failed
[ "$rust" = passed ] || status=1
tier rust "$rust"

if [ -z "$root_tests" ]; then
  tier rust-root "none listed in ROOT_TESTS"
elif [ "$(id -u)" = 0 ]; then
  # shellcheck disable=SC2086
  if cargo test --workspace --no-fail-fast $root_tests; then
    tier rust-root "passed (${present_root_tests[*]})"
  else
    status=1
    tier rust-root "failed (${present_root_tests[*]})"
  fi
else
  tier rust-root "NOT RUN ($ROOT_REASON): ${present_root_tests[*]}; run them with \`sudo ./test.sh\`, or one with \`sudo cargo test -p CRATE --test NAME\`"
fi

python=${PYTHON:-python3}
venv=${CARGO_TARGET_DIR:-target}/pyenv
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
if "$venv/bin/python" -m pytest python/tests; then
  tier python passed
else
  status=1
  tier python failed
fi

echo
echo "test.sh: tiers"
printf '  %s\n' "${results[@]}"
exit $status
