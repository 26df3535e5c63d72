#!/usr/bin/env python3
"""Fuzzes the `rtac` command line: generated arguments and input files
through every subcommand, each run under a time limit, counting panics,
aborts (death by a signal) and timeouts.

    bench/fuzz-cli.py                      # 10,000 cases, target/release/rtac
    bench/fuzz-cli.py --cases 2000 --rtac target/debug/rtac --jobs 2 --seed 7

`sim`, `sweep` and `plot` get mutated scenario, sweep, trace and log files
(extreme values, cut and repeated lines, long and odd strings, FIFOs,
/dev/zero, directories) and mutated options; their outputs go to a scratch
directory. `emu`, `run`, `daemon` and `get` are only exercised for their
argument handling: they run as the unprivileged user `nobody` with no
capabilities (`setpriv`), with `true` as the only program and closed local
ports as the only targets, so nothing reaches the network, a namespace, a
cgroup or the kernel's BPF. Python 3.9+, standard library only; run it as
root (for `setpriv`) or pass --no-drop to skip those four subcommands.

Outcomes: `ok` (status 0), `error` (1 or 2, a message), `panic` (status
101 or "panicked" on stderr), `abort` (killed by a signal), `timeout`
(killed at --timeout; the case's subcommand and its cause are listed), and
`long-message` (stderr over 4,000 bytes). Every panic, abort and timeout
is written to OUT/findings/ as a replayable argument list.
"""

import argparse
import collections
import json
import os
import pathlib
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parent.parent

BASES = {
    "fixed": """name = "f"
duration = "300ms"
seed = 2
controllers = ["autotuning", "rtac"]
[[link]]
name = "bn"
rate = "10mbit"
delay = "10ms"
queue = "droptail:packets=100"
[[flow]]
count = 2
cc = "cubic"
""",
    "fq": """duration = "200ms"
controllers = ["none", "drwa"]
[[link]]
rate = "50mbit"
delay = "5ms"
queue = "fq_codel:flows=1024,packets=300"
per_flow = "rr"
[[flow]]
count = 20
cc = "reno"
bytes = "100KB"
""",
    "trace": """duration = "300ms"
controllers = ["static", { label = "r", controller = "rtac", params = { delta = "18ms" } }]
[[link]]
name = "lte"
trace = "TRACE"
delay = "20ms"
queue = "codel"
channel = "lte"
[[flow]]
cc = "bbr"
start = "10ms"
""",
}

EXTREMES = ["0", "-1", "1e300", "-1e300", "nan", "inf", "18446744073709551615", "18446744073709551616",
            "9223372036854775807", "\"\"", "\"0mbit\"", "\"1ns\"", "\"1us\"", "\"100000s\"", "\"1e9s\"",
            "\"fq_codel:flows=65536\"", "\"fq_codel:flows=0\"", "\"pie:tupdate=1ms\"", "\"red:min=1,max=2\"",
            "\"droptail:bytes=1500\"", "\"/dev/zero\"", "\"FIFO\"", "\"DIR\"", "[]", "{}", "true",
            "\"" + "x" * 5000 + "\"", "\"é\u0301\u202e\"", "100000", "\"pf\"", "\"rr\""]

TOKENS = ["0", "1", "-1", "65536", "1e300", "nan", "", " ", "-", "--", "x" * 100, "y" * 100_000,
          "10mbit", "0mbit", "1ns", "5ms", "1.5s", "3MB", "rtac", "none", "static", "autotuning", "drwa",
          "drw", "rtac:k=3e-7,delta=18ms", "rtac:k=", "rtac:,", "drwa:lambda=1e300", "static:rmem_max=0",
          "rtac.k=1", "rtac.", ".k=1", "=", "é", "\u202e", "\t\n", "%s%n", "../../etc/passwd",
          "/dev/null", "/dev/zero", "FIFO", "DIR", "NOFILE", "TRACE", "SCENARIO", "SWEEP", "LOG"]

SIM_OPTS = [["-c", None], ["--controller", None], ["-p", None], ["--param", None], ["--seed", None],
            ["--threads", None], ["--json"], ["--out", "OUTDIR"], ["--max-output", None], ["--out", None]]
SWEEP_OPTS = [["--out", "OUTDIR"], ["--out", "SHAREDOUT"], ["--threads", None], ["--out", None]]
PLOT_OPTS = [["--out", "OUTDIR"], ["--bin", None], ["--from", None], ["--to", None], ["--json"],
             ["--no-charts"]]
EMU_OPTS = [["--down", None], ["--up", None], ["--delay", None], ["--down-delay", None], ["--loss", None],
            ["--queue", None], ["--down-queue", None], ["--queue-mode", None], ["--server", "true"],
            ["--server-wait", None], ["--log", "OUTDIR"], ["--stats", None], ["--summary"], ["--seed", None],
            ["--sysctl", None], ["--forward", None], ["--rt-priority", None], ["--cleanup"]]
RUN_OPTS = [["--mode", None], ["-c", None], ["--controller", None], ["-p", None], ["--log", None],
            ["--clamp", None], ["--preload", None]]
DAEMON_OPTS = [["-c", None], ["-p", None], ["--cgroup", None], ["--log", None], ["--uplink"], ["--status"],
               ["--max-sockets", None]]
GET_OPTS = [["-c", None], ["-p", None], ["-o", None], ["--log", None], ["--clamp", None],
            ["--max-time", None], ["-q"]]
MODES = ["bpf", "preload", "auto", "packet", "tun", "shared", "per-flow", "reapply", "lock", "lock:64KB"]
# Values that an option accepts, drawn 60 % of the time so that runs happen.
VALID = {
    "-c": ["none", "rtac", "drwa:lambda=2", "static:rmem_max=256KB", "autotuning", "drw"],
    "--controller": ["rtac:k=3e-7,delta=18ms", "none"], "-p": ["rtac.k=3e-7", "rtac.delta=18ms"],
    "--param": ["rtac.delta=10ms"], "--seed": ["0", "7", "18446744073709551615"], "--threads": ["1", "2"],
    "--max-output": ["1KB", "1GB"], "--mode": ["bpf", "preload", "auto"], "--clamp": ["reapply", "lock:64KB"],
    "--forward": ["packet", "tun"], "--queue-mode": ["shared", "per-flow"], "--bin": ["100ms", "1s"],
    "--from": ["0", "1.5"], "--to": ["10", "0"], "--down": ["10mbit", "TRACE"], "--queue": ["codel", "fq_codel"],
}
GET_TARGETS = ["127.0.0.1:9", "http://127.0.0.1:9/x", "[::1]:9", "localhost:0", "127.0.0.1:99999",
               "http://", "https://127.0.0.1:9/", "ftp://x", "", ":80", "127.0.0.1"]


class Scratch:
    """Input files shared by all cases."""

    def __init__(self, root, rng):
        self.root = root
        self.fifo = root / "fifo"
        os.mkfifo(self.fifo)
        self.dir = root / "adir"
        self.dir.mkdir()
        self.trace = root / "t.down"
        self.trace.write_text("".join(f"{i}\n" for i in range(1, 200)))
        self.counter = 0
        self.rng = rng

    def path(self, name):
        self.counter += 1
        return self.root / f"{self.counter}-{name}"


def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        r = rng.random()
        if r < 0.5 and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(EXTREMES)}"
        elif r < 0.65:
            del lines[i]
            if not lines:
                lines = [""]
        elif r < 0.8:
            lines.insert(i, lines[i])
        elif r < 0.9:
            lines.insert(i, rng.choice(["[[flow]]", "[[link]]", "rate = \"1mbit\"", "count = 100000",
                                        "ue = 3", "access = { rate = \"1gbit\" }", "bogus = 1", "[grid]"]))
        else:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut]
    return "\n".join(lines)


def value(rng, scratch, t=None):
    t = rng.choice(TOKENS) if t is None else t
    return {"FIFO": str(scratch.fifo), "DIR": str(scratch.dir), "NOFILE": str(scratch.root / "none"),
            "TRACE": str(scratch.trace)}.get(t, t)


def input_file(kind, rng, scratch):
    """A path for an input of `kind`: usually a mutated file, sometimes odd."""
    r = rng.random()
    if r < 0.05:
        return str(scratch.fifo)
    if r < 0.08:
        return "/dev/zero"
    if r < 0.10:
        return str(scratch.dir)
    if r < 0.12:
        return str(scratch.root / "missing.toml")
    p = scratch.path(kind)
    if kind in ("scenario", "base"):
        text = rng.choice(list(BASES.values()))
        text = text.replace("TRACE", str(scratch.trace))
        if kind == "scenario" and rng.random() < 0.6:
            text = mutate(text, rng)
        text = text.replace("\"FIFO\"", f"\"{scratch.fifo}\"").replace("\"DIR\"", f"\"{scratch.dir}\"")
    elif kind == "sweep":
        scen = input_file("scenario" if rng.random() < 0.3 else "base", rng, scratch)
        # Mostly valid sweeps, so that runs happen and outputs resume.
        good = rng.random() < 0.7
        seeds = rng.choice(["2", "[1, 2]"] if good else ["0", "[1, 1]", "1000001", "-1"])
        controllers = rng.choice(['["none"]', '["rtac", "drwa"]'] if good else ["[]", '"x"', '["bogus"]'])
        field, values = rng.choice([("link[0].delay", '["5ms", "20ms"]'), ("flow[0].cc", '["reno", "cubic"]'),
                                    ("description", '["a\\nb", "c,d\\"e"]')] if good else
                                   [("link[9].rate", '["1mbit"]'), ("seed", "[1]"), ("x", "[1]"),
                                    ("link[0].delay", "[]"), ("flow[0].cc", '["reno", "reno"]')])
        text = f'scenario = "{scen}"\nseeds = {seeds}\ncontrollers = {controllers}\n[grid]\n"{field}" = {values}\n'
        if rng.random() < 0.2:
            text = mutate(text, rng)
    elif kind == "log":
        text = rng.choice(["", "garbage\n", "t_ns,dir,event\n1,down,x\n", "{}\n", "\0\1\2" * 100,
                           "# rtac agent log\nt_s,conn,rtt_ms\n0,1,abc\n"])
    else:
        text = ""
    p.write_text(text, errors="surrogateescape")
    return str(p)


def options(table, rng, scratch, out):
    args = []
    for _ in range(rng.randint(0, 4)):
        opt = rng.choice(table)
        args.append(opt[0])
        if len(opt) > 1:
            v = opt[1]
            if v == "OUTDIR":
                v = str(scratch.path("out"))
            elif v == "SHAREDOUT":
                v = str(out)
            elif v is None and opt[0] in VALID and rng.random() < 0.6:
                v = value(rng, scratch, rng.choice(VALID[opt[0]]))
            elif v is None:
                v = value(rng, scratch)
            args.append(v)
    if rng.random() < 0.1:
        args.insert(rng.randrange(len(args) + 1), value(rng, scratch))
    return args


def case(rng, scratch, shared_out, drop):
    subs = ["sim", "sim", "sim", "sweep", "sweep", "plot", "none"]
    if drop:
        subs += ["emu", "run", "daemon", "get"]
    sub = rng.choice(subs)
    if sub in ("sim", "none"):
        args = [] if sub == "none" else ["sim"]
        if rng.random() < 0.85:
            args.append(input_file("scenario", rng, scratch))
        args += options(SIM_OPTS, rng, scratch, shared_out)
    elif sub == "sweep":
        args = ["sweep"]
        if rng.random() < 0.95:
            args.append(input_file("sweep", rng, scratch))
        # --out is required: mostly given, to a fresh or a shared (resumed)
        # directory, with other options now and then.
        if rng.random() < 0.9:
            args += ["--out", str(rng.choice([scratch.path("out"), shared_out]))]
        if rng.random() < 0.3:
            args += options(SWEEP_OPTS, rng, scratch, shared_out)
    elif sub == "plot":
        args = ["plot"] + [input_file("log", rng, scratch) for _ in range(rng.randint(0, 2))]
        args += options(PLOT_OPTS, rng, scratch, shared_out)
    elif sub == "emu":
        args = ["emu"] + options(EMU_OPTS, rng, scratch, shared_out) + rng.choice([[], ["true"], ["--", "true"]])
    elif sub == "run":
        args = ["run"] + options(RUN_OPTS, rng, scratch, shared_out) + rng.choice([[], ["--", "true"], ["true"]])
    elif sub == "daemon":
        args = ["daemon"] + options(DAEMON_OPTS, rng, scratch, shared_out)
    else:
        args = ["get"] + options(GET_OPTS, rng, scratch, shared_out)
        if rng.random() < 0.9:
            args.append(rng.choice(GET_TARGETS))
    return sub, args


def run_one(rtac, sub, args, timeout, cwd, drop):
    cmd = [rtac] + args
    if sub in ("emu", "run", "daemon", "get"):
        # No privilege at all: whatever the arguments, no namespace, cgroup,
        # BPF program or raw socket can be made.
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
               "--bounding-set=-all", "--no-new-privs"] + cmd
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, env={**os.environ, "RUST_BACKTRACE": "0", "SHELL": "/bin/true"})
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        timed_out = True
    wall = time.monotonic() - start
    err_text = err.decode("utf-8", "replace")
    rc = p.returncode
    if timed_out:
        outcome = "timeout"
    elif rc == 101 or "panicked" in err_text:
        outcome = "panic"
    elif rc < 0:
        outcome = "abort"
    elif rc == 0:
        outcome = "ok"
    else:
        outcome = "error"
    return outcome, rc, wall, err_text, len(err)


def cause(sub, args, err):
    """A short guess at why a case did not end in time."""
    text = " ".join(args)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    if "fifo" in text:
        return f"{sub}: a FIFO among the inputs"
    if "/dev/zero" in text:
        return f"{sub}: /dev/zero among the inputs"
    if sub in ("sim", "none", "sweep"):
        return f"a long simulation ({last[:100]})" if last else "a long simulation"
    return last[:120] or "no output"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rtac", default=None, help="the binary (default: target/release/rtac, else target/debug/rtac)")
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="where findings and the summary go (default: a new temporary directory)")
    ap.add_argument("--no-drop", action="store_true", help="skip emu/run/daemon/get (they need root to drop privileges)")
    args = ap.parse_args()

    rtac = args.rtac or next((str(p) for p in (ROOT / "target/release/rtac", ROOT / "target/debug/rtac") if p.exists()),
                             None)
    if not rtac:
        sys.exit("no rtac binary: build one or pass --rtac")
    rtac = os.path.abspath(rtac)
    drop = not args.no_drop
    if drop and os.geteuid() != 0:
        sys.exit("emu/run/daemon/get are run as nobody through setpriv, which needs root; or pass --no-drop")
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="rtac-fuzz-cli-"))
    (out / "findings").mkdir(parents=True, exist_ok=True)
    scratch_root = pathlib.Path(tempfile.mkdtemp(prefix="rtac-fuzz-scratch-"))
    os.chmod(scratch_root, 0o755)
    rng = random.Random(args.seed)
    scratch = Scratch(scratch_root, rng)
    shared_out = scratch_root / "shared-out"
    cases = [case(rng, scratch, shared_out, drop) for _ in range(args.cases)]
    # Files are readable by nobody, for the unprivileged subcommands.
    for p in scratch_root.iterdir():
        os.chmod(p, 0o755 if p.is_dir() else 0o644)

    counts = collections.Counter()
    per_sub = collections.defaultdict(collections.Counter)
    findings = []
    long_messages = 0
    walls = []
    start = time.monotonic()

    def go(item):
        i, (sub, a) = item
        return i, sub, a, run_one(rtac, sub, a, args.timeout, scratch_root, drop)

    with ThreadPoolExecutor(args.jobs) as pool:
        for n, (i, sub, a, (outcome, rc, wall, err, err_len)) in enumerate(pool.map(go, enumerate(cases)), 1):
            counts[outcome] += 1
            per_sub[sub][outcome] += 1
            walls.append(wall)
            if err_len > 4000:
                long_messages += 1
                counts["long-message"] += 1
                if long_messages <= 50:
                    f = {"case": i, "subcommand": sub, "status": rc, "args": [x[:300] for x in a],
                         "stderr_bytes": err_len, "stderr_head": err[:1500]}
                    (out / "findings" / f"{i:06d}-long-message.json").write_text(json.dumps(f, indent=1))
            if outcome in ("panic", "abort", "timeout"):
                f = {"case": i, "subcommand": sub, "outcome": outcome, "status": rc, "args": a,
                     "stderr_tail": err[-2000:]}
                if outcome == "timeout":
                    f["cause"] = cause(sub, a, err)
                if outcome == "abort":
                    f["signal"] = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else -rc
                findings.append(f)
                (out / "findings" / f"{i:06d}-{outcome}.json").write_text(json.dumps(f, indent=1))
            if n % 1000 == 0:
                print(f"{n}/{len(cases)} cases, {dict(counts)}", file=sys.stderr)
    wall = time.monotonic() - start
    walls.sort()
    summary = {
        "rtac": rtac, "cases": len(cases), "seed": args.seed, "timeout_s": args.timeout, "jobs": args.jobs,
        "wall_s": round(wall, 1), "median_case_s": round(walls[len(walls) // 2], 3),
        "outcomes": dict(counts), "per_subcommand": {k: dict(v) for k, v in sorted(per_sub.items())},
        "timeout_causes": dict(collections.Counter(f["cause"] for f in findings if f["outcome"] == "timeout")),
        "abort_signals": dict(collections.Counter(str(f["signal"]) for f in findings if f["outcome"] == "abort")),
        "findings": str(out / "findings"), "scratch": str(scratch_root),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))
    for f in findings[:20]:
        print(f"{f['outcome']}: rtac {shlex.join(x[:200] for x in f['args'])}\n  {f['stderr_tail'][-300:]}",
              file=sys.stderr)
    return 1 if counts["panic"] or counts["abort"] else 0


if __name__ == "__main__":
    sys.exit(main())
