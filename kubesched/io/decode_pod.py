"""Decode a Pod manifest: its spec (containers, affinity, tolerations, spread constraints, gates) and status.

Each field is checked as the API server checks it; the rules that reach across fields are in pod_rules.
API defaulting that changes scheduling is applied here: container requests default to limits.
"""

from __future__ import annotations

from kubesched.api import validation
from kubesched.api.meta import LabelSelector
from kubesched.api.node import NO_EXECUTE, TAINT_EFFECTS
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
from kubesched.api.replace import replaced
from kubesched.io import decode_volumes
from kubesched.io import fields as f
from kubesched.io import pod_rules as rules
from kubesched.io.meta import Obj, check_name, label_selector, object_meta, operator_and_values

PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER)
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
TOLERATION_OPERATORS = ("Equal", "Exists")
PROTOCOLS = ("SCTP", "TCP", "UDP")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")


def _node_selector_requirement(obj: Obj, path: str) -> NodeSelectorRequirement:
    """A node selector requirement, checked as the API server checks it: it takes values kube-scheduler cannot
    parse (a value that is no label value, a Gt/Lt value that is no integer), whose term then matches no node."""
    operator, values = operator_and_values(obj, path, NODE_SELECTOR_OPERATORS)
    if operator in ("Gt", "Lt") and len(values) != 1:
        f.report(f"{path}.values", "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")
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


#: A node selector term, for the decoders of other kinds (a PersistentVolume's node affinity).
node_selector_term = _node_selector_term


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
    rules.check_selector_labels(selector, path)
    return selector


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


@f.remembered
def _affinity(value: object, path: str) -> Affinity | None:
    if value is None:
        return None
    obj = f.mapping(value, path)
    return Affinity(
        node_affinity=_node_affinity(obj.get("nodeAffinity"), f"{path}.nodeAffinity"),
        pod_affinity=_pod_affinity(obj.get("podAffinity"), f"{path}.podAffinity"),
        pod_anti_affinity=_pod_affinity(obj.get("podAntiAffinity"), f"{path}.podAntiAffinity"),
    )


@f.remembered
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
        check_name(key, f"{path}.key", validation.qualified_name)
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


#: A toleration, as a pod's are read (a RuntimeClass's scheduling has them too).
toleration = _toleration


@f.remembered
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
    rules.check_match_label_keys(match_label_keys, selector, f"{path}.matchLabelKeys")
    rules.check_selector_labels(selector, f"{path}.labelSelector")
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


#: The fields of a container :func:`_decoded_container` reads (tests/io/test_sharing.py checks it reads no other).
CONTAINER_READS = ("name", "image", "ports", "resources", "restartPolicy")
#: The fields of a pod spec :func:`_pod_spec` reads (likewise checked).
SPEC_READS = ("containers", "initContainers", "nodeName", "schedulerName", "priority", "priorityClassName",
              "preemptionPolicy", "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints",
              "overhead", "schedulingGates", "terminationGracePeriodSeconds", "hostNetwork", "runtimeClassName",
              "activeDeadlineSeconds")


#: What a pod's spec is remembered by: the fields read but its node.
_SPEC_KEY_READS = tuple(name for name in SPEC_READS if name not in ("containers", "initContainers", "nodeName"))


def _container_key(obj: object) -> object:
    """What a container is remembered by: the values of the fields read, in a fixed order (the decoder reads
    them with ``get``, so a missing field and a null are alike), so the fields it skips (volume mounts, probes,
    a pod's own token volume's name) do not keep equal containers apart. Anything but a dict stands for itself
    (tagged apart: raw values hold no tuples, but a tag costs nothing)."""
    return (True, *map(obj.get, CONTAINER_READS)) if obj.__class__ is dict else (False, obj)


def _containers_key(value: object) -> object:
    """What a list of containers is remembered by: each container's key (anything but a list stands for itself)."""
    return [_container_key(c) for c in value] if value.__class__ is list else (False, value)


def _spec_key(obj: Obj) -> object:
    """What a pod spec (a dict) is remembered by: its containers' keys and the values of the other fields read
    but its node, in a fixed order (read with ``get``, as :func:`_container_key`'s)."""
    return (_containers_key(obj.get("containers")), _containers_key(obj.get("initContainers")),
            *map(obj.get, _SPEC_KEY_READS))


def _decoded_container(obj: Obj, path: str) -> Container:
    resources = f.mapping(obj.get("resources"), f"{path}.resources")
    limits = f.resource_list(resources.get("limits"), f"{path}.resources.limits")
    requests = f.resource_list(resources.get("requests"), f"{path}.resources.requests")
    # API defaulting (SetDefaults_Pod): a limit without a request makes the request equal to the limit.
    for name, limit in limits.items():
        requests.setdefault(name, limit)
    rules.check_requirements(requests, limits, resources, f"{path}.resources")
    name = f.string(obj.get("name"), f"{path}.name")
    if not name:
        f.report(f"{path}.name", "Required value")
    else:
        check_name(name, f"{path}.name", validation.dns1123_label)
    return Container(
        name=name,
        image=f.string(obj.get("image"), f"{path}.image"),
        requests=f.shared_resources(requests),
        limits=f.shared_resources(limits),
        ports=f.items(obj.get("ports"), f"{path}.ports", _container_port),
        restart_policy=f.one_of(obj.get("restartPolicy"), f"{path}.restartPolicy", ("Always",)),
    )


#: A container, decoded once per distinct value of the fields read.
_container = f.remembered(_decoded_container, key=_container_key)


def _scheduling_gate(obj: Obj, path: str) -> str:
    name = f.string(obj.get("name"), f"{path}.name")
    if not name:
        f.report(f"{path}.name", "Required value")
    else:
        check_name(name, path, validation.qualified_name)
    return name


def _host_network_ports(container: Container) -> Container:
    """The API server's defaulting for a hostNetwork pod: a port without hostPort gets its containerPort."""
    if all(port.host_port for port in container.ports):
        return container
    ports = tuple(port if port.host_port else replaced(port, host_port=port.container_port)
                  for port in container.ports)
    return replaced(container, ports=ports)


def _pod_spec(obj: Obj, path: str) -> PodSpec:
    containers = f.items(obj.get("containers"), f"{path}.containers", _container)
    if not containers:
        f.report(f"{path}.containers", "Required value: a pod needs at least one container")
    init_containers = f.items(obj.get("initContainers"), f"{path}.initContainers", _container)
    host_network = f.boolean(obj.get("hostNetwork"), f"{path}.hostNetwork")
    # The API server defaults a hostNetwork pod's ports before validating them, so the defaulted ports are checked
    # like the given ones. It leaves a workload's template as written, but the pods made from it are defaulted.
    if host_network:
        containers = tuple(_host_network_ports(c) for c in containers)
        init_containers = tuple(_host_network_ports(c) for c in init_containers)
    rules.check_unique_names(containers, init_containers, path)
    # Init containers run one at a time, so each is checked alone.
    rules.check_unique_host_ports([(f"{path}.containers[{i}]", c) for i, c in enumerate(containers)])
    for i, init in enumerate(init_containers):
        rules.check_unique_host_ports([(f"{path}.initContainers[{i}]", init)])
    if host_network:
        rules.check_host_network_ports(containers, f"{path}.containers")
    spread_constraints = f.items(obj.get("topologySpreadConstraints"), f"{path}.topologySpreadConstraints",
                                 _spread_constraint)
    rules.check_spread_repeats(spread_constraints, f"{path}.topologySpreadConstraints")
    priority = f.integer(obj.get("priority"), f"{path}.priority", bits=32)
    grace = f.integer(obj.get("terminationGracePeriodSeconds"), f"{path}.terminationGracePeriodSeconds", 30)
    if grace is not None and grace < 0:
        f.report(f"{path}.terminationGracePeriodSeconds", f"Invalid value: {grace}: must be greater than "
                                                              "or equal to 0")
    runtime_class = f.string(obj.get("runtimeClassName"), f"{path}.runtimeClassName")
    if runtime_class:
        check_name(runtime_class, f"{path}.runtimeClassName", validation.dns1123_subdomain)
    return PodSpec(
        containers=containers,
        init_containers=init_containers,
        node_name=_node_name(obj.get("nodeName"), f"{path}.nodeName"),
        scheduler_name=f.string(obj.get("schedulerName"), f"{path}.schedulerName") or DEFAULT_SCHEDULER_NAME,
        priority=priority,
        priority_class_name=f.string(obj.get("priorityClassName"), f"{path}.priorityClassName"),
        preemption_policy=f.one_of(obj.get("preemptionPolicy"), f"{path}.preemptionPolicy", PREEMPTION_POLICIES),
        node_selector=rules.labels(obj.get("nodeSelector"), f"{path}.nodeSelector"),
        affinity=_affinity(obj.get("affinity"), f"{path}.affinity"),
        tolerations=f.items(obj.get("tolerations"), f"{path}.tolerations", _toleration),
        topology_spread_constraints=spread_constraints,
        overhead=f.resource_list(obj.get("overhead"), f"{path}.overhead"),
        scheduling_gates=_scheduling_gates(obj.get("schedulingGates"), f"{path}.schedulingGates"),
        termination_grace_period_seconds=30 if grace is None else grace,
        runtime_class_name=runtime_class,
        active_deadline_seconds=_active_deadline(obj.get("activeDeadlineSeconds"), f"{path}.activeDeadlineSeconds"),
    )


def _active_deadline(value: object, path: str) -> int | None:
    """spec.activeDeadlineSeconds: between 1 and 2147483647 seconds, as the API server requires."""
    seconds = f.integer(value, path)
    if seconds is not None and not 1 <= seconds <= 2**31 - 1:
        f.report(path, f"Invalid value: {seconds}: must be between 1 and 2147483647, inclusive")
    return seconds


def _scheduling_gates(value: object, path: str) -> tuple[str, ...]:
    """Scheduling gate names, none twice (the API server reports each repeat)."""
    gates = f.items(value, path, _scheduling_gate)
    for i, gate in enumerate(gates):
        if gate and gate in gates[:i]:
            f.report(f"{path}[{i}]", f"Duplicate value: {f.quote(gate)}")
    return gates


def _node_name(value: object, path: str) -> str:
    name = f.string(value, path)
    return name if not name or check_name(name, path, validation.dns1123_subdomain) else ""


@f.remembered
def _pod_condition(obj: Obj, path: str) -> PodCondition:
    return PodCondition(
        type=f.string(obj.get("type"), f"{path}.type"),
        status=f.string(obj.get("status"), f"{path}.status"),
        reason=f.string(obj.get("reason"), f"{path}.reason"),
        message=f.string(obj.get("message"), f"{path}.message"),
        last_transition_time=f.timestamp(obj.get("lastTransitionTime"), f"{path}.lastTransitionTime"),
    )


#: A pod's conditions, decoded once per distinct list.
_pod_conditions = f.remembered_items(_pod_condition)

def _pod_spec_but_node(obj: Obj, path: str) -> PodSpec:
    """A pod spec decoded without its nodeName (which each pod has of its own)."""
    return _pod_spec({key: value for key, value in obj.items() if key != "nodeName"}, path)


_remembered_spec = f.remembered(_pod_spec_but_node, key=_spec_key)


def _pod_spec_of_pod(obj: Obj, path: str) -> PodSpec:
    """A pod's spec, decoded once per distinct spec but for its nodeName: a workload's pods repeat their spec
    apart from the node they are bound to (the problems of the rest are replayed at every copy's place). A
    nodeName with a problem decodes the whole spec, so every problem keeps its place in the order."""
    if not f.is_collecting() or obj.__class__ is not dict:
        return _pod_spec(obj, path)
    raw_node = obj.get("nodeName")
    if raw_node is None:
        return _remembered_spec(obj, path)
    with f.collecting() as problems:
        node_name = _node_name(raw_node, f"{path}.nodeName")
    if problems:
        return _pod_spec(obj, path)
    return replaced(_remembered_spec(obj, path), node_name=node_name)


def with_volumes(spec: PodSpec, spec_obj: Obj, path: str) -> PodSpec:
    """``spec`` with the volumes of ``spec_obj`` the volume plugins read (decoded apart from the rest of the spec,
    which pods of a workload share though each has its own service-account token volume)."""
    volumes = decode_volumes.volumes(spec_obj.get("volumes"), f"{path}.volumes")
    return replaced(spec, volumes=volumes) if volumes else spec


def pod(obj: Obj) -> Pod:
    """Decode a Pod. Its affinity terms' label keys are checked last, against its labels (the API server merges
    them into the terms' selectors first), so their problems follow the rest of the spec's."""
    status = f.mapping(obj.get("status"), "status")
    metadata = object_meta(obj, namespaced=True)
    spec_obj = f.mapping(obj.get("spec"), "spec")
    spec = with_volumes(_pod_spec_of_pod(spec_obj, "spec"), spec_obj, "spec")
    rules.check_volume_mounts(spec_obj, "spec")
    rules.check_affinity_label_keys(spec.affinity, metadata.labels, "spec.affinity")
    return Pod(
        metadata=metadata,
        spec=spec,
        status=PodStatus(
            phase=f.string(status.get("phase"), "status.phase", "Pending"),
            nominated_node_name=_node_name(status.get("nominatedNodeName"), "status.nominatedNodeName"),
            start_time=f.timestamp(status.get("startTime"), "status.startTime"),
            conditions=_pod_conditions(status.get("conditions"), "status.conditions"),
        ),
    )
