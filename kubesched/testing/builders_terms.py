"""The small parts pod and PDB builders take: label selectors, node selector terms, pod affinity terms and
container ports, plus the metadata methods every object builder shares.

Each part has a builder (``make_selector().label(app="web")``) whose ``obj()`` gives the API object; the pod and PDB
builders accept either the builder or the object, so a test never needs to call ``obj()`` on a part.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from datetime import datetime
from typing import Literal, Self, TypeVar

import attrs

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta
from kubesched.api.pod import ContainerPort, NodeSelectorRequirement, NodeSelectorTerm, PodAffinityTerm
from kubesched.api.quantity import Quantity

V = TypeVar("V")


class Unset(enum.Enum):
    """The default of an argument whose ``None`` means "absent in the object" (a nil selector)."""

    UNSET = 0


UNSET: Literal[Unset.UNSET] = Unset.UNSET


def quantities(values: Mapping[str, str | int | float]) -> dict[str, Quantity]:
    """A resource list from manifest-style values (``"500m"``, ``2``, ``"1Gi"``)."""
    return {name: Quantity.parse(value) for name, value in values.items()}


def resource_keys(values: Mapping[str, V]) -> dict[str, V]:
    """Resource names from keywords: ``ephemeral_storage`` -> ``ephemeral-storage``. Other names
    (``nvidia.com/gpu``) can be passed with ``**{"nvidia.com/gpu": 1}``."""
    return {k.replace("_", "-"): v for k, v in values.items()}


class MetadataBuilder:
    """The metadata methods of every object builder: labels, annotations and uid."""

    _meta: ObjectMeta

    def label(self, **labels: str) -> Self:
        """Add labels given as keywords; use :meth:`labels` for keys with dots or slashes."""
        return self.labels(labels)

    def labels(self, labels: Mapping[str, str]) -> Self:
        """Add labels whose keys are not Python identifiers (``topology.kubernetes.io/zone``)."""
        self._meta = attrs.evolve(self._meta, labels={**self._meta.labels, **labels})
        return self

    def unlabel(self, *keys: str) -> Self:
        """Remove labels, the builder's defaults included (a node without ``kubernetes.io/hostname``)."""
        self._meta = attrs.evolve(self._meta, labels={k: v for k, v in self._meta.labels.items() if k not in keys})
        return self

    def annotation(self, **annotations: str) -> Self:
        """Add annotations given as keywords; use :meth:`annotations` for keys with dots or slashes."""
        return self.annotations(annotations)

    def annotations(self, annotations: Mapping[str, str]) -> Self:
        """Add annotations whose keys are not Python identifiers (``kubesched.io/duration``)."""
        self._meta = attrs.evolve(self._meta, annotations={**self._meta.annotations, **annotations})
        return self

    def uid(self, uid: str) -> Self:
        """Set metadata.uid."""
        self._meta = attrs.evolve(self._meta, uid=uid)
        return self

    def created(self, when: datetime) -> Self:
        """Set metadata.creationTimestamp."""
        self._meta = attrs.evolve(self._meta, creation_timestamp=when)
        return self


class LabelSelectorBuilder:
    """Builds a :class:`~kubesched.api.meta.LabelSelector`: matchLabels and matchExpressions, ANDed."""

    def __init__(self) -> None:
        self._labels: dict[str, str] = {}
        self._expressions: list[LabelSelectorRequirement] = []

    def label(self, **labels: str) -> LabelSelectorBuilder:
        """Add matchLabels given as keywords."""
        return self.labels(labels)

    def labels(self, labels: Mapping[str, str]) -> LabelSelectorBuilder:
        """Add matchLabels whose keys are not Python identifiers."""
        self._labels.update(labels)
        return self

    def expression(self, key: str, operator: str, *values: str) -> LabelSelectorBuilder:
        """Add a matchExpressions entry: ``In``/``NotIn`` with values, ``Exists``/``DoesNotExist`` without."""
        self._expressions.append(LabelSelectorRequirement(key, operator, values))
        return self

    def obj(self) -> LabelSelector:
        """The selector (an empty one, which selects everything, when nothing was added)."""
        return LabelSelector(match_labels=dict(self._labels), match_expressions=tuple(self._expressions))


SelectorLike = LabelSelector | LabelSelectorBuilder


def selector_of(value: SelectorLike | None) -> LabelSelector | None:
    """The selector a builder argument stands for."""
    return value.obj() if isinstance(value, LabelSelectorBuilder) else value


class NodeSelectorTermBuilder:
    """Builds a :class:`~kubesched.api.pod.NodeSelectorTerm`: label expressions and field expressions, all ANDed."""

    def __init__(self) -> None:
        self._expressions: list[NodeSelectorRequirement] = []
        self._fields: list[NodeSelectorRequirement] = []

    def expression(self, key: str, operator: str, *values: str) -> NodeSelectorTermBuilder:
        """Add a matchExpressions entry on node labels (In, NotIn, Exists, DoesNotExist, Gt, Lt)."""
        self._expressions.append(NodeSelectorRequirement(key, operator, values))
        return self

    def field(self, key: str, operator: str, *values: str) -> NodeSelectorTermBuilder:
        """Add a matchFields entry (the API allows ``metadata.name`` with In or NotIn and one value)."""
        self._fields.append(NodeSelectorRequirement(key, operator, values))
        return self

    def obj(self) -> NodeSelectorTerm:
        """The term (an empty term, which matches no node, when nothing was added)."""
        return NodeSelectorTerm(match_expressions=tuple(self._expressions), match_fields=tuple(self._fields))


NodeTermLike = NodeSelectorTerm | NodeSelectorTermBuilder


def node_term_of(value: NodeTermLike) -> NodeSelectorTerm:
    """The node selector term a builder argument stands for."""
    return value.obj() if isinstance(value, NodeSelectorTermBuilder) else value


class PodAffinityTermBuilder:
    """Builds a :class:`~kubesched.api.pod.PodAffinityTerm`: which pods, in which namespaces, within which
    topology. Without :meth:`match` or :meth:`selector` the term has no label selector and selects no pod."""

    def __init__(self, topology_key: str) -> None:
        self._term = PodAffinityTerm(topology_key=topology_key)

    def match(self, **labels: str) -> PodAffinityTermBuilder:
        """Select pods with these labels (added to the term's matchLabels)."""
        current = self._term.label_selector or LabelSelector()
        selector = attrs.evolve(current, match_labels={**current.match_labels, **labels})
        self._term = attrs.evolve(self._term, label_selector=selector)
        return self

    def selector(self, selector: SelectorLike | None) -> PodAffinityTermBuilder:
        """Set the label selector as given (``None`` for none, ``make_selector()`` for an empty one)."""
        self._term = attrs.evolve(self._term, label_selector=selector_of(selector))
        return self

    def namespaces(self, *namespaces: str) -> PodAffinityTermBuilder:
        """Set the namespaces whose pods the term selects (default: the pod's own)."""
        self._term = attrs.evolve(self._term, namespaces=namespaces)
        return self

    def namespace_selector(self, selector: SelectorLike | None) -> PodAffinityTermBuilder:
        """Set the namespaceSelector (an empty selector selects every namespace)."""
        self._term = attrs.evolve(self._term, namespace_selector=selector_of(selector))
        return self

    def match_label_keys(self, *keys: str) -> PodAffinityTermBuilder:
        """Set matchLabelKeys: the owning pod's values of these labels are added to the selector (``In``)."""
        self._term = attrs.evolve(self._term, match_label_keys=keys)
        return self

    def mismatch_label_keys(self, *keys: str) -> PodAffinityTermBuilder:
        """Set mismatchLabelKeys: the owning pod's values of these labels are excluded (``NotIn``)."""
        self._term = attrs.evolve(self._term, mismatch_label_keys=keys)
        return self

    def obj(self) -> PodAffinityTerm:
        """The term."""
        return self._term


AffinityTermLike = PodAffinityTerm | PodAffinityTermBuilder


def affinity_term_of(value: AffinityTermLike) -> PodAffinityTerm:
    """The pod affinity term a builder argument stands for."""
    return value.obj() if isinstance(value, PodAffinityTermBuilder) else value


def port(host_port: int, protocol: str = "TCP", host_ip: str = "", *, container_port: int | None = None,
         name: str = "") -> ContainerPort:
    """A container port exposed on the host as ``host_port`` (0 for none); the container port defaults to it."""
    return ContainerPort(container_port=host_port if container_port is None else container_port,
                         host_port=host_port, protocol=protocol, host_ip=host_ip, name=name)
