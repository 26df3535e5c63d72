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
from ._rtac import __version__ as _crate_version
from ._sweep import simulate, sweep


def _version() -> str:
    """The installed distribution's version (maturin takes it from the
    Rust crate's), or the crate's where the package runs uninstalled."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rtac")
    except PackageNotFoundError:
        return _crate_version


__version__: str = _version()

__all__ = ["CensusError", "ScenarioError", "__version__", "census", "census_summary", "simulate", "sweep"]
