"""Turning the user's `scenario` argument into what the Rust plan takes."""

import operator
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
        if name == "controllers":
            values = [controller_list(v, origin) if isinstance(v, (list, tuple)) else v for v in values]
        pairs.append((name, values))
    return Spec(doc, origin, base, pairs, seeds_list(seeds), controller_list(controllers, origin))


MAX_SEEDS = 1_000_000


def seeds_list(seeds):
    """`seeds` as a sweep file reads it: an integer N is the seeds 0 to
    N - 1, an iterable the seeds it holds; None is the scenario's seed."""
    if seeds is None:
        return None
    if isinstance(seeds, (bool, str, bytes, float, dict)):
        raise TypeError(f"seeds: expected a count or a list of integers, got {type(seeds).__name__}")
    if hasattr(seeds, "__index__"):
        n = operator.index(seeds)
        if not 1 <= n <= MAX_SEEDS:
            raise ValueError(f"seeds: a count of seeds must be 1..={MAX_SEEDS}, got {n} (the list [{n}] is that one seed)")
        return list(range(n))
    if not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds: expected a count or a list of integers, got {type(seeds).__name__}")
    items = []
    for i, s in enumerate(seeds):
        if isinstance(s, bool) or not hasattr(s, "__index__"):
            raise TypeError(f"seeds[{i}]: expected an integer, got {type(s).__name__}")
        items.append(operator.index(s))
    if any(s < 0 for s in items):
        raise ValueError(f"seeds: must be integers >= 0, got {items}")
    return items


def controller_list(controllers, origin):
    """`controllers` as the scenario's list. A string "name" or
    "name:key=value,..." (as `rtac sim --controller` takes it) is labelled
    as the command line labels it: the controller's name, then name-2,
    name-3 for the next ones of the same name. Tables pass as they are."""
    if controllers is None:
        return None
    if isinstance(controllers, (str, dict)):
        controllers = [controllers]
    if isinstance(controllers, bytes) or not hasattr(controllers, "__iter__"):
        raise TypeError(f"controllers: expected a list of names or tables, got {type(controllers).__name__}")
    items = list(controllers)
    taken = set()
    for c in items:
        if isinstance(c, dict) and isinstance(c.get("label", c.get("controller")), str):
            taken.add(c.get("label", c.get("controller")))
    out = []
    for i, c in enumerate(items):
        if not isinstance(c, str):
            out.append(c)
            continue
        name, _, rest = c.partition(":")
        name = name.strip()
        params = {}
        for item in (p.strip() for p in rest.split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key or not value:
                raise _rtac.ScenarioError(
                    f"{origin}: controllers[{i}]: cannot read {item!r} in {c!r}: "
                    "expected name:key=value,..., such as rtac:k=3e-7"
                )
            if key in params:
                raise _rtac.ScenarioError(f"{origin}: controllers[{i}]: parameter {key!r} is given twice in {c!r}")
            params[key] = value
        label, n = name, 1
        while label in taken:
            n += 1
            label = f"{name}-{n}"
        taken.add(label)
        if label == name and not params and c == name:
            out.append(name)  # a bare name: the scenario file's own form
        else:
            table = {"label": label, "controller": name}
            if params:
                table["params"] = params
            out.append(table)
    return out
