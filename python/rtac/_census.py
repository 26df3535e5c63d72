"""census(): receivers measured on networks drawn at random (crates/census).

The settings, the draw, the runs, the verdicts, the output directory and
the report are the Rust census's (`rtac._rtac.Census`), so a directory
written here is one `rtac census --out DIR` resumes, and the other way
round. With backend="ray" each task runs a chunk of networks and returns
only their measures; the driver judges and records them, which gives the
rows of the local backend because every network is a pure function of the
seed and its index.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd
from tqdm.auto import tqdm

from . import _rtac

BACKENDS = ("local", "ray")
DEFAULT_BASELINE = "autotuning:rmem_max=16MB"
WORST = 10
FLOATS = ["mbps", "rtt_ms", "share", "jain", "thr_ratio", "rtt_ratio", "wall_s"]


def census(
    n: int = 200,
    seed: int = 1,
    controllers: str | Iterable[str] | None = None,
    baseline: str = DEFAULT_BASELINE,
    categories: str | Iterable[str] | None = None,
    traces: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None = None,
    out: str | os.PathLike[str] | None = None,
    backend: Literal["local", "ray"] = "local",
    threads: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Draws `n` networks from `seed` in `categories`, runs each with the
    `baseline` receiver and the receivers in `controllers`, and judges
    each receiver against the baseline on the same network.

    controllers: "name" or "name:k=v,..." strings (default: rtac, drwa,
    rtac:k=3e-7). categories: names among fixed, jitter, trace, loss, aqm,
    bbr, shared, multi (default: all; networks go round robin). traces:
    directories of Mahimahi traces or trace files for the trace category
    (default: traces/mahimahi under the current directory if it is there;
    [] for synthetic traces only).

    out: a directory in `rtac census --out`'s format (census.toml,
    networks.csv, failures/, report.txt); networks already there are not
    run again, and a larger `n` adds networks.

    backend: "local" runs `threads` networks at a time on Rust threads
    (default: every core) without the GIL; "ray" runs chunks of networks as
    Ray tasks on the cluster ray.init() reaches (started locally with
    `threads` CPUs if none is running), at most `threads` at once (default:
    the cluster's CPUs). Results do not depend on the backend.

    Returns a DataFrame with a row per network and receiver, by index, the
    baseline's first (its verdict columns empty): index, category,
    receiver, mbps, rtt_ms, share, jain, pass, catastrophic, thr_ratio,
    rtt_ratio, wall_s, network. frame.attrs["report"] holds `rtac census`'s
    report; census_summary(frame) gives the pass rates per category.
    Raises rtac.CensusError (a ValueError) for bad settings, with the
    command line's message, and OSError for an unusable directory.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads: expected an integer >= 1, got {threads!r}")
    for name, value in (("n", n), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    if seed < 0 or seed >= 2**64:
        raise ValueError(f"seed: expected an integer from 0 to 2**64 - 1, got {seed}")
    if not isinstance(baseline, str):
        raise TypeError(f"baseline: expected a \"name[:k=v,...]\" string, got {type(baseline).__name__}")
    c = _rtac.Census(
        n, seed, _strings(controllers, "controllers"), baseline, _strings(categories, "categories"), _paths(traces)
    )
    try:
        if out is not None:
            c.open(os.fspath(out))
        todo = c.todo()
        bar = tqdm(total=c.n, initial=c.n - len(todo), unit="network", desc="rtac census", disable=not progress)
        try:
            if backend == "local":
                c.run(todo, threads or os.cpu_count() or 1, bar.update if progress else None)
            else:
                for index, wall_s, measures in _run_ray(_Spec.of(c), todo, threads):
                    c.record(index, wall_s, measures)
                    bar.update(1)
        finally:
            bar.close()
        report = c.report(WORST)
    finally:
        c.close()
    frame = _frame(c)
    frame.attrs.update(
        report=report,
        seed=c.seed,
        baseline=c.baseline,
        receivers=c.receivers,
        categories=c.categories,
        ran=len(todo),
    )
    return frame


def census_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Pass rates in percent per category (rows, in the census's order,
    then "all") and receiver (columns, after `n`, the networks in the
    category), from census()'s DataFrame or a subset of its rows."""
    judged = frame[frame["pass"].notna()]
    receivers = [r for r in frame.attrs.get("receivers", []) if r in set(judged["receiver"])]
    receivers = receivers or list(dict.fromkeys(judged["receiver"]))
    categories = list(dict.fromkeys(judged["category"]))
    rates = judged.assign(rate=judged["pass"].astype(float) * 100.0)
    table = rates.pivot_table(index="category", columns="receiver", values="rate", aggfunc="mean")
    table = table.reindex(index=categories, columns=receivers)
    table.loc["all"] = rates.groupby("receiver")["rate"].mean().reindex(receivers)
    counts = judged.groupby("category")["index"].nunique().reindex(categories)
    table.insert(0, "n", list(counts) + [judged["index"].nunique()])
    table.index.name = "category"
    table.columns.name = None
    return table


def _frame(c):
    frame = pd.DataFrame(c.rows(), columns=c.columns)
    frame = frame.astype({col: "float64" for col in FLOATS} | {"index": "int64", "pass": "boolean", "catastrophic": "boolean"})
    return frame


def _strings(value, name):
    """None, one string, or an iterable of strings, as a list (or None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name}: expected a string or a list of strings, got {type(value).__name__}")
    items = list(value)
    for i, v in enumerate(items):
        if not isinstance(v, str):
            raise TypeError(f"{name}[{i}]: expected a string, got {type(v).__name__}")
    return items


def _paths(value):
    """None, one path, or an iterable of paths, as a list of str (or None)."""
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"traces: expected a path or a list of paths, got {type(value).__name__}")
    items = list(value)
    for i, v in enumerate(items):
        if not isinstance(v, (str, os.PathLike)):
            raise TypeError(f"traces[{i}]: expected a path, got {type(v).__name__}")
    return [os.fspath(v) for v in items]


# --- backend="ray" ---------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """What a Ray worker needs to rebuild the census: plain values. The
    trace files are given one by one, absolute, so that a worker draws from
    the same files in the same order whatever its working directory (they
    must be at that path on every node)."""

    n: int
    seed: int
    controllers: list
    baseline: str
    categories: list
    traces: list
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    @staticmethod
    def of(c):
        traces = [os.path.abspath(p) for p in c.trace_files]
        return _Spec(c.n, c.seed, c.receivers, c.baseline, c.categories, traces)

    def census(self):
        return _rtac.Census(self.n, self.seed, self.controllers, self.baseline, self.categories, self.traces)


_worker = (None, None)  # (spec token, Census) in a worker process, kept for its next chunk


def _measure_chunk(spec, indices):
    global _worker
    if _worker[0] != spec.token:
        _worker = (spec.token, spec.census())
    return _worker[1].measure(indices)


def _run_ray(spec, todo, threads):
    """Yields (index, wall_s, measures) per network as Ray tasks finish."""
    from ._ray import run_chunks

    for part in run_chunks(_measure_chunk, spec, todo, threads, most=16):
        yield from part
