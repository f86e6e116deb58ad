"""DefaultTolerationSeconds, as the v1.32 API server runs it on pod creation: a pod that does not tolerate the
``node.kubernetes.io/not-ready`` or ``node.kubernetes.io/unreachable`` NoExecute taint gets a toleration of it
for 300 seconds (the API server's default ``--default-not-ready-toleration-seconds`` and
``--default-unreachable-toleration-seconds``), so the scheduler may place it on such a node."""

from __future__ import annotations

from kubesched.api.node import NO_EXECUTE
from kubesched.api.pod import Pod, Toleration
from kubesched.api.replace import replaced

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300


def _covers(toleration: Toleration, key: str) -> bool:
    """Whether the toleration counts as one of ``key``'s NoExecute taint: that key or none, that effect or none."""
    return toleration.key in (key, "") and toleration.effect in (NO_EXECUTE, "")


def mutate(pod: Pod) -> Pod:
    """The pod with the not-ready and unreachable tolerations it lacks added, in that order."""
    tolerations = pod.spec.tolerations
    missing = tuple(Toleration(key, "Exists", effect=NO_EXECUTE, toleration_seconds=DEFAULT_SECONDS)
                    for key in (NOT_READY, UNREACHABLE) if not any(_covers(t, key) for t in tolerations))
    if not missing:
        return pod
    return replaced(pod, spec=replaced(pod.spec, tolerations=(*tolerations, *missing)))
