"""DefaultTolerationSeconds: the not-ready and unreachable NoExecute tolerations of 300 s a pod lacks."""

from __future__ import annotations

import pytest

from kubesched.admission import default_toleration_seconds
from kubesched.api.pod import Toleration
from tests.admission.helpers import pod

NOT_READY = Toleration("node.kubernetes.io/not-ready", "Exists", effect="NoExecute", toleration_seconds=300)
UNREACHABLE = Toleration("node.kubernetes.io/unreachable", "Exists", effect="NoExecute", toleration_seconds=300)


@pytest.mark.parametrize(("tolerations", "added"), [
    pytest.param("[]", [NOT_READY, UNREACHABLE], id="none: both added, not-ready first"),
    pytest.param("[{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 20}]",
                 [UNREACHABLE], id="own not-ready kept"),
    pytest.param("[{key: node.kubernetes.io/unreachable, operator: Exists}]", [NOT_READY],
                 id="any effect covers NoExecute"),
    pytest.param("[{operator: Exists, effect: NoExecute}]", [], id="empty key covers both"),
    pytest.param("[{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}]",
                 [NOT_READY, UNREACHABLE], id="another effect does not count"),
])
def test_the_missing_tolerations_are_added_after_the_pods_own(tolerations: str, added: list[Toleration]) -> None:
    """Each of the two tolerations is added unless one of the pod's has its key (or none) and NoExecute (or
    none)."""
    original = pod(f"{{containers: [{{name: a}}], tolerations: {tolerations}}}")
    admitted = default_toleration_seconds.mutate(original)
    assert list(admitted.spec.tolerations) == [*original.spec.tolerations, *added]


def test_a_pod_tolerating_both_is_the_same_object() -> None:
    """Nothing to add: the pod is returned as it is."""
    original = pod("{containers: [{name: a}], tolerations: [{operator: Exists}]}")
    assert default_toleration_seconds.mutate(original) is original
