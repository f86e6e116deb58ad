"""ReplicationControllers with a template run, as kube-controller-manager runs them: the ReplicaSet logic, with the
v1 object's selector (a label map, defaulted to the template's labels) and owner references naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched.io.load import InputErrorList, load
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.replicaset import ReplicaSetController
from tests.sim.controllers.helpers import live, node, run

RC = """apiVersion: v1
kind: ReplicationController
metadata: {name: guestbook, uid: rc-uid}
spec:
  replicas: 3
  selector: {app: guestbook}
  template:
    metadata: {labels: {app: guestbook, tier: frontend}}
    spec: {containers: [{name: php, resources: {requests: {cpu: 500m}}}]}
"""


def test_a_replication_controller_creates_its_replicas(tmp_path: Path, registry: PluginRegistry) -> None:
    """guestbook-go's shape: three pods <rc>-<5 chars>, owned by the ReplicationController (v1), bound."""
    pods = live(run(tmp_path, node("n1") + RC, registry))
    assert len(pods) == 3
    for pod in pods:
        assert re.fullmatch(r"guestbook-[bcdfghjklmnpqrstvwxz2456789]{5}", pod.name)
        (ref,) = pod.metadata.owner_references
        assert (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller) == (
            "v1", "ReplicationController", "guestbook", "rc-uid", True)
        assert pod.spec.node_name == "n1"


def test_a_replication_controller_without_selector_selects_its_template_labels(tmp_path: Path,
                                                                               registry: PluginRegistry) -> None:
    """The API server defaults spec.selector to the template's labels; replicas default to 1."""
    text = RC.replace("  replicas: 3\n", "").replace("  selector: {app: guestbook}\n", "")
    sim = run(tmp_path, node("n1") + text, registry)
    assert len(live(sim)) == 1
    (controller,) = [c for c in sim.cluster.controllers.values() if c.kind == "ReplicationController"]
    assert controller.selector is not None
    assert dict(controller.selector.match_labels) == {"app": "guestbook", "tier": "frontend"}


def test_a_replication_controller_without_template_is_only_looked_up(tmp_path: Path,
                                                                     registry: PluginRegistry) -> None:
    """Without a template (a selector for default spreading, as before) no pod is created."""
    text = "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: old}\nspec: {selector: {app: web}}\n"
    assert live(run(tmp_path, node("n1") + text, registry)) == []


@pytest.mark.parametrize(("change", "message"), [
    pytest.param(("  selector: {app: guestbook}\n", "  selector: {app: other}\n"),
                 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"guestbook", '
                 '"tier":"frontend"}: `selector` does not match template `labels`', id="a selector the template "
                 "does not match"),
    pytest.param(("  selector: {app: guestbook}\n", ""), "spec.selector: Required value",
                 id="no selector and no template labels"),
])
def test_an_invalid_replication_controller_is_refused_in_the_api_servers_words(
        tmp_path: Path, change: tuple[str, str], message: str) -> None:
    """Both messages as the v1.32 API server gives them (checked on the binary)."""
    text = RC.replace(*change)
    if not change[1]:
        text = text.replace("metadata: {labels: {app: guestbook, tier: frontend}}", "metadata: {}")
    path = tmp_path / "rc.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputErrorList) as excinfo:
        load([path])
    assert [str(e) for e in excinfo.value.errors] == [f"{path}: replicationcontrollers/default/guestbook: {message}"]


def test_a_replication_controller_is_found_and_scaled_by_its_kind(tmp_path: Path, registry: PluginRegistry) -> None:
    """Scenario steps name it as ReplicationController (scale, delete): scaled to 1, one pod is left."""
    sim = run(tmp_path, node("n1") + RC, registry)
    controller = sim.manager.get("ReplicationController", "default", "guestbook") if sim.manager else None
    assert isinstance(controller, ReplicaSetController)
    controller.scale(1)
    sim.settle()
    assert len(live(sim)) == 1
