"""docs/running-in-a-cluster.md's walk-through, run line by line: `kubesched run` places the quickstart's pods as
`simulate` does.

The walk-through's shell lines are read from the doc. The test's control plane plays `control-plane.sh up`/`down`
(tests read nothing outside the repository), the `kubectl` lines are done through the API (kubectl is not
required here), and the `kubesched run`, `curl` and `kill %1` lines run as written, but for a free metrics port
and the interpreter running the tests instead of `.venv/bin/kubesched`. A line of another kind fails the test, so
the doc cannot grow a step the test does not run.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.kube.rest import KubeApi
from kubesched.testing.kube import ControlPlane, free_port, log_tail
from tests.kube.helpers import REPO, create, events, get_pod, wait_for

pytestmark = [pytest.mark.kube, pytest.mark.slow]

DOC = REPO / "docs" / "running-in-a-cluster.md"
QUICKSTART = REPO / "examples" / "quickstart.yaml"


def _walkthrough() -> list[str]:
    """The walk-through's shell lines, comments stripped."""
    section = DOC.read_text().split("## Walk-through", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def _placement(api: KubeApi, pods: list[dict[str, Any]]) -> dict[str, str] | None:
    """namespace/name -> node, or "Pending" for a pod with PodScheduled=False; None until every pod is one."""
    placed = {}
    for obj in pods:
        meta = obj["metadata"]
        found = get_pod(api, meta["name"], meta.get("namespace", "default")) or {}
        node = found.get("spec", {}).get("nodeName")
        failed = any(c["type"] == "PodScheduled" and c["status"] == "False"
                     for c in found.get("status", {}).get("conditions") or [])
        if not node and not failed:
            return None
        placed[f"{meta.get('namespace', 'default')}/{meta['name']}"] = node or "Pending"
    return placed


def _check_placement(placed: dict[str, str]) -> None:
    """The pods are where `kubesched simulate examples/quickstart.yaml` puts them (web pods: on the workers)."""
    simulated = json.loads(subprocess.run(
        [sys.executable, "-m", "kubesched", "simulate", str(QUICKSTART), "-o", "json"], capture_output=True,
        check=True, cwd=REPO).stdout)
    expected = {f"{p['namespace']}/{p['name']}": p["node"] or "Pending" for p in simulated["pods"]}
    web = [key for key in expected if key.startswith("default/web-")]
    assert {k: v for k, v in placed.items() if k not in web} == {k: v for k, v in expected.items() if k not in web}
    # The web pods' nodes depend on the queue order (the API server's list order here, the file's in simulate) and
    # on ties broken at random, so only where they may go is compared: the workers, never the GPU node.
    assert {placed[k] for k in web} <= {"worker-a", "worker-b"}
    assert {expected[k] for k in web} <= {"worker-a", "worker-b"}


def test_walkthrough_schedules_the_quickstart_as_simulate_says(kube_control_plane: ControlPlane,
                                                               tmp_path: Path) -> None:
    """Every walk-through line, in order: the quickstart's pending pods are bound where `simulate` puts them,
    analytics gets a FailedScheduling event, /metrics counts the attempts and SIGTERM ends `run` with status 0."""
    kubeconfig = str(kube_control_plane.kubeconfig("admin"))
    admin = KubeApi.connect(kubeconfig)
    env = {**os.environ, "KUBECONFIG": kubeconfig,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    objects = [doc for doc in yaml.safe_load_all(QUICKSTART.read_text()) if doc]
    pods = [o for o in objects if o["kind"] == "Pod"]
    port = free_port()
    log = tmp_path / "kubesched.log"
    process: subprocess.Popen[bytes] | None = None
    ran = []
    try:
        for line in _walkthrough():
            words = shlex.split(line)
            if words[0].endswith("control-plane.sh"):
                ran.append("control plane (the fixture's)")
            elif line == "export KUBECONFIG=/tmp/kubesched-cp/kubeconfig":
                ran.append("KUBECONFIG")
            elif words[:3] == ["kubectl", "create", "namespace"]:
                for command in line.split("&&"):
                    name = shlex.split(command)[-1]
                    create(admin, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
                ran.append("namespaces")
            elif words == ["kubectl", "apply", "-f", "examples/quickstart.yaml"]:
                for obj in objects:
                    create(admin, obj)
                ran.append("apply")
            elif words[0] == ".venv/bin/kubesched" and words[-1] == "&":
                argv = [sys.executable, "-m", "kubesched", *(w.replace("$KUBECONFIG", kubeconfig) for w in words[1:-1]),
                        "--metrics-bind-address", f"127.0.0.1:{port}"]
                with log.open("ab") as out:
                    process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                               stdin=subprocess.DEVNULL, env=env, cwd=REPO)
                ran.append("run")
            elif words[:3] == ["kubectl", "get", "pods"]:
                _check_placement(wait_for("every quickstart pod to be bound or unschedulable",
                                          lambda: _placement(admin, pods), log=log))
                ran.append("pods")
            elif words[:3] == ["kubectl", "get", "events"] and "reason=FailedScheduling" in words:
                recorded = wait_for("analytics' FailedScheduling event", lambda: [
                    e for e in events(admin, "batch", "FailedScheduling") if e["regarding"]["name"] == "analytics"])
                assert recorded[0]["note"].startswith("0/3 nodes are available")
                ran.append("events")
            elif words[0] == "curl":
                shown = subprocess.run(["bash", "-c", line.replace(":10259", f":{port}")], capture_output=True,
                                       text=True, check=True, env=env, cwd=REPO).stdout
                assert 'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}' in shown
                ran.append("metrics")
            elif line == "kill %1":
                assert process is not None
                process.terminate()
                assert process.wait(15) == 0, log_tail(log)
                ran.append("stop")
            else:
                pytest.fail(f"the walk-through has a line this test does not run: {line!r}")
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(15)
    assert ran == ["control plane (the fixture's)", "KUBECONFIG", "namespaces", "apply", "run", "pods", "events",
                   "metrics", "stop", "control plane (the fixture's)"]
