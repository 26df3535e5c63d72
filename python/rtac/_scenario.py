"""Turning the user's `scenario` argument into what the Rust plan takes."""

import os
import uuid
from dataclasses import dataclass, field

from . import _rtac


@dataclass(frozen=True)
class Spec:
    """Everything a process needs to rebuild a sweep's plan: plain Python
    values, so that it can be sent to Ray workers."""

    scenario: object  # TOML text or a dict
    origin: str
    base: str | None
    grid: list = field(default_factory=list)
    seeds: list | None = None
    controllers: list | None = None
    # Identifies this spec in worker processes, which keep the last plan.
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def plan(self):
        return _rtac.Plan(self.scenario, self.origin, self.base, self.grid, self.seeds, self.controllers)


def source(scenario):
    """(document, origin, base) for a path, a TOML string or a dict.

    A str with a newline or an '=' is TOML text; any other str or a
    path-like is a file, read here so that workers need only the traces it
    names. Relative trace paths are resolved against the file's directory,
    made absolute.
    """
    if isinstance(scenario, dict):
        return scenario, "scenario (dict)", None
    if isinstance(scenario, str) and ("\n" in scenario or "=" in scenario):
        return scenario, "scenario (string)", None
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        text = _rtac.read_document(path)
        return text, path, os.path.abspath(os.path.dirname(path) or ".")
    raise TypeError(f"scenario: expected a path, TOML text or a dict, got {type(scenario).__name__}")


def spec(scenario, grid=None, seeds=None, controllers=None):
    doc, origin, base = source(scenario)
    if grid is None:
        grid = {}
    if not isinstance(grid, dict):
        raise TypeError(f"grid: expected a dict of field -> list of values, got {type(grid).__name__}")
    pairs = []
    for name, values in grid.items():
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
            raise TypeError(f"grid[{name!r}]: expected a list of values, got {type(values).__name__}")
        values = list(values)
        kinds = {"number" if type(v) in (int, float) else type(v).__name__ for v in values}
        if len(kinds) > 1:
            raise TypeError(f"grid[{name!r}]: mixes {' and '.join(sorted(kinds))} values; give one kind per field")
        pairs.append((name, values))
    if isinstance(seeds, int):
        seeds = [seeds]
    if seeds is not None:
        seeds = [int(s) for s in seeds]
        if any(s < 0 for s in seeds):
            raise ValueError(f"seeds: must be integers >= 0, got {seeds}")
    if isinstance(controllers, str):
        controllers = [controllers]
    if controllers is not None:
        controllers = list(controllers)
    return Spec(doc, origin, base, pairs, seeds, controllers)
