"""sweep(out=DIR): finished runs as Parquet parts, read back on a rerun.

DIR holds _scenario.toml (the base scenario; a rerun with another one is
refused) and part-*.parquet files, each written whole under a temporary
name and then renamed, so an interrupted sweep leaves only complete parts.
"""

import glob
import os
import time

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

FLUSH_SECONDS = 2.0
FLUSH_ROWS = 50_000


class ParquetOut:
    def __init__(self, out, plan):
        self.dir = os.fspath(out)
        # Held while this output lives: a second sweep on DIR is refused.
        self.lock = plan.prepare_dir(self.dir)
        self.buffer = []
        self.rows = 0
        self.last = time.monotonic()
        self.written = 0

    def existing(self, keys):
        """Rows already in DIR whose run_key is one of `keys`, as frames."""
        frames = []
        for path in sorted(glob.glob(os.path.join(self.dir, "part-*.parquet"))):
            try:
                frame = pd.read_parquet(path)
            except (OSError, pa.ArrowException) as e:
                raise OSError(f"{path}: cannot read this part of an earlier sweep: {e}") from e
            if "run_key" not in frame.columns:
                raise OSError(f"{path}: has no run_key column; not written by rtac.sweep")
            frame = frame[frame["run_key"].isin(keys)]
            if len(frame):
                frames.append(frame)
        return frames

    def add(self, cols):
        self.buffer.append(cols)
        self.rows += len(cols["run_key"])
        if self.rows >= FLUSH_ROWS or time.monotonic() - self.last >= FLUSH_SECONDS:
            self.flush()

    def flush(self):
        self.last = time.monotonic()
        if not self.buffer:
            return
        names = list(self.buffer[0])
        table = pa.Table.from_pydict({c: [v for b in self.buffer for v in b[c]] for c in names})
        name = f"part-{time.time_ns()}-{os.getpid()}-{self.written:05d}.parquet"
        tmp = os.path.join(self.dir, "." + name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, os.path.join(self.dir, name))
        self.written += 1
        self.buffer = []
        self.rows = 0
