import glob
import shutil
import subprocess

import pandas as pd
import pyarrow.parquet as pq
import pytest

import rtac
from conftest import LTE, ROOT, small, without_wall

GRID = {"link[0].rate": ["10mbit", "40mbit"]}


def test_the_12_run_sweep_has_a_column_per_field_and_seed():
    runs = rtac.sweep(LTE, grid=GRID, seeds=range(3), controllers=["autotuning", "rtac"], progress=False)
    assert len(runs) == 12
    assert list(runs.columns[:4]) == ["link[0].rate", "link[0].rate_mbps", "seed", "run_key"]
    assert runs["run_key"].is_unique
    assert list(runs["link[0].rate"]) == ["10mbit"] * 6 + ["40mbit"] * 6
    assert list(runs["link[0].rate_mbps"]) == [10.0] * 6 + [40.0] * 6
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
    assert set(pd.read_parquet(tmp_path)["run_key"]) == set(first["run_key"]), "one dataset"

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


def test_quantities_in_the_grid_get_a_numeric_column_named_with_the_unit():
    runs = rtac.sweep(small(), grid={"link[0].delay": ["5ms", "1.5s"], "flow[0].cc": ["cubic"]}, seeds=[0],
                      progress=False)
    assert list(runs.columns[:4]) == ["link[0].delay", "link[0].delay_ms", "flow[0].cc", "seed"]
    assert runs["link[0].delay_ms"].dtype == "float64"
    assert sorted(set(zip(runs["link[0].delay"], runs["link[0].delay_ms"]))) == [("1.5s", 1500.0), ("5ms", 5.0)]
    # Numbers in the grid are a numeric column already: no companion.
    runs = rtac.sweep(small(), grid={"controllers[0].params.k": [3e-7, 1e-6]},
                      controllers=[{"controller": "rtac", "params": {"k": 3e-7}}], progress=False)
    assert list(runs.columns[:2]) == ["controllers[0].params.k", "seed"]
    assert list(runs["controllers[0].params.k"]) == [3e-7, 1e-6]


SWEEP_FILE = 'scenario = "small.toml"\nseeds = [0, 1]\n[grid]\n"link[0].rate" = ["10mbit", "30mbit"]\n'
SMALL_TOML = """name = "small"
duration = "3s"
controllers = ["autotuning", "rtac"]
[[link]]
name = "bn"
rate = "20mbit"
delay = "10ms"
queue = "droptail:packets=300"
loss = 0.005
[[flow]]
cc = "cubic"
"""


def _cli_sweep(cli, tmp_path, out, *extra):
    (tmp_path / "small.toml").write_text(SMALL_TOML)
    (tmp_path / "sweep.toml").write_text(SWEEP_FILE)
    return subprocess.run([cli, "sweep", tmp_path / "sweep.toml", "--out", out, *extra], check=True,
                          stderr=subprocess.PIPE, text=True).stderr


def test_the_command_line_and_the_package_write_the_same_parquet_dataset(tmp_path, rtac_cli):
    cli_out, py_out = tmp_path / "cli", tmp_path / "py"
    _cli_sweep(rtac_cli, tmp_path, cli_out)
    py = rtac.sweep(tmp_path / "small.toml", grid={"link[0].rate": ["10mbit", "30mbit"]}, seeds=[0, 1], out=py_out,
                    progress=False)
    # The same layout: the base scenario and the lock beside the parts.
    def layout(d):
        return sorted("part-*.parquet" if p.name.startswith("part-") else p.name for p in d.iterdir())
    assert layout(cli_out) == layout(py_out) == [".rtac-sweep.lock", "_scenario.toml", "part-*.parquet"]
    assert (cli_out / "_scenario.toml").read_text() == (py_out / "_scenario.toml").read_text()
    # The same schema in every part, and one table from each directory.
    schemas = {pq.read_schema(p).remove_metadata() for d in (cli_out, py_out) for p in d.glob("part-*.parquet")}
    assert len(schemas) == 1, schemas
    from_cli = pd.read_parquet(cli_out)
    from_py = pd.read_parquet(py_out)
    assert from_cli["link[0].rate_mbps"].dtype == "float64"
    assert sorted(set(zip(from_cli["link[0].rate"], from_cli["link[0].rate_mbps"]))) == [("10mbit", 10.0), ("30mbit", 30.0)]
    order = ["run_key", "flow"]
    pd.testing.assert_frame_equal(
        without_wall(from_cli.sort_values(order)), without_wall(from_py.sort_values(order)))
    pd.testing.assert_frame_equal(
        without_wall(py.sort_values(order)), without_wall(from_py.sort_values(order)), check_dtype=False)

    # Each resumes the other's directory: nothing is left to run.
    parts = sorted(cli_out.glob("part-*.parquet"))
    again = rtac.sweep(tmp_path / "small.toml", grid={"link[0].rate": ["10mbit", "30mbit"]}, seeds=[0, 1],
                       out=cli_out, progress=False)
    assert sorted(cli_out.glob("part-*.parquet")) == parts
    assert len(again) == 8
    assert "8 already in" in _cli_sweep(rtac_cli, tmp_path, py_out)


def test_a_csv_sweep_directory_is_refused(tmp_path, rtac_cli):
    out = tmp_path / "csv"
    _cli_sweep(rtac_cli, tmp_path, out, "--format", "csv")
    assert sorted(pd.read_csv(out / "runs.csv")["link[0].rate_mbps"]) == [10.0] * 4 + [30.0] * 4
    with pytest.raises(OSError, match="this directory holds a CSV sweep"):
        rtac.sweep(tmp_path / "small.toml", grid={"link[0].rate": ["10mbit", "30mbit"]}, seeds=[0, 1], out=out,
                   progress=False)


def test_a_directory_of_an_older_version_resumes_and_reads_as_one_table(tmp_path):
    # Written by rtac.sweep before the numeric grid columns; completion_s
    # is of pyarrow's null type there (no flow finished).
    data = ROOT / "crates" / "sweep" / "tests" / "data"
    out = tmp_path / "older"
    shutil.copytree(data / "older-python", out)
    old = pq.read_schema(next(out.glob("part-*.parquet")))
    assert "link[0].rate_mbps" not in old.names and str(old.field("completion_s").type) == "null"
    runs = rtac.sweep(data / "old.toml", grid={"link[0].rate": ["5mbit", "20mbit"]}, seeds=[1], out=out,
                      progress=False)
    assert len(runs) == 4
    assert runs["link[0].rate_mbps"].tolist() == [5.0, 5.0, 20.0, 20.0]
    assert len(list(out.glob("part-*.parquet"))) == 1, "nothing was run again"
    table = pd.read_parquet(out)
    assert table["completion_s"].dtype == "float64"
    assert sorted(table["link[0].rate_mbps"]) == [5.0, 5.0, 20.0, 20.0]
