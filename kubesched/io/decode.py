"""Decode Kubernetes manifests (already parsed into dicts) into the attrs object model.

Unknown fields are ignored, as kubectl dumps carry many the scheduler never reads. Known fields are
type-checked and validated the way the API server would, and every failure names its field path.
API defaulting that changes scheduling is applied here: container requests default to limits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from kubesched.api import validation
from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference
from kubesched.api.node import NO_EXECUTE, TAINT_EFFECTS, ContainerImage, Node, NodeSpec, NodeStatus, Taint
from kubesched.api.pod import (
    DEFAULT_SCHEDULER_NAME,
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    Affinity,
    Container,
    ContainerPort,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodCondition,
    PodSpec,
    PodStatus,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from kubesched.api.policy import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_PRIORITY_CLASS_PREFIX,
    IntOrPercent,
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
    PriorityClass,
    builtin_priority_classes,
)
from kubesched.api.quantity import Quantity, QuantityError
from kubesched.api.workload import Namespace, Service, WorkloadController
from kubesched.io import fields as f
from kubesched.validation import HugeInteger, key_path, key_text

Obj = Mapping[str, Any]
NameRule = Callable[[str], list[str]]

PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER)
LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
TOLERATION_OPERATORS = ("Equal", "Exists")
PROTOCOLS = ("SCTP", "TCP", "UDP")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# strconv.ParseInt's syntax: ASCII digits only (str.isdigit() also takes superscripts and other scripts' digits).
_INT64_TEXT = re.compile(r"[+-]?[0-9]{1,19}", re.ASCII)
_PERCENT_TEXT = re.compile(r"[0-9]+%", re.ASCII)


def object_meta(obj: Obj, path: str = "metadata", *, namespaced: bool,
                name_rule: NameRule = validation.dns1123_subdomain) -> ObjectMeta:
    """metadata; a namespaced object without a namespace is in ``default``. The name must satisfy the kind's
    ``name_rule`` and the namespace must be a DNS-1123 label, as the API server requires."""
    meta = f.mapping(obj.get("metadata"), path)
    name = f.string(meta.get("name"), f"{path}.name")
    if not name:
        f.report(f"{path}.name", "Required value: name is required")
    else:
        _check_name(name, f"{path}.name", name_rule)
    namespace = f.string(meta.get("namespace"), f"{path}.namespace", "default") if namespaced else ""
    if namespace:
        _check_name(namespace, f"{path}.namespace", validation.dns1123_label)
    owners = f.items(meta.get("ownerReferences"), f"{path}.ownerReferences", _owner_reference)
    return ObjectMeta(
        name=name,
        namespace=namespace,
        uid=f.string(meta.get("uid"), f"{path}.uid"),
        labels=f.string_map(meta.get("labels"), f"{path}.labels"),
        annotations=f.string_map(meta.get("annotations"), f"{path}.annotations"),
        creation_timestamp=f.timestamp(meta.get("creationTimestamp"), f"{path}.creationTimestamp"),
        deletion_timestamp=f.timestamp(meta.get("deletionTimestamp"), f"{path}.deletionTimestamp"),
        owner_references=owners,
    )


def _check_name(value: str, path: str, rule: NameRule) -> bool:
    """Report every way ``value`` breaks ``rule``; True when it keeps it."""
    problems = rule(value)
    for problem in problems:
        f.report(path, f"Invalid value: {f.quote(value)}: {problem}")
    return not problems


def _owner_reference(obj: Obj, path: str) -> OwnerReference:
    return OwnerReference(
        api_version=f.string(obj.get("apiVersion"), f"{path}.apiVersion"),
        kind=f.string(obj.get("kind"), f"{path}.kind"),
        name=f.string(obj.get("name"), f"{path}.name"),
        uid=f.string(obj.get("uid"), f"{path}.uid"),
        controller=f.boolean(obj.get("controller"), f"{path}.controller"),
    )


def label_selector(value: object, path: str) -> LabelSelector | None:
    """A metav1.LabelSelector, or None when absent."""
    if value is None:
        return None
    obj = f.mapping(value, path)
    return LabelSelector(
        match_labels=f.string_map(obj.get("matchLabels"), f"{path}.matchLabels"),
        match_expressions=f.items(obj.get("matchExpressions"), f"{path}.matchExpressions", _label_requirement),
    )


def _label_requirement(obj: Obj, path: str) -> LabelSelectorRequirement:
    operator = f.one_of(obj.get("operator"), f"{path}.operator", LABEL_OPERATORS)
    if operator is None and obj.get("operator") is None:
        f.report(f"{path}.operator", "Required value")
    values = f.string_list(obj.get("values"), f"{path}.values")
    if operator in ("In", "NotIn") and not values:
        f.report(f"{path}.values", "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    if operator in ("Exists", "DoesNotExist") and values:
        f.report(f"{path}.values", "Forbidden: may not be specified when `operator` is 'Exists' or "
                                       "'DoesNotExist'")
    return LabelSelectorRequirement(f.string(obj.get("key"), f"{path}.key"), operator or "", values)


def _node_selector_requirement(obj: Obj, path: str) -> NodeSelectorRequirement:
    operator = f.one_of(obj.get("operator"), f"{path}.operator", NODE_SELECTOR_OPERATORS)
    if operator is None and obj.get("operator") is None:
        f.report(f"{path}.operator", "Required value")
    values = f.string_list(obj.get("values"), f"{path}.values")
    if operator in ("In", "NotIn") and not values:
        f.report(f"{path}.values", "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    if operator in ("Exists", "DoesNotExist") and values:
        f.report(f"{path}.values", "Forbidden: may not be specified when `operator` is 'Exists' or "
                                       "'DoesNotExist'")
    if operator in ("Gt", "Lt"):
        if len(values) != 1:
            f.report(f"{path}.values", "Required value: must be specified single value when `operator` "
                                           "is 'Lt' or 'Gt'")
        elif not _INT64_TEXT.fullmatch(values[0]) or not _INT64_MIN <= int(values[0]) <= _INT64_MAX:
            f.report(f"{path}.values[0]", f"Invalid value: {f.quote(values[0])}: must be an integer")
    return NodeSelectorRequirement(f.string(obj.get("key"), f"{path}.key"), operator or "", values)


def _node_field_requirement(obj: Obj, path: str) -> NodeSelectorRequirement:
    """A matchFields entry: only metadata.name, In or NotIn, exactly one value (ValidateNodeFieldSelector)."""
    req = _node_selector_requirement(obj, path)
    if req.key != "metadata.name":
        f.report(f"{path}.key", f'Unsupported value: {f.quote(req.key)}: supported values: "metadata.name"')
    if req.operator and req.operator not in ("In", "NotIn"):
        f.report(f"{path}.operator", f'Unsupported value: {f.quote(req.operator)}: supported values: "In", "NotIn"')
    elif len(req.values) != 1:
        f.report(f"{path}.values", "Required value: must be only one value when `operator` is 'In' or 'NotIn' "
                                       "for node field selector")
    return req


def _node_selector_term(obj: Obj, path: str) -> NodeSelectorTerm:
    return NodeSelectorTerm(
        match_expressions=f.items(obj.get("matchExpressions"), f"{path}.matchExpressions",
                                  _node_selector_requirement),
        match_fields=f.items(obj.get("matchFields"), f"{path}.matchFields", _node_field_requirement),
    )


def _preferred_term(obj: Obj, path: str) -> PreferredSchedulingTerm:
    weight = _weight(obj.get("weight"), f"{path}.weight")
    preference = _node_selector_term(f.mapping(obj.get("preference"), f"{path}.preference"), f"{path}.preference")
    return PreferredSchedulingTerm(weight, preference)


def _weight(value: object, path: str) -> int:
    weight = f.integer(value, path)
    if weight is None:
        if value is None:
            f.report(path, "Invalid value: 0: must be in the range 1-100")
        return 1
    if not 1 <= weight <= 100:
        f.report(path, f"Invalid value: {weight}: must be in the range 1-100")
    return weight


def _node_affinity(value: object, path: str) -> NodeAffinity | None:
    if value is None:
        return None
    obj = f.mapping(value, path)
    required = None
    req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    if obj.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        req = f.mapping(obj["requiredDuringSchedulingIgnoredDuringExecution"], req_path)
        terms = f.items(req.get("nodeSelectorTerms"), f"{req_path}.nodeSelectorTerms", _node_selector_term)
        if not terms:
            f.report(f"{req_path}.nodeSelectorTerms", "Required value: must have at least one node "
                                                          "selector term")
        required = NodeSelector(terms)
    preferred = f.items(obj.get("preferredDuringSchedulingIgnoredDuringExecution"),
                        f"{path}.preferredDuringSchedulingIgnoredDuringExecution", _preferred_term)
    return NodeAffinity(required, preferred)


def _pod_selector(value: object, path: str) -> LabelSelector | None:
    """A label selector in a pod spec, whose keys and values are checked."""
    selector = label_selector(value, path)
    _check_selector_labels(selector, path)
    return selector


def _check_selector_labels(selector: LabelSelector | None, path: str) -> None:
    """A pod's selector uses label keys and label values only (the API server's ValidateLabelSelector, which
    gives pods no leave for invalid values)."""
    if selector is None:
        return
    for i, req in enumerate(selector.match_expressions):
        _check_name(req.key, f"{path}.matchExpressions[{i}].key", validation.qualified_name)
        for j, text in enumerate(req.values):
            _check_name(text, f"{path}.matchExpressions[{i}].values[{j}]", validation.label_value)
    _check_labels(selector.match_labels, f"{path}.matchLabels")


def _pod_affinity_term(obj: Obj, path: str) -> PodAffinityTerm:
    topology_key = f.string(obj.get("topologyKey"), f"{path}.topologyKey")
    if not topology_key:
        f.report(f"{path}.topologyKey", "Required value: can not be empty")
    return PodAffinityTerm(
        topology_key=topology_key,
        label_selector=_pod_selector(obj.get("labelSelector"), f"{path}.labelSelector"),
        namespaces=f.string_list(obj.get("namespaces"), f"{path}.namespaces"),
        namespace_selector=_pod_selector(obj.get("namespaceSelector"), f"{path}.namespaceSelector"),
        match_label_keys=f.string_list(obj.get("matchLabelKeys"), f"{path}.matchLabelKeys"),
        mismatch_label_keys=f.string_list(obj.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys"),
    )


def _weighted_pod_affinity_term(obj: Obj, path: str) -> WeightedPodAffinityTerm:
    term_path = f"{path}.podAffinityTerm"
    term = _pod_affinity_term(f.mapping(obj.get("podAffinityTerm"), term_path), term_path)
    return WeightedPodAffinityTerm(_weight(obj.get("weight"), f"{path}.weight"), term)


def _pod_affinity(value: object, path: str) -> PodAffinity | None:
    if value is None:
        return None
    obj = f.mapping(value, path)
    return PodAffinity(
        required=f.items(obj.get("requiredDuringSchedulingIgnoredDuringExecution"),
                         f"{path}.requiredDuringSchedulingIgnoredDuringExecution", _pod_affinity_term),
        preferred=f.items(obj.get("preferredDuringSchedulingIgnoredDuringExecution"),
                          f"{path}.preferredDuringSchedulingIgnoredDuringExecution", _weighted_pod_affinity_term),
    )


def _affinity(value: object, path: str) -> Affinity | None:
    if value is None:
        return None
    obj = f.mapping(value, path)
    return Affinity(
        node_affinity=_node_affinity(obj.get("nodeAffinity"), f"{path}.nodeAffinity"),
        pod_affinity=_pod_affinity(obj.get("podAffinity"), f"{path}.podAffinity"),
        pod_anti_affinity=_pod_affinity(obj.get("podAntiAffinity"), f"{path}.podAntiAffinity"),
    )


def _toleration(obj: Obj, path: str) -> Toleration:
    """A toleration, checked as the API server's validateTolerations does, in its order (a value that is not a
    label value is reported at ``operator``, as the API server does)."""
    raw_operator, raw_effect = obj.get("operator"), obj.get("effect")
    key = f.string(obj.get("key"), f"{path}.key")
    value = f.string(obj.get("value"), f"{path}.value")
    seconds = f.integer(obj.get("tolerationSeconds"), f"{path}.tolerationSeconds")
    operator_text = raw_operator if isinstance(raw_operator, str) else ""
    effect_text = raw_effect if isinstance(raw_effect, str) else ""
    if key:
        _check_name(key, f"{path}.key", validation.qualified_name)
    if not key and operator_text != "Exists":
        f.report(f"{path}.operator", f'Invalid value: {f.quote(operator_text)}: operator must be Exists when `key` '
                                         "is empty, which means \"match all values and all keys\"")
    if obj.get("tolerationSeconds") is not None and effect_text != NO_EXECUTE:
        f.report(f"{path}.effect", f"Invalid value: {f.quote(effect_text)}: effect must be 'NoExecute' when "
                                       "`tolerationSeconds` is set")
    # An empty operator means Equal.
    operator = f.one_of(None if raw_operator == "" else raw_operator, f"{path}.operator", TOLERATION_OPERATORS,
                        "Equal")
    if operator == "Equal":
        problems = validation.label_value(value)
        if problems:
            f.report(f"{path}.operator", f"Invalid value: {f.quote(value)}: {';'.join(problems)}")
    elif operator == "Exists" and value:
        f.report(f"{path}.operator", f"Invalid value: {f.quote(value)}: value must be empty when `operator` is "
                                         "'Exists'")
    # An empty effect matches every taint effect.
    effect = f.one_of(None if raw_effect == "" else raw_effect, f"{path}.effect", TAINT_EFFECTS, "") or ""
    return Toleration(key=key, operator=operator or "Equal", value=value, effect=effect, toleration_seconds=seconds)


def _spread_constraint(obj: Obj, path: str) -> TopologySpreadConstraint:
    max_skew = f.integer(obj.get("maxSkew"), f"{path}.maxSkew", bits=32)
    if (max_skew is None and obj.get("maxSkew") is None) or (max_skew is not None and max_skew <= 0):
        f.report(f"{path}.maxSkew", f"Invalid value: {max_skew or 0}: must be greater than zero")
    topology_key = f.string(obj.get("topologyKey"), f"{path}.topologyKey")
    if not topology_key:
        f.report(f"{path}.topologyKey", "Required value: can not be empty")
    raw_when = obj.get("whenUnsatisfiable")
    # A missing whenUnsatisfiable is an empty one to the API server, and unsupported.
    when = f.one_of("" if raw_when is None else raw_when, f"{path}.whenUnsatisfiable", WHEN_UNSATISFIABLE)
    when_text = raw_when if isinstance(raw_when, str) else ""
    min_domains = f.integer(obj.get("minDomains"), f"{path}.minDomains", bits=32)
    if min_domains is not None:
        if min_domains <= 0:
            f.report(f"{path}.minDomains", f"Invalid value: {min_domains}: must be greater than zero")
        if when != "DoNotSchedule":
            f.report(f"{path}.minDomains", f"Invalid value: {min_domains}: can only use minDomains if "
                                               f"whenUnsatisfiable=DoNotSchedule, not {f.escape(when_text)}")
    selector = label_selector(obj.get("labelSelector"), f"{path}.labelSelector")
    match_label_keys = f.string_list(obj.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    _check_match_label_keys(match_label_keys, selector, f"{path}.matchLabelKeys")
    _check_selector_labels(selector, f"{path}.labelSelector")
    return TopologySpreadConstraint(
        max_skew=max_skew or 1,
        topology_key=topology_key,
        when_unsatisfiable=when or "DoNotSchedule",
        label_selector=selector,
        min_domains=min_domains,
        node_affinity_policy=f.one_of(obj.get("nodeAffinityPolicy"), f"{path}.nodeAffinityPolicy",
                                      INCLUSION_POLICIES),
        node_taints_policy=f.one_of(obj.get("nodeTaintsPolicy"), f"{path}.nodeTaintsPolicy", INCLUSION_POLICIES),
        match_label_keys=match_label_keys,
    )


def _check_match_label_keys(keys: tuple[str, ...], selector: LabelSelector | None, path: str) -> None:
    """matchLabelKeys need a labelSelector, are label keys, and none may be a key the selector already reads (the
    API server's validateMatchLabelKeysInTopologySpread)."""
    if not keys:
        return
    if selector is None:
        f.report(path, "Forbidden: must not be specified when labelSelector is not set")
    selector_keys = set(selector.match_labels) | {r.key for r in selector.match_expressions} if selector else set()
    for i, key in enumerate(keys):
        _check_name(key, f"{path}[{i}]", validation.qualified_name)
        if key in selector_keys:
            f.report(f"{path}[{i}]", f"Invalid value: {f.quote(key)}: exists in both matchLabelKeys and labelSelector")


def _check_spread_repeats(constraints: tuple[TopologySpreadConstraint, ...], path: str) -> None:
    """No two constraints may share {topologyKey, whenUnsatisfiable}; each one that a later one repeats is
    reported, as the API server does."""
    for i, constraint in enumerate(constraints):
        pair = (constraint.topology_key, constraint.when_unsatisfiable)
        if any((c.topology_key, c.when_unsatisfiable) == pair for c in constraints[i + 1:]):
            shown = f.quote(f"{{{pair[0]}, {pair[1]}}}")
            f.report(f"{path}[{i}].{{topologyKey, whenUnsatisfiable}}", f"Duplicate value: {shown}")


def _container_port(obj: Obj, path: str) -> ContainerPort:
    container_port = f.integer(obj.get("containerPort"), f"{path}.containerPort")
    if container_port == 0 or (container_port is None and obj.get("containerPort") is None):
        f.report(f"{path}.containerPort", "Required value")
    elif container_port is not None and not 1 <= container_port <= 65535:
        f.report(f"{path}.containerPort", f"Invalid value: {container_port}: must be between 1 and 65535, "
                                              "inclusive")
    host_port = f.integer(obj.get("hostPort"), f"{path}.hostPort", 0) or 0
    if not 0 <= host_port <= 65535:
        f.report(f"{path}.hostPort", f"Invalid value: {host_port}: must be between 1 and 65535, inclusive")
        host_port = 0
    return ContainerPort(
        container_port=container_port or 1,
        host_port=host_port,
        protocol=f.one_of(obj.get("protocol"), f"{path}.protocol", PROTOCOLS, "TCP") or "TCP",
        host_ip=f.string(obj.get("hostIP"), f"{path}.hostIP"),
        name=f.string(obj.get("name"), f"{path}.name"),
    )


def _check_requirements(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity], resources: Obj,
                        path: str) -> None:
    """Report how requests break the API server's rules against limits; a quantity already reported as bad
    takes no part, so that one mistake is not reported twice."""
    bad = {key_text(name) for part in ("requests", "limits") if isinstance(resources.get(part), Mapping)
           for name, raw in resources[part].items() if not _good_quantity(raw)}
    for part, name, message in validation.resource_requirement_problems(
            {n: q for n, q in requests.items() if n not in bad}, {n: q for n, q in limits.items() if n not in bad}):
        where = f"{path}.{part}" if part else path
        f.report(key_path(where, name) if name else where, message)


def _good_quantity(raw: object) -> bool:
    """Whether ``raw`` reads as a non-negative quantity."""
    try:
        return Quantity.parse(raw.text if isinstance(raw, HugeInteger) else raw).amount >= 0
    except QuantityError:
        return False


def _check_unique_names(containers: tuple[Container, ...], init_containers: tuple[Container, ...],
                        path: str) -> None:
    """Container names are unique across containers and init containers; the API server reports the later one,
    and an init container named like any container."""
    seen: set[str] = set()
    for field, group in (("containers", containers), ("initContainers", init_containers)):
        for i, container in enumerate(group):
            if container.name in seen:
                f.report(f"{path}.{field}[{i}].name", f"Duplicate value: {f.quote(container.name)}")
            elif container.name:
                seen.add(container.name)


def _check_unique_host_ports(containers: list[tuple[str, Container]]) -> None:
    """A host port (with its protocol and host IP) is used once among ``containers``, given with their paths
    (the API server's AccumulateUniqueHostPorts)."""
    seen: set[str] = set()
    for path, container in containers:
        for j, port in enumerate(container.ports):
            if not port.host_port:
                continue
            key = f"{port.protocol}/{port.host_ip}/{port.host_port}"
            if key in seen:
                f.report(f"{path}.ports[{j}].hostPort", f"Duplicate value: {f.quote(key)}")
            seen.add(key)


def _container(obj: Obj, path: str) -> Container:
    resources = f.mapping(obj.get("resources"), f"{path}.resources")
    limits = f.resource_list(resources.get("limits"), f"{path}.resources.limits")
    requests = f.resource_list(resources.get("requests"), f"{path}.resources.requests")
    # API defaulting (SetDefaults_Pod): a limit without a request makes the request equal to the limit.
    for name, limit in limits.items():
        requests.setdefault(name, limit)
    _check_requirements(requests, limits, resources, f"{path}.resources")
    name = f.string(obj.get("name"), f"{path}.name")
    if not name:
        f.report(f"{path}.name", "Required value")
    else:
        _check_name(name, f"{path}.name", validation.dns1123_label)
    return Container(
        name=name,
        image=f.string(obj.get("image"), f"{path}.image"),
        requests=requests,
        limits=limits,
        ports=f.items(obj.get("ports"), f"{path}.ports", _container_port),
        restart_policy=f.one_of(obj.get("restartPolicy"), f"{path}.restartPolicy", ("Always",)),
    )


def _scheduling_gate(obj: Obj, path: str) -> str:
    name = f.string(obj.get("name"), f"{path}.name")
    if not name:
        f.report(f"{path}.name", "Required value")
    else:
        _check_name(name, path, validation.qualified_name)
    return name


def _pod_spec(obj: Obj, path: str) -> PodSpec:
    containers = f.items(obj.get("containers"), f"{path}.containers", _container)
    if not containers:
        f.report(f"{path}.containers", "Required value: a pod needs at least one container")
    init_containers = f.items(obj.get("initContainers"), f"{path}.initContainers", _container)
    _check_unique_names(containers, init_containers, path)
    # Init containers run one at a time, so each is checked alone.
    _check_unique_host_ports([(f"{path}.containers[{i}]", c) for i, c in enumerate(containers)])
    for i, init in enumerate(init_containers):
        _check_unique_host_ports([(f"{path}.initContainers[{i}]", init)])
    spread_constraints = f.items(obj.get("topologySpreadConstraints"), f"{path}.topologySpreadConstraints",
                                 _spread_constraint)
    _check_spread_repeats(spread_constraints, f"{path}.topologySpreadConstraints")
    priority = f.integer(obj.get("priority"), f"{path}.priority", bits=32)
    grace = f.integer(obj.get("terminationGracePeriodSeconds"), f"{path}.terminationGracePeriodSeconds", 30)
    if grace is not None and grace < 0:
        f.report(f"{path}.terminationGracePeriodSeconds", f"Invalid value: {grace}: must be greater than "
                                                              "or equal to 0")
    return PodSpec(
        containers=containers,
        init_containers=init_containers,
        node_name=_node_name(obj.get("nodeName"), f"{path}.nodeName"),
        scheduler_name=f.string(obj.get("schedulerName"), f"{path}.schedulerName") or DEFAULT_SCHEDULER_NAME,
        priority=priority,
        priority_class_name=f.string(obj.get("priorityClassName"), f"{path}.priorityClassName"),
        preemption_policy=f.one_of(obj.get("preemptionPolicy"), f"{path}.preemptionPolicy", PREEMPTION_POLICIES),
        node_selector=_labels(obj.get("nodeSelector"), f"{path}.nodeSelector"),
        affinity=_affinity(obj.get("affinity"), f"{path}.affinity"),
        tolerations=f.items(obj.get("tolerations"), f"{path}.tolerations", _toleration),
        topology_spread_constraints=spread_constraints,
        overhead=f.resource_list(obj.get("overhead"), f"{path}.overhead"),
        scheduling_gates=_scheduling_gates(obj.get("schedulingGates"), f"{path}.schedulingGates"),
        termination_grace_period_seconds=30 if grace is None else grace,
    )


def _labels(value: object, path: str) -> dict[str, str]:
    """A label map whose keys are label keys and values label values."""
    labels = f.string_map(value, path)
    _check_labels(labels, path)
    return labels


def _check_labels(labels: Mapping[str, str], path: str) -> None:
    """Report keys that are not label keys and values that are not label values, at the map itself, as the API
    server's ValidateLabels does."""
    for key, text in labels.items():
        _check_name(key, path, validation.qualified_name)
        _check_name(text, path, validation.label_value)


def _scheduling_gates(value: object, path: str) -> tuple[str, ...]:
    """Scheduling gate names, none twice (the API server reports each repeat)."""
    gates = f.items(value, path, _scheduling_gate)
    for i, gate in enumerate(gates):
        if gate and gate in gates[:i]:
            f.report(f"{path}[{i}]", f"Duplicate value: {f.quote(gate)}")
    return gates


def _node_name(value: object, path: str) -> str:
    name = f.string(value, path)
    return name if not name or _check_name(name, path, validation.dns1123_subdomain) else ""


def _pod_condition(obj: Obj, path: str) -> PodCondition:
    return PodCondition(
        type=f.string(obj.get("type"), f"{path}.type"),
        status=f.string(obj.get("status"), f"{path}.status"),
        reason=f.string(obj.get("reason"), f"{path}.reason"),
        message=f.string(obj.get("message"), f"{path}.message"),
        last_transition_time=f.timestamp(obj.get("lastTransitionTime"), f"{path}.lastTransitionTime"),
    )


def pod(obj: Obj) -> Pod:
    """Decode a Pod."""
    status = f.mapping(obj.get("status"), "status")
    return Pod(
        metadata=object_meta(obj, namespaced=True),
        spec=_pod_spec(f.mapping(obj.get("spec"), "spec"), "spec"),
        status=PodStatus(
            phase=f.string(status.get("phase"), "status.phase", "Pending"),
            nominated_node_name=_node_name(status.get("nominatedNodeName"), "status.nominatedNodeName"),
            start_time=f.timestamp(status.get("startTime"), "status.startTime"),
            conditions=f.items(status.get("conditions"), "status.conditions", _pod_condition),
        ),
    )


def _taint(obj: Obj, path: str) -> Taint:
    key = f.string(obj.get("key"), f"{path}.key")
    if not key:
        f.report(f"{path}.key", "Required value")
    else:
        _check_name(key, f"{path}.key", validation.qualified_name)
    value = f.string(obj.get("value"), f"{path}.value")
    _check_name(value, f"{path}.value", validation.label_value)
    effect = f.one_of(obj.get("effect"), f"{path}.effect", TAINT_EFFECTS)
    if effect is None and obj.get("effect") is None:
        f.report(f"{path}.effect", "Required value")
    return Taint(key=key, effect=effect or "NoSchedule", value=value)


def _image(obj: Obj, path: str) -> ContainerImage:
    return ContainerImage(names=f.string_list(obj.get("names"), f"{path}.names"),
                          size_bytes=f.integer(obj.get("sizeBytes"), f"{path}.sizeBytes", 0) or 0)


def node(obj: Obj) -> Node:
    """Decode a Node; allocatable defaults to capacity, as the API server does."""
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    capacity = f.resource_list(status.get("capacity"), "status.capacity")
    allocatable = f.resource_list(status.get("allocatable"), "status.allocatable")
    if "allocatable" not in status or status.get("allocatable") is None:
        allocatable = dict(capacity)
    return Node(
        metadata=object_meta(obj, namespaced=False),
        spec=NodeSpec(taints=f.items(spec.get("taints"), "spec.taints", _taint),
                      unschedulable=f.boolean(spec.get("unschedulable"), "spec.unschedulable")),
        status=NodeStatus(capacity=capacity, allocatable=allocatable,
                          images=f.items(status.get("images"), "status.images", _image)),
    )


def priority_class(obj: Obj) -> PriorityClass:
    """Decode a PriorityClass, with the API server's limits on user-defined values and names."""
    meta = object_meta(obj, namespaced=False)
    value = f.integer(obj.get("value"), "value", bits=32)
    if value is None:
        if obj.get("value") is None:
            f.report("value", "Required value")
        value = 0
    global_default = f.boolean(obj.get("globalDefault"), "globalDefault")
    if meta.name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        problem = _system_class_problem(meta.name, value, global_default)
        if problem:
            f.report("metadata.name", "Forbidden: priority class names with 'system-' prefix are reserved for "
                                          f"system use only. error: {problem}")
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        f.report("value", f"Forbidden: maximum allowed value of a user defined priority is "
                              f"{HIGHEST_USER_DEFINABLE_PRIORITY}")
    return PriorityClass(
        metadata=meta,
        value=value,
        global_default=global_default,
        preemption_policy=f.one_of(obj.get("preemptionPolicy"), "preemptionPolicy", PREEMPTION_POLICIES,
                                   PREEMPT_LOWER_PRIORITY) or PREEMPT_LOWER_PRIORITY,
        description=f.string(obj.get("description"), "description"),
    )


def _system_class_problem(name: str, value: int, global_default: bool) -> str:
    """Why a ``system-`` class is not one of the API server's own (scheduling.IsKnownSystemPriorityClass)."""
    known = {pc.name: pc for pc in builtin_priority_classes()}.get(name)
    if known is None:
        return f"{f.escape(name)} is not a known system priority class"
    if known.value != value:
        return f"value of {name} PriorityClass must be {known.value}"
    if known.global_default != global_default:
        return f"globalDefault of {name} PriorityClass must be {str(known.global_default).lower()}"
    return ""


def _int_or_percent(value: object, path: str) -> IntOrPercent | None:
    """An intstr.IntOrString that must be a non-negative int32 or a percent string (ValidatePositiveIntOrPercent):
    a string is a percent or nothing, its digits ASCII only, and at most 100%."""
    if value is None:
        return None
    if not isinstance(value, str):
        number = f.integer(value, path, bits=32)
        if number is None:
            return None
        if number < 0:
            f.report(path, f"Invalid value: {number}: must be greater than or equal to 0")
            return None
        return IntOrPercent(number)
    if not _PERCENT_TEXT.fullmatch(value):
        f.report(path, f"Invalid value: {f.quote(value)}: a valid percent string must be a numeric string followed "
                       "by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")
        return None
    percent = int(value[:-1]) if len(value) <= 20 else 101
    if percent > 100:
        f.report(path, f"Invalid value: {f.quote(value)}: must not be greater than 100%")
        return None
    return IntOrPercent(percent, is_percent=True)


def pod_disruption_budget(obj: Obj) -> PodDisruptionBudget:
    """Decode a PodDisruptionBudget (minAvailable xor maxUnavailable)."""
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    min_available = _int_or_percent(spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _int_or_percent(spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        f.report("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set")
    disrupted = f.mapping(status.get("disruptedPods"), "status.disruptedPods")
    return PodDisruptionBudget(
        metadata=object_meta(obj, namespaced=True),
        selector=label_selector(spec.get("selector"), "spec.selector"),
        min_available=min_available,
        max_unavailable=max_unavailable,
        status=PodDisruptionBudgetStatus(
            disruptions_allowed=f.integer(status.get("disruptionsAllowed"), "status.disruptionsAllowed"),
            current_healthy=f.integer(status.get("currentHealthy"), "status.currentHealthy"),
            desired_healthy=f.integer(status.get("desiredHealthy"), "status.desiredHealthy"),
            expected_pods=f.integer(status.get("expectedPods"), "status.expectedPods"),
            disrupted_pods=f.string_map(disrupted, "status.disruptedPods"),
        ),
    )


def namespace(obj: Obj) -> Namespace:
    """Decode a Namespace (its labels are what namespaceSelector reads)."""
    return Namespace(metadata=object_meta(obj, namespaced=False, name_rule=validation.dns1123_label))


def service(obj: Obj) -> Service:
    """Decode a Service: its spec.selector label map."""
    spec = f.mapping(obj.get("spec"), "spec")
    return Service(metadata=object_meta(obj, namespaced=True, name_rule=validation.dns1035_label),
                   selector=f.string_map(spec.get("selector"), "spec.selector"))


def workload_controller(obj: Obj) -> WorkloadController:
    """Decode a ReplicaSet, StatefulSet or ReplicationController: kind, metadata and pod selector."""
    kind = f.string(obj.get("kind"), "kind")
    spec = f.mapping(obj.get("spec"), "spec")
    raw = spec.get("selector")
    if kind == "ReplicationController":
        labels = f.string_map(raw, "spec.selector")
        selector = LabelSelector(match_labels=labels) if labels else None
    else:
        selector = label_selector(raw, "spec.selector")
    # StatefulSet names become pod hostnames, so the API server holds them to the stricter DNS-1123 label.
    rule = validation.dns1123_label if kind == "StatefulSet" else validation.dns1123_subdomain
    return WorkloadController(kind=kind, metadata=object_meta(obj, namespaced=True, name_rule=rule),
                              selector=selector)
