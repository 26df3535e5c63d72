"""sweep(out=DIR): finished runs as Parquet parts, read back on a rerun.

The parts are written by the Rust module (crates/sweep/src/parts.rs), the
same code that writes `rtac sweep --out DIR`, so both make the same
directory: _scenario.toml (the base scenario; a rerun with another one is
refused), .rtac-sweep.lock (held while a sweep writes), and
part-*.parquet files with the plan's columns, one Parquet type each. A
part is written whole under a temporary name and then renamed, so an
interrupted sweep leaves only complete parts. Parts written before the
grid's numeric columns existed are rewritten with them when the directory
is opened.
"""

import os

import pandas as pd
import pyarrow as pa


class ParquetOut:
    def __init__(self, out, plan):
        self.dir = os.fspath(out)
        # Held while this output lives: a second sweep on DIR is refused.
        self.out = plan.open_parquet(self.dir)

    def existing(self, keys):
        """Rows already in DIR whose run_key is one of `keys`, as frames."""
        frames = []
        for path in self.out.parts:
            try:
                frame = pd.read_parquet(path)
            except (OSError, pa.ArrowException) as e:
                raise OSError(f"{path}: cannot read this part of an earlier sweep: {e}") from e
            frame = frame[frame["run_key"].isin(keys)]
            if len(frame):
                frames.append(frame)
        return frames

    def add(self, cols):
        """Takes rows as Plan.run returns them; a part is written when due
        (50,000 rows waiting, or 10 s since the last part)."""
        self.out.add(cols)

    def flush(self):
        self.out.flush()
