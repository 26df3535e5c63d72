"""Pantheon-style throughput against 95th-percentile delay, per controller,
across the Mahimahi cellular traces in traces/mahimahi/.

One CUBIC download through each downlink trace (20 ms one-way delay, a
2000-packet drop-tail buffer: the bloated cellular queue), once with each
receiver. The runs are deterministic, so one seed per point is enough.

    python examples/pantheon.py [--out pantheon.png] [--duration 60s] [--backend ray]
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

import rtac  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONTROLLERS = ["none", "autotuning", "drwa", "rtac"]
MARKERS = {"none": "x", "autotuning": "o", "drwa": "s", "rtac": "^"}


def scenario(duration):
    return {
        "name": "pantheon-mahimahi",
        "duration": duration,
        "measure_from": "5s",
        "controllers": CONTROLLERS,
        "link": [{"name": "cell", "trace": "", "delay": "20ms", "queue": "droptail:packets=2000"}],
        "flow": [{"cc": "cubic"}],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="pantheon.png", help="the PNG to write")
    ap.add_argument("--duration", default="60s", help="simulated time per run")
    ap.add_argument("--backend", default="local", choices=["local", "ray"])
    args = ap.parse_args()

    traces = sorted(str(p) for p in (ROOT / "traces" / "mahimahi").glob("*.down"))
    runs = rtac.sweep(scenario(args.duration), grid={"link[0].trace": traces}, backend=args.backend)
    runs["trace"] = runs["link[0].trace"].map(lambda p: Path(p).stem)
    print(runs[["trace", "label", "throughput_mbps", "rtt_p95_ms", "queue_delay_p95_ms"]].to_string(index=False))

    fig, axes = plt.subplots(2, (len(traces) + 1) // 2, figsize=(10, 8), squeeze=False)
    for ax, (trace, group) in zip(axes.flat, runs.groupby("trace")):
        for _, r in group.iterrows():
            ax.scatter(r["rtt_p95_ms"], r["throughput_mbps"], marker=MARKERS[r["label"]], s=80, label=r["label"])
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.invert_xaxis()  # Pantheon's convention: better is up and to the right
        ax.set_ylim(0, group["throughput_mbps"].max() * 1.15)
        ax.set_title(trace)
        ax.set_xlabel("95th-percentile RTT (ms, log scale)")
        ax.set_ylabel("throughput (Mbit/s)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="lower left", fontsize=8)
    fig.suptitle(f"Receiver-side controllers over Mahimahi traces ({args.duration} CUBIC download, 2000-packet buffer)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
