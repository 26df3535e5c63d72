"""The package's surface: controllers as "name:k=v" strings, the version,
type hints, the output directory as a Parquet dataset, and what `seeds`
means."""

import importlib.metadata
import inspect
import re
import typing
from pathlib import Path

import pandas as pd
import pytest

import rtac
from conftest import ROOT, small, without_wall

RTAC_K = {"label": "rtac", "controller": "rtac", "params": {"k": "3e-7"}}


# --- controllers as "name:key=value,..." ------------------------------------


def test_simulate_takes_a_controller_with_parameters_as_the_command_line_writes_it():
    runs = rtac.simulate(small(), controllers=["rtac:k=3e-7"], seed=1)
    assert list(runs["label"]) == ["rtac"] and list(runs["controller"]) == ["rtac"]
    table = rtac.simulate(small(), controllers=[RTAC_K], seed=1)
    pd.testing.assert_frame_equal(without_wall(runs), without_wall(table))
    default = rtac.simulate(small(), controllers=["rtac"], seed=1)
    assert runs["rtt_mean_ms"].iloc[0] != default["rtt_mean_ms"].iloc[0], "k reaches the controller"


def test_repeated_names_are_labelled_as_the_command_line_labels_them():
    runs = rtac.simulate(small(), controllers=["rtac", "rtac:k=3e-7", "drwa", "rtac:delta=18ms, k=1e-7"], seed=1)
    assert list(runs["label"]) == ["rtac", "rtac-2", "drwa", "rtac-3"]
    assert list(runs["controller"]) == ["rtac", "rtac", "drwa", "rtac"]
    # A label given in a table is not taken again.
    runs = rtac.simulate(small(), controllers=["rtac:k=3e-7", {"label": "rtac", "controller": "drwa"}], seed=1)
    assert list(runs["label"]) == ["rtac-2", "rtac"]


def test_sweep_takes_name_and_parameter_strings_and_keys_runs_by_label():
    runs = rtac.sweep(small(), seeds=[1], controllers=["autotuning", "rtac:k=3e-7"], progress=False)
    assert list(runs["label"]) == ["autotuning", "rtac"]
    assert list(runs["run_key"]) == ["seed=1;run=autotuning", "seed=1;run=rtac"]
    alone = rtac.simulate(small(), controllers=["rtac:k=3e-7"], seed=1)
    cols = [c for c in alone.columns if c != "wall_s"]
    pd.testing.assert_frame_equal(runs[runs["label"] == "rtac"][cols].reset_index(drop=True), alone[cols])
    # A grid over the whole list takes the same strings.
    grid = rtac.sweep(small(), grid={"controllers": [["rtac:k=3e-7"]]}, seeds=[1], progress=False)
    pd.testing.assert_frame_equal(grid[cols].reset_index(drop=True), alone[cols])


@pytest.mark.parametrize(
    "controller, expected",
    [
        ("rtac:kk=1", "scenario (dict): controllers[0].params.kk: "),
        ("rtak:k=1", 'scenario (dict): controllers[0].controller: unknown controller "rtak"'),
        ("rtac:k", "scenario (dict): controllers[0]: cannot read 'k' in 'rtac:k': expected name:key=value"),
        ("rtac:k=1,k=2", "scenario (dict): controllers[0]: parameter 'k' is given twice"),
    ],
)
def test_a_bad_controller_string_names_the_entry(controller, expected):
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.simulate(small(), controllers=[controller])
    assert str(e.value).startswith(expected), str(e.value)


# --- version and type hints ---------------------------------------------------


def test_the_version_is_the_crates_and_the_distributions():
    cargo = (ROOT / "Cargo.toml").read_text()
    crate = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert rtac.__version__ == crate == rtac._rtac.__version__
    assert importlib.metadata.version("rtac") == rtac.__version__


def test_the_public_functions_have_type_hints_and_the_package_says_so():
    for f in (rtac.simulate, rtac.sweep, rtac.census, rtac.census_summary):
        hints = typing.get_type_hints(f)
        params = inspect.signature(f).parameters
        assert set(params) <= set(hints), (f.__name__, set(params) - set(hints))
        assert "return" in hints, f.__name__
    assert typing.get_type_hints(rtac.sweep)["return"] is pd.DataFrame
    assert (Path(rtac.__file__).parent / "py.typed").is_file(), "py.typed is installed with the package"
    files = [str(p) for p in importlib.metadata.files("rtac")]
    assert "rtac/py.typed" in files, files


# --- out= as a Parquet dataset ------------------------------------------------


def test_a_sweeps_output_directory_reads_as_one_parquet_dataset(tmp_path):
    grid = {"link[0].rate": ["10mbit", "40mbit"]}
    runs = rtac.sweep(small(), grid=grid, seeds=[0, 1], out=tmp_path, progress=False)
    assert (tmp_path / "_scenario.toml").is_file() and not (tmp_path / "scenario.toml").exists()
    back = pd.read_parquet(tmp_path)
    assert len(back) == len(runs) == 8
    back = back.set_index("run_key").loc[runs["run_key"]].reset_index()
    pd.testing.assert_frame_equal(back[runs.columns], runs, check_dtype=False)


def test_a_directory_with_the_older_scenario_file_name_resumes_and_moves_it(tmp_path):
    runs = rtac.sweep(small(), seeds=[0], out=tmp_path, progress=False)
    (tmp_path / "_scenario.toml").rename(tmp_path / "scenario.toml")
    again = rtac.sweep(small(), seeds=[0, 1], out=tmp_path, progress=False)
    assert len(again) == 4 and set(runs["run_key"]) <= set(again["run_key"])
    assert (tmp_path / "_scenario.toml").is_file() and not (tmp_path / "scenario.toml").exists()
    assert len(pd.read_parquet(tmp_path)) == 4
    # And one of another scenario under the old name is still refused, by that name.
    (tmp_path / "_scenario.toml").rename(tmp_path / "scenario.toml")
    other = small()
    other["link"][0]["rate"] = "30mbit"
    with pytest.raises(OSError, match=r"/scenario.toml: holds runs of a different scenario"):
        rtac.sweep(other, seeds=[0], out=tmp_path, progress=False)


# --- seeds --------------------------------------------------------------------


def test_an_integer_seeds_is_a_count_as_in_a_sweep_file():
    three = rtac.sweep(small(), seeds=3, controllers=["rtac"], progress=False)
    assert list(three["seed"]) == [0, 1, 2]
    listed = rtac.sweep(small(), seeds=range(3), controllers=["rtac"], progress=False)
    pd.testing.assert_frame_equal(without_wall(three), without_wall(listed))
    one = rtac.sweep(small(), seeds=[3], controllers=["rtac"], progress=False)
    assert list(one["seed"]) == [3]


def test_bad_seeds_are_refused_before_any_run():
    with pytest.raises(ValueError, match=r"seeds: a count of seeds must be 1..=1000000, got 0 \(the list \[0\]"):
        rtac.sweep(small(), seeds=0)
    with pytest.raises(TypeError, match="seeds: expected a count or a list of integers, got bool"):
        rtac.sweep(small(), seeds=True)
    with pytest.raises(TypeError, match=r"seeds\[1\]: expected an integer, got float"):
        rtac.sweep(small(), seeds=[1, 2.5])
