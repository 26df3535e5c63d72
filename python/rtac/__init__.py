"""rtac from Python: the receiver-side TCP window control simulator in
process, with pandas results and parameter sweeps on local cores or Ray.

    >>> import rtac
    >>> runs = rtac.simulate("scenarios/rtac-lte-single.toml")
    >>> runs[["label", "throughput_mbps", "rtt_p95_ms"]]
    >>> rtac.sweep("scenarios/rtac-lte-single.toml",
    ...            grid={"link[0].rate": ["10mbit", "40mbit"]}, seeds=range(3),
    ...            controllers=["autotuning", "rtac"], backend="ray")

See docs/PYTHON.md.
"""

from ._census import census, census_summary
from ._rtac import CensusError, ScenarioError
from ._sweep import simulate, sweep

__all__ = ["CensusError", "ScenarioError", "census", "census_summary", "simulate", "sweep"]
