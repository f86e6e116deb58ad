"""`kubesched run` under every fault: two ``--leader-elect`` replicas schedule a seeded workload while the campaign
restarts kube-apiserver and etcd, forces a 410 relist, SIGKILLs the leader and cuts the leader off; then it checks,
from the API server and the replicas' logs, that no pod was bound twice, no node is overcommitted, every pod that
fits is bound, no replica logged a traceback, and every replica still running is healthy.

    KUBEBUILDER_ASSETS=/path/to/binaries python -m tests.kube.fault_campaign --pods 1000

prints the figures as JSON and exits 0 when every invariant held (1 otherwise, naming each violation); the logs
stay in ``--folder``. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import attrs

from kubesched.kube.rest import KubeApi
from kubesched.testing.kube import ASSETS_VARIABLE, ControlPlane, assets_dir
from tests.kube.campaign_faults import FAULTS, Injector
from tests.kube.campaign_pods import (
    NAMESPACE,
    BindingWatch,
    Creator,
    Workload,
    bound_pods,
    overcommitted,
    overlapping_binds,
    scheduled_lines,
)
from tests.kube.campaign_replicas import Deployment, Timings
from tests.kube.helpers import create, events, grant_deploy_role

log = logging.getLogger("fault-campaign")
#: How long the pods that fit get to end bound once the last fault is over.
SETTLE = 180.0
#: How long the bound count must stay put at the end (a late extra bind would show up).
STEADY = 3.0


@attrs.frozen
class Options:
    """The campaign's size, pace, seed and leader-election timings."""

    pods: int = 1000
    nodes: int = 20
    seed: int = 1
    rate: float = 20.0
    rounds: int = 1
    timings: Timings = attrs.field(factory=Timings)
    settle: float = SETTLE


@attrs.define
class Report:
    """What happened and what was found wrong (``violations`` empty when every invariant held)."""

    pods: int = 0
    created: int = 0
    deleted: int = 0
    bound: int = 0
    pending: int = 0
    expected_bound: int = 0
    faults: list[str] = attrs.Factory(list)
    replica_exits: list[str] = attrs.Factory(list)
    #: Pods bound that no replica logged Scheduled: a bind the server accepted whose answer was lost (a cut, a
    #: stop), which the replicas then saw bound.
    bound_unlogged: list[str] = attrs.Factory(list)
    leaderships: int = 0
    relists_410: int = 0
    seconds: float = 0.0
    violations: list[str] = attrs.Factory(list)

    def to_json(self) -> str:
        """The report as JSON."""
        return json.dumps(attrs.asdict(self), indent=2)


def run_campaign(plane: ControlPlane, folder: Path, options: Options) -> Report:
    """Run the campaign against a started control plane; the replicas' logs go to ``folder``."""
    started = time.monotonic()
    report = Report(pods=options.pods)
    admin = KubeApi.connect(str(plane.kubeconfig("admin")))
    for user in ("kubesched", "kubesched-2"):
        grant_deploy_role(admin, user)
    workload = Workload(options.pods, options.nodes, options.seed)
    for index in range(options.nodes):
        create(admin, workload.node(index))
    report.expected_bound = workload.expected_bound()
    rng = random.Random(options.seed)
    order = [fault for _ in range(options.rounds) for fault in rng.sample(FAULTS, len(FAULTS))]
    deployment = Deployment(plane, folder, options.timings, admin)
    creator = Creator(admin, workload, options.rate)
    watch = BindingWatch(admin)
    injector = Injector(plane, admin, deployment, creator, rng)
    deployment.start()
    try:
        deployment.wait_leader(120)
        watch.start()
        creator.start()
        waves = len(order) + 1
        for number, fault in enumerate(order, 1):
            creator.allow(options.pods * number // waves)
            time.sleep(rng.uniform(1.0, 4.0))
            began = time.monotonic()
            account = injector.inject(fault)
            report.faults.append(f"{fault}: {account} ({time.monotonic() - began:.1f} s)")
            log.warning("fault %d/%d %s", number, len(order), report.faults[-1])
        creator.allow(options.pods)
        creator.join(options.pods / options.rate + 120)
        _settle(admin, report, options.settle)
        _check(admin, deployment, creator, watch, injector, report)
    finally:
        creator.stop()
        watch.stop()
        deployment.stop()
    logs = [path.read_text(errors="replace") for path in sorted(folder.glob("replica-*.log"))]
    report.replica_exits = [f"{e.log}: status {e.status}" + (" (SIGKILLed by the campaign)" if e.killed else "")
                            + (" (lost the Lease)" if e.lost_lease else "") for e in deployment.exits]
    report.violations += [f"{e.log} exited with status {e.status} without losing the Lease"
                          for e in deployment.exits if not e.killed and not (e.lost_lease and e.status == 1)]
    report.violations += [f"{path.name} logged a traceback" for path in sorted(folder.glob("replica-*.log"))
                          if "Traceback" in path.read_text(errors="replace")]
    report.leaderships = sum(text.count("successfully acquired lease") for text in logs)
    report.relists_410 = sum(text.count("410 Gone") for text in logs)
    report.seconds = round(time.monotonic() - started, 1)
    return report


def _settle(admin: KubeApi, report: Report, settle: float) -> None:
    """Wait (bounded) until the expected number of pods is bound, then for the count to stay put."""
    deadline = time.monotonic() + settle
    while len(bound_pods(admin)) < report.expected_bound and time.monotonic() < deadline:
        time.sleep(1.0)
    time.sleep(STEADY)


def _check(admin: KubeApi, deployment: Deployment, creator: Creator, watch: BindingWatch, injector: Injector,
           report: Report) -> None:
    """The invariants, from the API server, the binding watch and the replicas' logs."""
    v = report.violations
    v += [f"pod not created: {failure}" for failure in creator.failed]
    bound = bound_pods(admin)
    huge = creator.workload.huge()
    report.created, report.deleted = len(creator.created), len(injector.deleted)
    report.bound = len(bound)
    report.pending = report.created - report.deleted - report.bound
    if report.bound != report.expected_bound:
        v.append(f"{report.bound} pod(s) bound, capacity allows {report.expected_bound}")
    v += [f"huge pod {name} was bound to {bound[name]['spec']['nodeName']}" for name in sorted(huge & bound.keys())]
    v += overcommitted(admin, bound)
    v += watch.rebound
    logs = {path.name: path.read_text(errors="replace")
            for path in sorted(deployment.replicas[0].folder.glob("replica-*.log"))}
    logged = scheduled_lines(list(logs.values()))
    v += [f"pod {name} logged Scheduled {count} times" for name, count in sorted(logged.items()) if count > 1]
    report.bound_unlogged = sorted(bound.keys() - logged.keys())
    v += overlapping_binds(logs)
    scheduled_events = Counter(e["regarding"]["name"] for e in events(admin, NAMESPACE, "Scheduled"))
    v += [f"pod {name} has {count} Scheduled events" for name, count in sorted(scheduled_events.items()) if count > 1]
    with deployment.lock:
        running = [r for r in deployment.replicas if r.running()]
        v += [f"{r.log.name} is running but /healthz fails" for r in running if not r.healthy()]
        holder = deployment.holder()
        if sum(1 for r in running if r.lease_identity() == holder) != 1:
            v.append(f"the Lease holder {holder!r} is not exactly one running replica")


def main(argv: list[str] | None = None) -> int:
    """The command line: run one campaign on a fresh control plane, print the report, exit 1 on a violation."""
    defaults = Options()
    parser = argparse.ArgumentParser(prog="python -m tests.kube.fault_campaign", description=__doc__.split("\n")[0])
    parser.add_argument("--pods", type=int, default=defaults.pods)
    parser.add_argument("--nodes", type=int, default=defaults.nodes)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--rate", type=float, default=defaults.rate, help="pods created per second")
    parser.add_argument("--rounds", type=int, default=defaults.rounds, help="times each fault is injected")
    parser.add_argument("--folder", type=Path, help="where the logs go (default: a new temporary folder)")
    args = parser.parse_args(argv)
    assets = assets_dir()
    if assets is None:
        print(f"fault_campaign: set {ASSETS_VARIABLE} to a folder holding etcd and kube-apiserver", file=sys.stderr)
        return 2
    folder: Path = args.folder or Path(tempfile.mkdtemp(prefix="fault-campaign-"))
    folder.mkdir(parents=True, exist_ok=True)
    # Everything (the binding watch's outage warnings too) to campaign.log; the faults' progress to stderr as well.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s",
                        handlers=[logging.FileHandler(folder / "campaign.log")])
    log.addHandler(logging.StreamHandler())
    plane = ControlPlane(assets, folder / "plane")
    (folder / "plane").mkdir(exist_ok=True)
    plane.start()
    try:
        report = run_campaign(plane, folder, Options(pods=args.pods, nodes=args.nodes, seed=args.seed,
                                                     rate=args.rate, rounds=args.rounds))
    finally:
        plane.stop()
    print(report.to_json())
    print(f"logs: {folder}", file=sys.stderr)
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())

