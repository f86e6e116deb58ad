"""`kubesched run` under every fault, at a small size: two leader-electing replicas through a kube-apiserver
restart, an etcd restart, a 410 relist, a SIGKILLed leader and a cut-off leader bind every pod that fits, none
twice, with no node overcommitted (tests/kube/fault_campaign.py; run it at 1,000 pods from the command line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.testing.kube import ControlPlane
from tests.kube.campaign_faults import FAULTS
from tests.kube.fault_campaign import Options, run_campaign

pytestmark = [pytest.mark.kube, pytest.mark.slow]


def test_every_pod_that_fits_is_bound_once_through_every_fault(kube_control_plane: ControlPlane,
                                                               tmp_path: Path) -> None:
    """120 pods on 2 nodes (room for 80 small pods; 15 huge pods fit nowhere): every fault injected, then 80
    bound, no violation of the invariants."""
    report = run_campaign(kube_control_plane, tmp_path, Options(pods=120, nodes=2, seed=7, rate=10.0))
    assert report.violations == [], report.to_json()
    assert sorted(account.split(":", 1)[0] for account in report.faults) == sorted(FAULTS)
    assert (report.bound, report.pending) == (80, 120 - report.deleted - 80)
    assert report.relists_410 > 0
