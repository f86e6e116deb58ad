"""Fidelity of the simulator's workload and storage controllers against the real kube-controller-manager.

Each case (tests/kube/controllers_cases.py, tests/kube/storage_cases.py) is done twice on the same objects: on a
real control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager from KUBEBUILDER_ASSETS; the test
plays the kubelet and a CSI provisioner) with a settle after each step, and as a ``kubesched simulate`` scenario
with a step every 300 virtual seconds. Their normalised end states (tests/kube/controllers_state.py) must be
equal: pods per owner (a Deployment's by ReplicaSet revision), StatefulSet names, nodes where deterministic,
controller events, PDB statuses, claims (name, owner, labels, class, phase, volume).
docs/fidelity.md ("Workload controllers") lists the differences that remain; a case that shows one asserts it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kubesched.kube.rest import KubeApi
from kubesched.testing.kube import ControlPlane, ControlPlaneError
from tests.kube.controllers_cases import CASES, Case
from tests.kube.controllers_real import Kubelet, RealCase
from tests.kube.controllers_state import normalise, simulated
from tests.kube.provisioner import Provisioner
from tests.kube.storage_cases import PROVISIONER, STORAGE_CASES

pytestmark = [pytest.mark.kube, pytest.mark.slow]


@pytest.fixture(scope="module")
def workload_plane(kube_control_plane: ControlPlane) -> Iterator[Kubelet]:
    """The module's control plane with kube-scheduler, kube-controller-manager, a stand-in kubelet (which holds
    the admin API) and the storage cases' provisioner."""
    try:
        kube_control_plane.start_scheduler()
        kube_control_plane.start_controller_manager()
    except ControlPlaneError as error:
        pytest.fail(str(error), pytrace=False)
    api = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    with Kubelet(api) as kubelet, Provisioner(api, PROVISIONER):
        yield kubelet


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in (*CASES, *STORAGE_CASES)])
def test_controllers_end_as_kube_controller_manager(workload_plane: Kubelet, case: Case, tmp_path: Path) -> None:
    """The simulator's controllers leave the same pods, ReplicaSets, events and budgets as the real ones."""
    real_case = RealCase(workload_plane, case)
    try:
        real = normalise(real_case.run(), case)
    finally:
        real_case.cleanup()
    sim = normalise(simulated(case, tmp_path), case)
    for key, (kube, kubesched) in case.differences.items():  # documented in docs/fidelity.md
        assert sim.pop(key) == kubesched, f"{key}: kubesched no longer does what docs/fidelity.md says"
        if kube is not None:
            assert real[key] == kube, f"{key}: kube-controller-manager no longer does what docs/fidelity.md says"
        del real[key]
    differing = [key for key in real if real[key] != sim[key]]
    assert not differing, "\n".join(f"{key}:\n  kube:      {real[key]}\n  kubesched: {sim[key]}" for key in differing)
