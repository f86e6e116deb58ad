"""docs/input.md's admission section quotes what kubesched says: each quoted message comes out of a run of the
manifests below."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched.admission.chain import ORDER
from kubesched.io.load import InputErrorList, load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from tests.conftest import REPO

DOC = " ".join((REPO / "docs" / "input.md").read_text(encoding="utf-8").split())
LIMITS = ("kind: LimitRange\nmetadata: {name: limits}\nspec: {limits: [{type: Container, default: {cpu: 500m}, "
          "defaultRequest: {cpu: 250m}, max: {cpu: '1'}, min: {cpu: 100m}}]}\n---\n")
QUOTA = "kind: ResourceQuota\nmetadata: {name: compute}\nspec: {hard: {requests.cpu: '1'}}\n---\n"
NODE = "kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', memory: 8Gi, pods: '10'}}\n---\n"


def pod(name: str, spec: str) -> str:
    """A pod manifest the input creates."""
    return f"kind: Pod\nmetadata: {{name: {name}}}\nspec: {spec}\n---\n"


def said(tmp_path: Path, registry: PluginRegistry, text: str) -> list[str]:
    """Every error line of loading ``text``, or else every pod message and annotation of simulating it."""
    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        cluster = load([path])
    except InputErrorList as errors:
        return [str(e).removeprefix(f"{path}: ") for e in errors.errors]
    notes = [v for p in cluster.pods for v in p.metadata.annotations.values()]
    return notes + [p.message for p in simulate(cluster, load_config("default", registry), registry).pods]


@pytest.mark.parametrize(("manifests", "quoted"), [
    pytest.param(LIMITS + pod("p1", "{containers: [{name: app, resources: {requests: {cpu: 700m}}}]}"),
                 'pods/default/p1: spec.containers[0].resources.requests: Invalid value: "700m": must be less than or '
                 "equal to cpu limit of 500m", id="kwok example"),
    pytest.param(LIMITS + pod("web", "{containers: [{name: app, resources: {limits: {cpu: 3}}}]}"),
                 'pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 3', id="max"),
    pytest.param(LIMITS + pod("big", "{containers: [{name: app, resources: {limits: {cpu: 3}}}]}"),
                 'pods/default/big: spec.containers[0].resources: pods "big" is forbidden: maximum cpu usage per '
                 "Container is 1, but limit is 3", id="error line"),
    pytest.param(LIMITS + pod("web", "{containers: [{name: app}]}"),
                 "LimitRanger plugin set: cpu request for container app; cpu limit for container app", id="annotation"),
    pytest.param(NODE + QUOTA + pod("a", "{containers: [{name: app, resources: {requests: {cpu: 600m}}}]}")
                 + pod("b", "{containers: [{name: app, resources: {requests: {cpu: 600m}}}]}"),
                 'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: '
                 "requests.cpu=600m, limited: requests.cpu=1", id="exceeded quota"),
    pytest.param(NODE + QUOTA + pod("web", "{containers: [{name: app}]}"),
                 "failed quota: compute: must specify requests.cpu for: app", id="must specify"),
    pytest.param(pod("web", "{runtimeClassName: kata, containers: [{name: app}]}"),
                 'pod rejected: RuntimeClass "kata" not found', id="unknown runtime class"),
])
def test_a_quoted_message_is_what_kubesched_says(tmp_path: Path, registry: PluginRegistry, manifests: str,
                                                 quoted: str) -> None:
    """The page quotes it, and a run of the manifests says it."""
    assert quoted in DOC
    assert any(quoted in line for line in said(tmp_path, registry, manifests))


def test_the_order_named_is_the_chains() -> None:
    """The page names the plugins in the order kubesched/admission/chain.py runs them."""
    named = re.findall(r"\*\*(LimitRanger|Priority|DefaultTolerationSeconds|RuntimeClass|ResourceQuota)\*\*", DOC)
    assert named[:5] == [name for name in ORDER if name != "DefaultStorageClass"]
