"""The Ray backend on a local 2-CPU cluster."""

import pandas as pd
import pytest

import rtac
from conftest import LTE, small, without_wall

import ray  # the [ray] extra; test.sh installs it


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def test_ray_gives_the_same_12_rows_as_local(cluster):
    args = dict(grid={"link[0].rate": ["10mbit", "40mbit"]}, seeds=range(3), controllers=["autotuning", "rtac"])
    local = rtac.sweep(LTE, backend="local", progress=False, **args)
    remote = rtac.sweep(LTE, backend="ray", progress=False, **args)
    assert len(remote) == 12
    pd.testing.assert_frame_equal(without_wall(local), without_wall(remote))


def test_ray_with_one_task_at_a_time_resumes_from_out(cluster, tmp_path):
    grid = {"link[0].delay": ["5ms", "20ms"]}
    first = rtac.sweep(small(), grid=grid, seeds=[0], backend="ray", workers=1, out=tmp_path, progress=False)
    more = rtac.sweep(small(), grid=grid, seeds=[0, 1], backend="ray", out=tmp_path, progress=False)
    local = rtac.sweep(small(), grid=grid, seeds=[0, 1], progress=False)
    assert len(first) == 4 and len(more) == 8
    pd.testing.assert_frame_equal(without_wall(more), without_wall(local), check_dtype=False)
