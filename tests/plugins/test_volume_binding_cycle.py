"""VolumeBinding's binding cycle (kube-scheduler's AssumePodVolumes, RevertAssumedPodVolumes, BindPodVolumes and
checkBindings): Reserve assumes the bindings so later pods see them, Unreserve drops them, PreBind writes them and
waits, polled, until the PV controller binds the claims."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api import SELECTED_NODE_ANNOTATION, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.framework import CycleState, Status
from kubesched.plugins.volume_binding import NAME, TIMED_OUT, VolumeBindingArgs
from kubesched.plugins.volume_binding.claims import BIND_COMPLETED_ANNOTATION
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import (
    PluginFramework,
    like,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
    plugin_framework,
)

WAIT = make_storage_class("wait", "kubernetes.io/no-provisioner").wait_for_first_consumer()
DYNAMIC = make_storage_class("dynamic", "csi.example.com").wait_for_first_consumer()
STATIC_PV = make_pv("pv-1").storage_class("wait").capacity("5Gi").node_affinity_in("kubernetes.io/hostname", "n1")
STATIC_CLAIM = make_pvc("data").storage_class("wait")
DYNAMIC_CLAIM = make_pvc("scratch").storage_class("dynamic")


def setup(*storage: Any, timeout: int = 600) -> tuple[PluginFramework, InMemoryCluster]:
    cluster = InMemoryCluster(VirtualClock())
    framework = plugin_framework((NAME, VolumeBindingArgs(bind_timeout_seconds=timeout)),
                                 nodes=[make_node("n1").obj(), make_node("n2").obj()],
                                 storage=[WAIT, DYNAMIC, *storage], cluster=cluster)
    return framework, cluster


def hook(framework: PluginFramework, name: str) -> Any:
    found = framework.hook(NAME, name)
    assert found is not None
    return found


def reserved(framework: PluginFramework, cluster: InMemoryCluster, pod: Pod, node: str = "n1") -> CycleState:
    """PreFilter, Filter on ``node`` and Reserve there; the pod is added to the cluster."""
    cluster.add_pod(pod)
    state = CycleState()
    assert hook(framework, "pre_filter")(state, pod) is None
    info = framework.handle.snapshot.get(node)
    assert hook(framework, "filter")(state, pod, info) is None
    assert hook(framework, "reserve")(state, pod.with_node_name(node), node) is None
    return state


def claim(cluster: InMemoryCluster, name: str) -> PersistentVolumeClaim:
    found = cluster.storage.claim("default", name)
    assert found is not None
    return found


def volume(cluster: InMemoryCluster, name: str) -> PersistentVolume:
    found = cluster.storage.volume(name)
    assert found is not None
    return found


def bind_by_pv_controller(cluster: InMemoryCluster, claim_name: str, volume_name: str) -> None:
    """What the PV controller does to complete a binding: the claim gets the volume and bind-completed."""
    current = claim(cluster, claim_name)
    annotations = {**current.metadata.annotations, BIND_COMPLETED_ANNOTATION: "yes"}
    cluster.update_claim(attrs.evolve(current, metadata=attrs.evolve(current.metadata, annotations=annotations),
                                      spec=attrs.evolve(current.spec, volume_name=volume_name), phase="Bound"))


def test_reserve_assumes_the_pv_so_the_next_pod_does_not_get_it() -> None:
    """After Reserve pre-bound pv-1 to one pod's claim (in the cache only), another claim finds no PV."""
    framework, cluster = setup(STATIC_PV, STATIC_CLAIM, make_pvc("other").storage_class("wait"))
    reserved(framework, cluster, make_pod("a").pvc("data").obj())
    assert volume(cluster, "pv-1").claim_ref is None  # nothing written yet
    other = make_pod("b").pvc("other").obj()
    state = CycleState()
    assert hook(framework, "pre_filter")(state, other) is None
    assert hook(framework, "filter")(state, other, framework.handle.snapshot.get("n1")) == like(
        Status.unresolvable("node(s) didn't find available persistent volumes to bind"))


def test_unreserve_gives_the_pv_back() -> None:
    """Unreserve drops the assumed binding: the next pod's claim can take pv-1 again."""
    framework, cluster = setup(STATIC_PV, STATIC_CLAIM, make_pvc("other").storage_class("wait"))
    pod = make_pod("a").pvc("data").obj()
    state = reserved(framework, cluster, pod)
    hook(framework, "unreserve")(state, pod.with_node_name("n1"), "n1")
    other = make_pod("b").pvc("other").obj()
    state = CycleState()
    assert hook(framework, "pre_filter")(state, other) is None
    assert hook(framework, "filter")(state, other, framework.handle.snapshot.get("n1")) is None


def test_pre_bind_of_bound_claims_does_nothing() -> None:
    """A pod whose claims are all bound binds at once: PreBind writes nothing and does not wait."""
    pv = make_pv("pv-1").storage_class("wait").bound_to("default", "data")
    framework, cluster = setup(pv, make_pvc("data").storage_class("wait").bound("pv-1"))
    pod = make_pod("a").pvc("data").obj()
    state = reserved(framework, cluster, pod)
    assert hook(framework, "pre_bind")(state, pod.with_node_name("n1"), "n1") is None
    assert volume(cluster, "pv-1") == pv.obj()


def test_pre_bind_pre_binds_the_pv_then_waits_for_the_pv_controller() -> None:
    """PreBind writes the PV's claimRef (with the claim's uid and bound-by-controller), waits, and succeeds once the
    claim is bound."""
    framework, cluster = setup(STATIC_PV, STATIC_CLAIM)
    pod = make_pod("a").pvc("data").obj()
    state = reserved(framework, cluster, pod)
    pre_bind = hook(framework, "pre_bind")
    assigned = pod.with_node_name("n1")
    assert pre_bind(state, assigned, "n1") == like(Status.wait("waiting for the PV controller to bind default/data"))
    written = volume(cluster, "pv-1")
    assert written.claim_ref is not None
    assert (written.claim_ref.key, written.claim_ref.uid) == ("default/data", "default/data-uid")
    assert written.metadata.annotations["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert pre_bind(state, assigned, "n1").is_wait()
    bind_by_pv_controller(cluster, "data", "pv-1")
    assert pre_bind(state, assigned, "n1") is None


def test_pre_bind_annotates_a_claim_to_provision_with_the_node() -> None:
    """A claim to provision gets the selected-node annotation; PreBind waits until it is bound."""
    framework, cluster = setup(DYNAMIC_CLAIM)
    pod = make_pod("a").pvc("scratch").obj()
    state = reserved(framework, cluster, pod, "n2")
    pre_bind = hook(framework, "pre_bind")
    assigned = pod.with_node_name("n2")
    assert pre_bind(state, assigned, "n2").is_wait()
    assert claim(cluster, "scratch").metadata.annotations[SELECTED_NODE_ANNOTATION] == "n2"
    cluster.storage.put(make_pv("pvc-scratch").storage_class("dynamic").bound_to("default", "scratch").obj())
    bind_by_pv_controller(cluster, "scratch", "pvc-scratch")
    assert pre_bind(state, assigned, "n2") is None


def test_pre_bind_times_out_after_the_bind_timeout() -> None:
    """No binding within bind-timeout-seconds: kube-scheduler's context deadline error."""
    framework, cluster = setup(DYNAMIC_CLAIM, timeout=5)
    pod = make_pod("a").pvc("scratch").obj()
    state = reserved(framework, cluster, pod)
    pre_bind = hook(framework, "pre_bind")
    assigned = pod.with_node_name("n1")
    assert pre_bind(state, assigned, "n1").is_wait()
    cluster.clock.advance_to(4.0)
    assert pre_bind(state, assigned, "n1").is_wait()
    cluster.clock.advance_to(5.0)
    assert pre_bind(state, assigned, "n1") == like(Status.as_error(TIMED_OUT))


def test_a_zero_bind_timeout_fails_at_once() -> None:
    """bind-timeout-seconds 0: the writes are made, then the deadline has already passed."""
    framework, cluster = setup(DYNAMIC_CLAIM, timeout=0)
    pod = make_pod("a").pvc("scratch").obj()
    state = reserved(framework, cluster, pod)
    assert hook(framework, "pre_bind")(state, pod.with_node_name("n1"), "n1") == like(Status.as_error(TIMED_OUT))


def _drop_claim_ref(cluster: InMemoryCluster) -> None:
    cluster.update_volume(attrs.evolve(volume(cluster, "pv-1"), claim_ref=None))


def _drop_selected_node(cluster: InMemoryCluster) -> None:
    current = claim(cluster, "scratch")
    annotations = {k: v for k, v in current.metadata.annotations.items() if k != SELECTED_NODE_ANNOTATION}
    cluster.update_claim(attrs.evolve(current, metadata=attrs.evolve(current.metadata, annotations=annotations)))


def _delete_pod(cluster: InMemoryCluster) -> None:
    cluster.delete_pod(cluster.pods["default/a-uid"])
    cluster.clock.advance_to(30.0)  # its grace period
    cluster.agenda.dispatch_due()


@pytest.mark.parametrize(("claim_name", "change", "message"), [
    pytest.param("data", _drop_claim_ref, 'binding volumes: ClaimRef got reset for pv "pv-1"', id="claimref-reset"),
    pytest.param("scratch", _drop_selected_node, 'binding volumes: provisioning failed for PVC "scratch"',
                 id="provisioning-given-up"),
    pytest.param("data", _delete_pod, 'binding volumes: pod does not exist any more: pods "a" not found',
                 id="pod-deleted"),
])
def test_pre_bind_fails_when_the_binding_is_undone(claim_name: str, change: Any, message: str) -> None:
    """checkBindings' errors: the PV controller dropped the claimRef, the provisioner removed the selected node, or
    the pod was deleted."""
    framework, cluster = setup(STATIC_PV, STATIC_CLAIM, DYNAMIC_CLAIM)
    pod = make_pod("a").pvc(claim_name).obj()
    state = reserved(framework, cluster, pod)
    pre_bind = hook(framework, "pre_bind")
    assigned = pod.with_node_name("n1")
    assert pre_bind(state, assigned, "n1").is_wait()
    change(cluster)
    assert pre_bind(state, assigned, "n1") == like(Status.as_error(message))
