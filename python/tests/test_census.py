"""rtac.census: the Rust census from Python, locally and on a local 2-CPU
Ray cluster, resuming an output directory in `rtac census --out`'s format."""

import csv

import pandas as pd
import pytest

import rtac
from conftest import ROOT, without_wall

import ray  # the [ray] extra; test.sh installs it

# Cheap networks of four categories (trace: recorded and synthetic traces),
# with passing and failing receivers.
SMALL = dict(seed=3, categories=["trace", "jitter", "loss", "multi"], traces=[str(ROOT / "traces" / "mahimahi")])
RECEIVERS = ["rtac", "drwa", "rtac:k=3e-7"]
BASELINE = "autotuning:rmem_max=16MB"


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def local16():
    return rtac.census(n=16, threads=2, **SMALL)


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_local_census_gives_a_row_per_network_and_receiver(local16):
    df = local16
    assert len(df) == 16 * 4
    assert list(df.columns) == [
        "index", "category", "receiver", "mbps", "rtt_ms", "share", "jain", "pass", "catastrophic",
        "thr_ratio", "rtt_ratio", "wall_s", "network",
    ]
    assert list(df["index"]) == [i for i in range(16) for _ in range(4)]
    assert list(df["receiver"]) == [BASELINE, *RECEIVERS] * 16
    assert list(df["category"][::4]) == SMALL["categories"] * 4
    base = df["receiver"] == BASELINE
    assert df.loc[base, "pass"].isna().all() and df.loc[~base, "pass"].notna().all()
    assert df.loc[~base, "pass"].any() and not df.loc[~base, "pass"].all(), "some receivers pass, some fail"
    assert df["jain"].notna().eq(df["category"] == "multi").all()
    assert df["network"].str.contains(r"\.down x").any(), "trace networks draw from the files given"
    # thr_ratio is the receiver's throughput over the baseline's on its network.
    baseline_mbps = df.loc[base].set_index("index")["mbps"]
    judged = df.loc[~base]
    ratio = judged["mbps"] / judged["index"].map(baseline_mbps)
    assert (ratio - judged["thr_ratio"]).abs().max() < 1e-9


def test_the_summary_has_the_reports_pass_rates(local16):
    summary = rtac.census_summary(local16)
    assert list(summary.index) == [*SMALL["categories"], "all"]
    assert list(summary.columns) == ["n", *RECEIVERS]
    assert list(summary["n"]) == [4, 4, 4, 4, 16]
    report = local16.attrs["report"]
    for line in report.splitlines():
        words = line.split()
        if words and words[0] in summary.index and len(words) == 2 + 2 * len(RECEIVERS):
            rates = [float(w) for w in words[2::2]]
            assert rates == [round(x, 1) for x in summary.loc[words[0], RECEIVERS]], line
            break
    else:
        pytest.fail(f"no category line in the report:\n{report}")


def test_ray_gives_the_rows_of_the_local_backend(cluster, local16):
    remote = rtac.census(n=16, backend="ray", **SMALL)
    assert remote.attrs["ran"] == 16
    pd.testing.assert_frame_equal(without_wall(remote), without_wall(local16))


def test_a_census_resumes_its_directory_on_either_backend(cluster, local16, tmp_path):
    first = rtac.census(n=6, out=tmp_path, **SMALL)
    assert first.attrs["ran"] == 6
    assert {p.name for p in tmp_path.iterdir()} >= {"census.toml", "networks.csv", "report.txt", ".lock"}
    failing = first[first["pass"] == False]  # noqa: E712 (a nullable column)
    assert len(list((tmp_path / "failures").glob("*.toml"))) == len(failing) > 0
    assert (tmp_path / "report.txt").read_text() == first.attrs["report"]

    # Same census, more networks: only the new ones run, on Ray.
    more = rtac.census(n=12, out=tmp_path, backend="ray", **SMALL)
    assert more.attrs["ran"] == 6
    # And again locally, then with nothing left to run.
    full = rtac.census(n=16, out=tmp_path, **SMALL)
    assert full.attrs["ran"] == 4
    again = rtac.census(n=16, out=tmp_path, **SMALL)
    assert again.attrs["ran"] == 0

    rows = csv_rows(tmp_path / "networks.csv")
    assert sorted(int(r["index"]) for r in rows) == [i for i in range(16) for _ in range(4)], "no network twice"
    pd.testing.assert_frame_equal(without_wall(full), without_wall(local16))
    pd.testing.assert_frame_equal(without_wall(again), without_wall(local16))

    # Another census's settings in the same directory are refused.
    with pytest.raises(OSError, match=r"census.toml: this directory holds another census"):
        rtac.census(n=16, out=tmp_path, **{**SMALL, "seed": 4})


@pytest.mark.parametrize(
    "args, expected",
    [
        (dict(controllers=["rtak"]), 'controller "rtak": unknown controller "rtak"; known controllers: '),
        (dict(controllers="rtac:kk=1"), 'controller "rtac:kk=1": controller rtac has no parameter "kk"'),
        (dict(controllers=["rtac", "rtac"]), 'controllers: "rtac" is given twice (or is the baseline)'),
        (dict(baseline="autotunin"), 'baseline: controller "autotunin": unknown controller'),
        (dict(categories=["fixd"]), 'categories: unknown category "fixd"; known: fixed, jitter, trace, loss, aqm'),
        (dict(categories=[]), "categories: no category to draw from"),
        (dict(n=0), "n: 0 networks: give 1 to 10000000"),
        (dict(n=-5), "n: -5 networks: give 1 to 10000000"),
    ],
)
def test_bad_settings_raise_the_census_message(args, expected, tmp_path):
    with pytest.raises(rtac.CensusError) as e:
        rtac.census(out=tmp_path / "out", **args)
    assert str(e.value).startswith(expected), str(e.value)
    assert isinstance(e.value, ValueError)
    assert not (tmp_path / "out").exists(), "nothing is written before the settings are checked"


def test_a_trace_directory_that_is_not_there_is_named(tmp_path):
    missing = tmp_path / "no-traces"
    with pytest.raises(rtac.CensusError) as e:
        rtac.census(n=4, traces=[missing])
    assert str(e.value).startswith(f"{missing}: cannot read the trace directory: "), str(e.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(rtac.CensusError, match="empty: holds no trace file"):
        rtac.census(n=4, traces=tmp_path / "empty")


def test_bad_arguments_raise_before_any_run():
    with pytest.raises(ValueError, match="backend: expected one of local, ray"):
        rtac.census(backend="spark")
    with pytest.raises(ValueError, match="threads: expected an integer >= 1"):
        rtac.census(threads=0)
    with pytest.raises(TypeError, match=r"controllers\[1\]: expected a string"):
        rtac.census(controllers=["rtac", {"controller": "drwa"}])
    with pytest.raises(TypeError, match="n: expected an integer"):
        rtac.census(n=2.5)
