"""A week of a 5000-node cluster, run as ``kubesched simulate`` runs a Scenario, with the run log, metrics and time
series on: about 1,000,000 pod arrivals (docs/performance.md, "A week of a 5000-node cluster").

    python benchmarks/week.py [--nodes 5000] [--days 7] [--scale 1] [--seed 0] [--profile default] [--json]
                              [--setup-only]

The scenario is generated in memory (seeded: the same options give the same scenario) and goes through the
scenario reader and runner that ``kubesched simulate`` uses; only the YAML parsing is skipped. The load grows
with ``--nodes`` (a 5000-node cluster's load per node) and ``--scale``:

- the cluster: nodes of 16 CPU, 64Gi and 110 pods over three zones;
- 40 Deployments (``svc-N``, 500m / 1Gi pods spread over the zones) whose replicas follow a daily curve, set
  every hour: half their peak at 02:00, the peak at 14:00 (4 pods per node at the peak in all);
- Jobs arriving as a Poisson stream (about 14,000 a day), each 1 to 16 completions of 250m to 1 CPU, run
  ``parallelism`` (up to 4) at a time, each pod for an exponential duration (mean 10 minutes, 30 s to 2 h);
- 10 CronJobs every 30 minutes (10 pods of 5 minutes, 4 at a time);
- a rollout a day (10:00, a new template for a quarter of the Deployments), a drain a day (03:00, 1% of the
  nodes, uncordoned at 05:00), and node failures (0.2% of the nodes a day at random times, replaced 30 minutes
  later by a node of the same name).

It prints CPU seconds (setup and run apart), peak RSS, pod arrivals per CPU-second of the run, and a decision
digest: the sha256 of every binding, nomination and preemption in order (``kubesched bench``'s), which an
optimisation of the simulator must leave unchanged.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

from kubesched.bench.harness import DecisionLog, peak_rss_bytes
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario import read_scenario
from kubesched.sim.scenario_run import ScenarioRunner

DAY = 86400.0
HOUR = 3600.0
ZONES = ("zone-a", "zone-b", "zone-c")
DEPLOYMENTS = 40
#: Deployment pods per node at the daily peak, over all Deployments.
PEAK_PODS_PER_NODE = 4.0
#: Job arrivals per second per 5000 nodes (about 14,000 a day).
JOB_RATE = 0.165
CRONJOBS = 10
#: Of the nodes: drained each day, and failed each day.
DRAIN_SHARE = 0.01
FAIL_SHARE = 0.002

Doc = dict[str, Any]


def node(name: str, zone: str) -> Doc:
    """A 16-CPU node in ``zone``."""
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": zone}},
            "status": {"capacity": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}


def deployment(name: str, replicas: int, version: int) -> Doc:
    """A Deployment of 500m / 1Gi pods spread over the zones; ``version`` is its image tag."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {
                         "terminationGracePeriodSeconds": 30,
                         "topologySpreadConstraints": [{
                             "maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
                             "whenUnsatisfiable": "ScheduleAnyway",
                             "labelSelector": {"matchLabels": {"app": name}}}],
                         "containers": [{"name": "app", "image": f"{name}:{version}",
                                         "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}}}}


def job_spec(completions: int, parallelism: int, cpu: str, duration: str) -> Doc:
    """A Job's spec: ``completions`` pods of ``cpu`` running ``duration`` each, ``parallelism`` at a time."""
    return {"completions": completions, "parallelism": parallelism, "backoffLimit": 6,
            "template": {"metadata": {"annotations": {"kubesched.io/duration": duration}},
                         "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                                  "containers": [{"name": "task", "image": "batch:1",
                                                  "resources": {"requests": {"cpu": cpu, "memory": "512Mi"}}}]}}}


def daily_curve(hour_of_day: float) -> float:
    """The share of its peak a Deployment runs at: 0.5 at 02:00, 1.0 at 14:00, a cosine in between."""
    return 0.75 - 0.25 * math.cos(2 * math.pi * (hour_of_day - 2) / 24)


def build(nodes: int, days: float, scale: float, seed: int) -> Doc:
    """The scenario document: every step in time order (steps at one time keep the order they are made in)."""
    rng = random.Random(seed)
    load = nodes / 5000 * scale
    end = days * DAY
    width = len(str(max(nodes - 1, 0)))
    names = [f"node-{i:0{width}d}" for i in range(nodes)]
    zone = {n: ZONES[i % len(ZONES)] for i, n in enumerate(names)}
    peak = max(1, round(PEAK_PODS_PER_NODE * nodes * scale / DEPLOYMENTS))
    versions = [1] * DEPLOYMENTS
    timed: list[tuple[float, int, Doc]] = []  # (time, order, step)

    def at(when: float, step: Doc) -> None:
        if when < end:
            timed.append((when, len(timed), step))

    first: list[Doc] = [node(n, zone[n]) for n in names]
    first += [deployment(f"svc-{d}", round(peak * daily_curve(0)), 1) for d in range(DEPLOYMENTS)]
    cronjobs = max(1, round(CRONJOBS * load))
    first += [{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": f"cron-{c}"},
               "spec": {"schedule": f"{(3 * c) % 30}/30 * * * *",
                        "jobTemplate": {"spec": job_spec(10, 4, "500m", "5m")}}} for c in range(cronjobs)]
    for hour in range(1, math.ceil(end / HOUR)):
        replicas = round(peak * daily_curve(hour % 24))
        if replicas != round(peak * daily_curve((hour - 1) % 24)):
            for d in range(DEPLOYMENTS):
                at(hour * HOUR, {"scale": {"kind": "Deployment", "name": f"svc-{d}", "replicas": replicas}})
    for day in range(math.ceil(days)):
        base = day * DAY
        for d in range(day % 4, DEPLOYMENTS, 4):  # a quarter of the Deployments roll out at 10:00
            versions[d] += 1
            replicas = round(peak * daily_curve(10))
            at(base + 10 * HOUR, {"apply": {"objects": [deployment(f"svc-{d}", replicas, versions[d])]}})
        drained = rng.sample(names, min(len(names), max(1, round(nodes * DRAIN_SHARE))))
        for n in sorted(drained):
            at(base + 3 * HOUR, {"drain-node": {"name": n}})
            at(base + 5 * HOUR, {"patch-node": {"name": n, "unschedulable": False}})
        healthy = [n for n in names if n not in drained]
        for n in rng.sample(healthy, min(len(healthy), max(1, round(nodes * FAIL_SHARE)))):
            when = base + rng.uniform(0, DAY - HOUR)
            at(when, {"delete-node": {"name": n}})
            replacement = f"{n}-r{day}"  # names are unique across a scenario's steps
            at(when + 1800, {"create": {"objects": [node(replacement, zone[n])]}})
            names[names.index(n)] = replacement
            zone[replacement] = zone[n]
    when, job = rng.expovariate(JOB_RATE * load), 0
    while when < end:
        completions = rng.randint(1, 16)
        duration = min(7200, max(30, round(rng.expovariate(1 / 600))))
        spec = job_spec(completions, min(completions, 4), rng.choice(("250m", "500m", "1")), f"{duration}s")
        at(when, {"create": {"objects": [{"apiVersion": "batch/v1", "kind": "Job",
                                          "metadata": {"name": f"job-{job}"}, "spec": spec}]}})
        job += 1
        when += rng.expovariate(JOB_RATE * load)
    steps: list[Doc] = [{"at": 0, "create": {"objects": first}}]
    for when, _, step in sorted(timed, key=lambda t: (t[0], t[1])):
        steps.append({"at": when, **step})
    steps.append({"run-until": end})
    return {"apiVersion": "kubesched.io/v1alpha1", "kind": "Scenario", "metadata": {"name": "week"},
            "spec": {"settings": {"controllerDelay": "1s"}, "steps": steps}}


def cpu_seconds() -> float:
    """User and system CPU time of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(nodes: int, days: float, scale: float, seed: int, profile: str = "default") -> dict[str, Any]:
    """Build and run the week; the figures as a JSON-ready dict."""
    start_cpu, start_wall = cpu_seconds(), time.perf_counter()
    registry = PluginRegistry.discover()
    config = load_config(profile, registry)
    scenario = read_scenario(build(nodes, days, scale, seed), Path("week.yaml"))
    runner = ScenarioRunner(scenario, config, registry, seed=seed)
    log = DecisionLog(runner.sim.cluster, runner.sim.policy)
    runner.sim.cluster.subscribe(log)
    setup_cpu = cpu_seconds() - start_cpu
    result = runner.run()
    run_cpu = cpu_seconds() - start_cpu - setup_cpu
    assert result.analysis is not None  # the run log and its metrics are on, as in kubesched simulate
    arrivals = len(runner.pods)
    return {
        "nodes": nodes, "days": days, "scale": scale, "seed": seed, "steps": len(scenario.steps),
        "podArrivals": arrivals, "bindings": sum(1 for p in result.pods if p.node), "decisions": log.decisions,
        "setupCpuSeconds": round(setup_cpu, 2), "runCpuSeconds": round(run_cpu, 2),
        "wallSeconds": round(time.perf_counter() - start_wall, 2),
        "podArrivalsPerCpuSecond": round(arrivals / max(run_cpu, 1e-9), 1),
        "peakRssBytes": peak_rss_bytes(), "seriesSamples": len(result.analysis.series.time),
        "decisionDigest": log.digest(),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--days", type=float, default=7.0)
    parser.add_argument("--scale", type=float, default=1.0, help="pod arrivals per node, relative to the default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", default="default")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    parser.add_argument("--setup-only", action="store_true",
                        help="only generate and read the scenario, and print its number of steps")
    args = parser.parse_args(argv)
    problems = [f"{flag}: must be positive, got {value}" for flag, value in
                (("--nodes", args.nodes), ("--days", args.days), ("--scale", args.scale)) if value <= 0]
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 1
    if args.setup_only:
        print(len(read_scenario(build(args.nodes, args.days, args.scale, args.seed), Path("week.yaml")).steps))
        return 0
    figures = run(args.nodes, args.days, args.scale, args.seed, args.profile)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        width = max(map(len, figures))
        for key, value in figures.items():
            print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
