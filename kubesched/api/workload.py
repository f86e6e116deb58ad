"""Objects scheduling reads besides pods and nodes: namespaces (for namespaceSelector) and the workload
objects whose selectors define a pod's default topology spreading (Services, ReplicaSets, StatefulSets,
ReplicationControllers)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesched.api.meta import EMPTY_MAP, LabelSelector, ObjectMeta, frozen_str_map

#: The label the API server puts on every namespace (immutable, equal to the namespace's name).
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

#: Controller kinds whose selector joins a pod's default spreading selector, with their API group.
CONTROLLER_KINDS: Mapping[str, str] = {
    "ReplicationController": "v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
}


@attrs.frozen(slots=True)
class Namespace:
    """A namespace: only its labels matter (namespaceSelector in pod affinity terms)."""

    metadata: ObjectMeta

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name


@attrs.frozen(slots=True)
class Service:
    """A Service: its spec.selector (a plain label map) selects the pods it fronts."""

    metadata: ObjectMeta
    selector: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Whether the service selects a pod (same namespace, non-empty selector, labels match)."""
        if namespace != self.metadata.namespace or not self.selector:
            return False
        return all(labels.get(k) == v for k, v in self.selector.items())


@attrs.frozen(slots=True)
class WorkloadController:
    """A ReplicaSet, StatefulSet or ReplicationController: its kind and pod selector.

    A ReplicationController's map selector is held as ``match_labels``.
    """

    kind: str
    metadata: ObjectMeta
    selector: LabelSelector | None = None


def namespace_labels(name: str, namespaces: Mapping[str, Namespace]) -> Mapping[str, str]:
    """A namespace's labels; a namespace absent from the input has just the API server's name label."""
    found = namespaces.get(name)
    if found is None:
        return {NAMESPACE_NAME_LABEL: name}
    if NAMESPACE_NAME_LABEL in found.metadata.labels:
        return found.metadata.labels
    return {**found.metadata.labels, NAMESPACE_NAME_LABEL: name}
