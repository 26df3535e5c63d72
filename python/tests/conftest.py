from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LTE = ROOT / "scenarios" / "rtac-lte-single.toml"


def small(loss=0.005):
    """A 3 s scenario whose random losses make the seed matter."""
    return {
        "name": "small",
        "duration": "3s",
        "controllers": ["autotuning", "rtac"],
        "link": [{"name": "bn", "rate": "20mbit", "delay": "10ms", "queue": "droptail:packets=300", "loss": loss}],
        "flow": [{"cc": "cubic"}],
    }


def without_wall(frame):
    """A frame's deterministic part: everything but the wall-clock time."""
    return frame.drop(columns=["wall_s"]).reset_index(drop=True)


@pytest.fixture
def lte():
    return LTE


@pytest.fixture(scope="session")
def rtac_cli():
    """The `rtac` command of this tree, for tests that compare it with the
    package: the one `cargo test --workspace` builds for the CLI's
    integration tests, which the Rust tier of test.sh has built already
    (then this takes a fraction of a second). `cargo build -p rtac-cli`
    would unify the dependencies' features differently and rebuild them
    (two minutes on a fresh clone)."""
    import json
    import subprocess

    built = subprocess.run(
        ["cargo", "test", "--workspace", "--no-run", "--test", "readme", "--message-format=json"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in built.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "rtac" and msg.get("executable"):
            return Path(msg["executable"])
    raise AssertionError("cargo built no rtac executable")
