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
