"""sweep(backend="ray"): the plan's jobs as Ray tasks.

The driver sends the sweep's spec (the scenario as TOML text or a dict,
the grid, seeds and controllers: plain Python values) once through the
object store; each task rebuilds the plan in its worker process (kept for
the next task of the same sweep), runs a chunk of jobs and returns their
rows as column lists. Workers need the rtac package and any trace files
the scenario names, at the same absolute path.
"""

import logging

_remotes = {}  # function -> its Ray remote, made once per process
_worker = (None, None)  # (spec token, plan) in a worker process


def _run_chunk(spec, jobs):
    global _worker
    if _worker[0] != spec.token:
        _worker = (spec.token, spec.plan())
    rows, _ = _worker[1].run(jobs)
    return jobs, rows, None


def run_chunks(func, spec, items, workers, most):
    """Yields func(spec, chunk) for chunks of `items` (at most `most` each)
    as Ray tasks finish, with at most `workers` tasks (default: the
    cluster's CPUs) in flight. `spec` goes once through the object store."""
    import ray

    if not ray.is_initialized():
        ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.WARNING)
    if func not in _remotes:
        _remotes[func] = ray.remote(num_cpus=1)(func)
    remote = _remotes[func]
    limit = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    chunk = max(1, min(most, len(items) // (limit * 4)))
    chunks = iter([items[i : i + chunk] for i in range(0, len(items), chunk)])
    spec_ref = ray.put(spec)
    pending = []
    try:
        while True:
            while len(pending) < limit:
                c = next(chunks, None)
                if c is None:
                    break
                pending.append(remote.remote(spec_ref, c))
            if not pending:
                return
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        for ref in pending:
            ray.cancel(ref)


def run_ray(spec, jobs, workers):
    """Yields (jobs, rows, None) per chunk of the plan's jobs."""
    return run_chunks(_run_chunk, spec, jobs, workers, most=64)
