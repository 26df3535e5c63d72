"""Speed of a 1,000-run sweep: the `rtac sweep` command line against the
Python package's local and Ray backends, each with 1 and 2 workers,
interleaved and repeated; prints medians and the per-run overhead of
Python and Ray over the command line.

    target/pyenv/bin/python bench/python-sweep.py [--reps 3] [--duration 3s]

Needs `cargo build --release -p rtac-cli` and the package with its [ray]
extra installed in the running Python (./test.sh makes target/pyenv).
"""

import argparse
import csv
import re
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import ray

import rtac

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / "target" / "release" / "rtac"
DELAYS = [f"{d}ms" for d in range(10, 60, 5)]  # 10 grid points
SEEDS = list(range(50))
CONTROLLERS = ["autotuning", "rtac"]  # 10 x 50 x 2 = 1,000 runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--duration", default="3s", help="simulated time per run")
    args = ap.parse_args()
    if not CLI.exists():
        raise SystemExit(f"{CLI} is missing: cargo build --release -p rtac-cli")

    text = (ROOT / "scenarios" / "rtac-lte-single.toml").read_text()
    text, n = re.subn(r'(?m)^duration = ".*"$', f'duration = "{args.duration}"', text)
    assert n == 1, "the scenario has one duration line"
    tmp = Path(tempfile.mkdtemp(prefix="rtac-bench-sweep-"))
    scenario = tmp / "scenario.toml"
    scenario.write_text(text)
    sweep_file = tmp / "sweep.toml"
    sweep_file.write_text(
        f'scenario = "scenario.toml"\nseeds = {len(SEEDS)}\ncontrollers = {CONTROLLERS!r}\n'
        f'[grid]\n"link[0].delay" = {DELAYS!r}\n'.replace("'", '"')
    )
    grid = {"link[0].delay": DELAYS}

    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    ray_start = time.perf_counter() - t

    def cli(workers, rep):
        out = tmp / f"cli-{workers}-{rep}"
        subprocess.run([CLI, "sweep", sweep_file, "--out", out, "--threads", str(workers), "--format", "csv"], check=True,
                       stderr=subprocess.DEVNULL)
        return out / "runs.csv"

    def py(backend, workers):
        return rtac.sweep(scenario, grid=grid, seeds=SEEDS, controllers=CONTROLLERS, backend=backend,
                          workers=workers, progress=False)

    configs = {
        "cli-1": lambda rep: cli(1, rep),
        "cli-2": lambda rep: cli(2, rep),
        "local-1": lambda rep: py("local", 1),
        "local-2": lambda rep: py("local", 2),
        "ray-1": lambda rep: py("ray", 1),
        "ray-2": lambda rep: py("ray", 2),
    }
    times = {k: [] for k in configs}
    cpu = {k: [] for k in configs}
    results = {}
    names = list(configs)
    for rep in range(args.reps):
        for name in names[rep % len(names):] + names[: rep % len(names)]:
            t, c = time.perf_counter(), cpu_seconds()
            results[name] = configs[name](rep)
            times[name].append(time.perf_counter() - t)
            cpu[name].append(cpu_seconds() - c)

    # The figures are only worth comparing if every way ran the same runs.
    local = results["local-2"].set_index("run_key")
    assert len(local) == 1000, len(local)
    for name in ("local-1", "ray-1", "ray-2"):
        other = results[name].set_index("run_key")
        assert (other["rtt_mean_ms"] == local["rtt_mean_ms"]).all(), name
    with open(results["cli-2"]) as f:
        rows = {r["run_key"]: float(r["rtt_mean_ms"]) for r in csv.DictReader(f)}
    assert len(rows) == 1000 and all(rows[k] == v for k, v in local["rtt_mean_ms"].items()), "cli"

    sim_ms = results["local-1"]["wall_s"].sum() / 1000 * 1e3
    print(f"1,000 runs of rtac-lte-single.toml cut to {args.duration} (10 delays x 50 seeds x autotuning, rtac); "
          f"{args.reps} repetitions, interleaved; Ray local cluster start {ray_start:.1f} s (not counted)")
    print(f"simulation alone: {sim_ms:.2f} ms per run (mean of the runs' own wall time, 1 worker)")
    print(f"{'way':6} {'workers':>7} {'median s':>9} {'runs/s':>7} {'wall vs cli':>11} {'CPU ms/run':>10} {'CPU vs cli':>10}")
    for name in names:
        way, workers = name.split("-")
        med = statistics.median(times[name])
        ratio = med / statistics.median(times[f"cli-{workers}"])
        # Ray's tasks run in worker processes whose CPU time is not counted here.
        c = statistics.median(cpu[name]) if way != "ray" else float("nan")
        cpu_ratio = c / statistics.median(cpu[f"cli-{workers}"])
        print(f"{way:6} {workers:>7} {med:9.2f} {1000 / med:7.0f} {ratio:11.2f} {c:10.2f} {cpu_ratio:10.2f}")
    print("CPU: user + system time of this process and its children per run (both ways of the command line and "
          "local; not measured for Ray, whose workers are separate processes)")
    ray.shutdown()


def cpu_seconds():
    """User + system seconds of this process and its finished children
    (over 1,000 runs, seconds are milliseconds per run)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
