import glob

import pandas as pd
import pyarrow.parquet as pq

import rtac
from conftest import LTE, small, without_wall

GRID = {"link[0].rate": ["10mbit", "40mbit"]}


def test_the_12_run_sweep_has_a_column_per_field_and_seed():
    runs = rtac.sweep(LTE, grid=GRID, seeds=range(3), controllers=["autotuning", "rtac"], progress=False)
    assert len(runs) == 12
    assert list(runs.columns[:3]) == ["link[0].rate", "seed", "run_key"]
    assert runs["run_key"].is_unique
    assert list(runs["link[0].rate"]) == ["10mbit"] * 6 + ["40mbit"] * 6
    assert list(runs["seed"]) == [0, 0, 1, 1, 2, 2] * 2
    assert list(runs["label"]) == ["autotuning", "rtac"] * 6
    mean = runs.groupby("link[0].rate")["throughput_mbps"].mean()
    assert 8 < mean["10mbit"] < 10.5 and 30 < mean["40mbit"] < 41, mean


def test_a_sweep_row_is_the_run_simulate_gives():
    runs = rtac.sweep(small(), grid={"link[0].rate": ["10mbit", "30mbit"]}, seeds=[4, 5], progress=False)
    row = runs[(runs["link[0].rate"] == "30mbit") & (runs["seed"] == 5) & (runs["label"] == "rtac")]
    doc = small()
    doc["link"][0]["rate"] = "30mbit"
    alone = rtac.simulate(doc, seed=5, controllers=["rtac"])
    cols = [c for c in alone.columns if c != "wall_s"]
    pd.testing.assert_frame_equal(row[cols].reset_index(drop=True), alone[cols])


def test_one_and_two_workers_give_identical_results():
    args = dict(grid={"link[0].delay": ["5ms", "20ms"]}, seeds=range(3), progress=False)
    one = rtac.sweep(small(), workers=1, **args)
    two = rtac.sweep(small(), workers=2, **args)
    pd.testing.assert_frame_equal(without_wall(one), without_wall(two))
    by_seed = one[one["label"] == "rtac"].groupby("seed")["rtt_mean_ms"].first()
    assert by_seed.nunique() == 3, "each seed draws its own losses"


def test_out_writes_parquet_and_a_rerun_runs_only_what_is_missing(tmp_path):
    first = rtac.sweep(small(), grid=GRID, seeds=[0], out=tmp_path, progress=False)
    parts = sorted(glob.glob(str(tmp_path / "part-*.parquet")))
    assert parts and (tmp_path / "_scenario.toml").exists()
    assert set(pd.concat(pd.read_parquet(p) for p in parts)["run_key"]) == set(first["run_key"])

    # Same sweep again: nothing to run, nothing written, same rows.
    again = rtac.sweep(small(), grid=GRID, seeds=[0], out=tmp_path, progress=False)
    assert sorted(glob.glob(str(tmp_path / "part-*.parquet"))) == parts
    pd.testing.assert_frame_equal(without_wall(first), without_wall(again), check_dtype=False)

    # More seeds: only the new runs are simulated and written.
    more = rtac.sweep(small(), grid=GRID, seeds=[0, 1, 2], out=tmp_path, progress=False)
    assert len(more) == 12
    new_parts = sorted(set(glob.glob(str(tmp_path / "part-*.parquet"))) - set(parts))
    new_keys = set(pd.concat(pq.read_table(p).to_pandas() for p in new_parts)["run_key"])
    assert new_keys == set(more["run_key"]) - set(first["run_key"])
    assert len(new_keys) == 8
    fresh = rtac.sweep(small(), grid=GRID, seeds=[0, 1, 2], progress=False)
    pd.testing.assert_frame_equal(without_wall(more), without_wall(fresh), check_dtype=False)


def test_a_second_sweep_on_a_directory_being_written_is_refused(tmp_path):
    from rtac._parquet import ParquetOut
    from rtac import _scenario

    plan = _scenario.spec(small(), GRID, [0], None).plan()
    holder = ParquetOut(tmp_path, plan)
    try:
        rtac.sweep(small(), grid=GRID, seeds=[0], out=tmp_path, progress=False)
    except OSError as e:
        assert "another sweep" in str(e) and "is writing to this directory" in str(e), e
    else:
        raise AssertionError("a second writer was let in")
    del holder
    assert len(rtac.sweep(small(), grid=GRID, seeds=[0], out=tmp_path, progress=False)) == 4
