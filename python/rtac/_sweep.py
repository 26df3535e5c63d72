"""simulate() and sweep(): plans from the Rust module, run on local
threads or Ray tasks, gathered into pandas DataFrames."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Literal, TypeAlias, overload

import pandas as pd
from tqdm.auto import tqdm

from . import _scenario

BACKENDS = ("local", "ray")

#: A path, TOML text or a dict in the scenario file format.
Scenario: TypeAlias = str | os.PathLike[str] | dict[str, Any]
#: "name", "name:key=value,..." or {"label": ..., "controller": ..., "params": {...}}.
Controller: TypeAlias = str | dict[str, Any]
#: One controller or a list of them.
Controllers: TypeAlias = Controller | Sequence[Controller]


@overload
def simulate(
    scenario: Scenario,
    controllers: Controllers | None = ...,
    seed: int | None = ...,
    series: Literal[False] = ...,
) -> pd.DataFrame: ...
@overload
def simulate(
    scenario: Scenario,
    controllers: Controllers | None = ...,
    seed: int | None = ...,
    *,
    series: Literal[True],
) -> tuple[pd.DataFrame, pd.DataFrame]: ...
@overload
def simulate(
    scenario: Scenario,
    controllers: Controllers | None = ...,
    seed: int | None = ...,
    series: bool = ...,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]: ...


def simulate(
    scenario: Scenario,
    controllers: Controllers | None = None,
    seed: int | None = None,
    series: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate `scenario` once per controller, in process.

    scenario: a path, TOML text or a dict in the scenario file format.
    controllers: replaces the scenario's list: names such as "rtac",
    "name:key=value,..." strings such as "rtac:k=3e-7" (labelled as
    `rtac sim --controller` labels them: the name, then name-2, name-3 for
    repeats), or tables {"label": ..., "controller": ..., "params": {...}}.
    seed: replaces the scenario's seed.

    Returns a DataFrame with one row per (run, flow); with series=True, a
    pair (runs, series) whose second frame holds the time series (one row
    per run, sample and flow, with the queue of the flow's bottleneck).
    Raises rtac.ScenarioError with the file, field and problem.
    """
    spec = _scenario.spec(scenario, seeds=None if seed is None else [seed], controllers=controllers)
    plan = spec.plan()
    parts = list(_run_local(plan, range(len(plan)), os.cpu_count() or 1, chunk=1, series=series))
    parts.sort(key=lambda p: p[0][0])
    runs = _frame([p[1] for p in parts], floats=plan.float_columns).drop(columns=["run_key"])
    if not series:
        return runs
    return runs, _frame([p[2] for p in parts])


def sweep(
    scenario: Scenario,
    grid: dict[str, Iterable[Any]] | None = None,
    seeds: int | Iterable[int] | None = None,
    controllers: Controllers | None = None,
    backend: Literal["local", "ray"] = "local",
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Run every grid point x seed x controller of `scenario`.

    grid: {field: [values]} with fields named as scenario errors name them
    ("link[0].rate", "flow[1].cc", "link[1].queue"); the last field varies
    fastest. seeds: as a sweep file's `seeds`: a count N is the seeds 0 to
    N - 1, a list (or range) the seeds it holds (default: the scenario's
    seed); seeds=[3] is the seed 3. controllers: as in simulate(). Every
    point is checked before any run: a bad value raises rtac.ScenarioError
    naming the file and the field.

    backend: "local" runs on `workers` threads (default: every core);
    "ray" runs the same jobs as Ray tasks on the cluster that ray.init()
    reaches (started locally with `workers` CPUs if none is running) with
    at most `workers` tasks at once. Results do not depend on the backend.

    out: a directory; finished runs are written there as Parquet parts as
    they come in (at least every 10 s), and a rerun skips the runs already
    there. The directory reads as one Parquet dataset
    (pd.read_parquet(out)): the base scenario is kept in _scenario.toml,
    which Parquet readers skip. `rtac sweep --out DIR` writes the same
    directory, so either can resume the other's.

    Returns one DataFrame, a row per (run, flow), in job order: a column
    per grid field with its values as given, after it a numeric column
    whose name says the unit where those values are quantities
    (link[0].rate "10mbit" -> link[0].rate_mbps 10.0; delays -> _ms, sizes
    -> _bytes, numbers written as text -> _value), `seed`, `run_key`, then
    the columns of simulate().
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers: expected an integer >= 1, got {workers!r}")
    spec = _scenario.spec(scenario, grid, seeds, controllers)
    plan = spec.plan()
    keys = plan.keys
    sink, done = None, []
    if out is not None:
        from ._parquet import ParquetOut

        sink = ParquetOut(out, plan)
        done = sink.existing(set(keys))
    finished = set(itertools.chain.from_iterable(d["run_key"] for d in done))
    todo = [i for i, k in enumerate(keys) if k not in finished]
    if backend == "local":
        n = workers or os.cpu_count() or 1
        parts = _run_local(plan, todo, n, chunk=_chunk(len(todo), n, most=8))
    else:
        from ._ray import run_ray

        parts = run_ray(spec, todo, workers)
    rows = list(done)
    bar = tqdm(total=len(keys), initial=len(keys) - len(todo), unit="run", desc="rtac sweep", disable=not progress)
    try:
        for jobs, cols, _ in parts:
            rows.append(cols)
            if sink is not None:
                sink.add(cols)
            bar.update(len(jobs))
    finally:
        bar.close()
        if sink is not None:
            sink.flush()
    frame = _frame(rows, columns=plan.columns, floats=plan.float_columns)
    order = {k: i for i, k in enumerate(keys)}
    frame = frame.assign(_job=frame["run_key"].map(order)).sort_values(["_job", "flow"], kind="stable")
    return frame.drop(columns="_job").reset_index(drop=True)


def _chunk(jobs, workers, most):
    """Jobs per call: enough calls to keep every worker busy to the end."""
    return max(1, min(most, jobs // (workers * 4)))


def _run_local(plan, jobs, workers, chunk, series=False):
    """Yields (jobs, rows, series) per chunk of jobs as chunks finish; the
    simulations run without the GIL, so threads use every core."""
    jobs = list(jobs)
    chunks = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(plan.run, c, series): c for c in chunks}
        try:
            for f in as_completed(futures):
                rows, samples = f.result()
                yield futures[f], rows, samples
        finally:
            for f in futures:
                f.cancel()


def _frame(parts, columns=None, floats=()):
    """One DataFrame from dicts of column lists (and frames read back from
    Parquet); the columns named in `floats` as float64, None as NaN, as
    they read back from the Parquet parts."""
    parts = [p for p in parts if p is not None]
    if not parts:
        frame = pd.DataFrame(columns=columns)
    elif all(isinstance(p, dict) for p in parts):
        names = list(parts[0])
        frame = pd.DataFrame({c: list(itertools.chain.from_iterable(p[c] for p in parts)) for c in names})
    else:
        frame = pd.concat([p if isinstance(p, pd.DataFrame) else pd.DataFrame(p) for p in parts], ignore_index=True)
    for c in floats:
        if c in frame.columns:
            frame[c] = frame[c].astype("float64")
    return frame
