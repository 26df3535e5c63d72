import pandas as pd
import pytest

import rtac
from conftest import LTE, small, without_wall

COLUMNS = [
    "label", "controller", "flow", "cc", "throughput_mbps", "rtt_mean_ms", "rtt_p50_ms", "rtt_p95_ms",
    "retransmits", "link", "link_utilization", "queue_delay_p95_ms", "link_drops",
]


def test_the_lte_scenario_runs_autotuning_drwa_and_rtac():
    runs = rtac.simulate(LTE)
    assert list(runs["label"]) == ["autotuning", "drwa", "rtac"]
    assert set(COLUMNS) <= set(runs.columns)
    by = runs.set_index("label")
    # RTAC keeps the queue short where Auto-tuning fills the buffer, at
    # about the same throughput; a run without control would not.
    assert by.loc["rtac", "rtt_p95_ms"] < 0.5 * by.loc["autotuning", "rtt_p95_ms"]
    assert by.loc["rtac", "throughput_mbps"] > 0.9 * by.loc["autotuning", "throughput_mbps"]
    assert (runs["link"] == "lte-bs").all()


def test_a_path_a_toml_string_and_a_dict_give_the_same_runs():
    from_path = rtac.simulate(LTE)
    from_text = rtac.simulate(LTE.read_text())
    assert from_text["scenario"].iloc[0] == from_path["scenario"].iloc[0]
    pd.testing.assert_frame_equal(without_wall(from_path), without_wall(from_text))
    import tomllib

    doc = tomllib.loads(LTE.read_text())
    pd.testing.assert_frame_equal(without_wall(from_path), without_wall(rtac.simulate(doc)))


def test_seed_and_controllers_replace_the_scenarios():
    a = rtac.simulate(small(), seed=1, controllers=["rtac"])
    assert list(a["label"]) == ["rtac"] and list(a["seed"]) == [1]
    again = rtac.simulate(small(), seed=1, controllers=["rtac"])
    pd.testing.assert_frame_equal(without_wall(a), without_wall(again))
    other = rtac.simulate(small(), seed=2, controllers=["rtac"])
    assert other["rtt_mean_ms"].iloc[0] != a["rtt_mean_ms"].iloc[0], "the seed reaches the random losses"
    labelled = rtac.simulate(small(), controllers=[{"label": "rtac-18", "controller": "rtac", "params": {"delta": "18ms"}}])
    assert list(labelled["label"]) == ["rtac-18"]


def test_series_gives_the_time_series_with_the_bottleneck_queue():
    runs, series = rtac.simulate(LTE, controllers=["autotuning", "rtac"], series=True)
    assert len(runs) == 2
    assert set(series["label"]) == {"autotuning", "rtac"}
    one = series[series["label"] == "rtac"]
    assert one["t_s"].is_monotonic_increasing and one["t_s"].iloc[-1] == pytest.approx(30.0, abs=0.02)
    queue = series.groupby("label")["queue_packets"].mean()
    assert queue["rtac"] < 0.5 * queue["autotuning"]
    assert series["queue_packets"].notna().all()
