"""Helpers shared by built-in plugins (score normalisation, workload selectors), usable by third-party
plugins too."""

from __future__ import annotations

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement
from kubesched.api.pod import Pod
from kubesched.api.workload import CONTROLLER_KINDS
from kubesched.backend import ClusterClient
from kubesched.framework.types import MAX_NODE_SCORE, NodeScore


def default_normalize_score(scores: list[NodeScore], *, reverse: bool = False,
                            max_priority: int = MAX_NODE_SCORE) -> None:
    """Scale scores so the highest becomes ``max_priority``; ``reverse`` flips them (fewer is better).

    When every score is 0 they stay 0, or all become ``max_priority`` when reversed.
    """
    highest = max((ns.score for ns in scores), default=0)
    if highest == 0:
        if reverse:
            for ns in scores:
                ns.score = max_priority
        return
    for ns in scores:
        score = max_priority * ns.score // highest
        ns.score = max_priority - score if reverse else score


def default_selector(pod: Pod, client: ClusterClient) -> LabelSelector | None:
    """The selector of the pod's workload (helper.DefaultSelector): the selectors of the Services that
    select it, ANDed with the selector of its controlling ReplicaSet, StatefulSet or ReplicationController.

    None when nothing selects the pod, so no default spreading applies. The controller is found through
    the pod's controller ownerReference, and only when the input holds that object.
    """
    labels: dict[str, str] = {}
    for service in client.list_services(pod.namespace):
        if service.selects(pod.namespace, pod.labels):
            labels.update(service.selector)
    expressions: tuple[LabelSelectorRequirement, ...] = ()
    owner = next((o for o in pod.metadata.owner_references if o.controller), None)
    if owner is not None and CONTROLLER_KINDS.get(owner.kind) == owner.api_version:
        controller = client.get_controller(owner.kind, pod.namespace, owner.name)
        if controller is not None and controller.selector is not None:
            labels.update(controller.selector.match_labels)
            expressions = controller.selector.match_expressions
    if not labels and not expressions:
        return None
    return LabelSelector(match_labels=labels, match_expressions=expressions)
