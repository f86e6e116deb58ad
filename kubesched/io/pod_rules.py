"""The API server's rules on a pod spec that reach across fields: label keys and values in selectors,
matchLabelKeys and mismatchLabelKeys, repeated spread constraints, requests against limits, unique container names
and host ports, a hostNetwork pod's ports, volume mounts naming the pod's volumes.

Each check reports through the field readers, in the API server's words and order, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.api import validation
from kubesched.api.meta import LabelSelector, LabelSelectorRequirement
from kubesched.api.pod import Affinity, Container, PodAffinity, PodAffinityTerm, TopologySpreadConstraint
from kubesched.api.quantity import Quantity, QuantityError
from kubesched.io import fields as f
from kubesched.io.meta import Obj, check_name
from kubesched.validation import HugeInteger, key_path, key_text


def labels(value: object, path: str) -> dict[str, str]:
    """A label map whose keys are label keys and values label values."""
    found = f.string_map(value, path)
    check_labels(found, path)
    return found


def check_labels(labels: Mapping[str, str], path: str) -> None:
    """Report keys that are not label keys and values that are not label values, at the map itself, as the API
    server's ValidateLabels does."""
    for key, text in labels.items():
        check_name(key, path, validation.qualified_name)
        check_name(text, path, validation.label_value)


def check_selector_labels(selector: LabelSelector | None, path: str) -> None:
    """A pod's selector uses label keys and label values only (the API server's ValidateLabelSelector, which
    gives pods no leave for invalid values)."""
    if selector is None:
        return
    for i, req in enumerate(selector.match_expressions):
        check_name(req.key, f"{path}.matchExpressions[{i}].key", validation.qualified_name)
        for j, text in enumerate(req.values):
            check_name(text, f"{path}.matchExpressions[{i}].values[{j}]", validation.label_value)
    check_labels(selector.match_labels, f"{path}.matchLabels")


def check_match_label_keys(keys: tuple[str, ...], selector: LabelSelector | None, path: str) -> None:
    """matchLabelKeys need a labelSelector, are label keys, and none may be a key the selector already reads (the
    API server's validateMatchLabelKeysInTopologySpread)."""
    if not keys:
        return
    if selector is None:
        f.report(path, "Forbidden: must not be specified when labelSelector is not set")
    selector_keys = set(selector.match_labels) | {r.key for r in selector.match_expressions} if selector else set()
    for i, key in enumerate(keys):
        check_name(key, f"{path}[{i}]", validation.qualified_name)
        if key in selector_keys:
            f.report(f"{path}[{i}]", f"Invalid value: {f.quote(key)}: exists in both matchLabelKeys and labelSelector")


def check_affinity_label_keys(affinity: Affinity | None, labels: Mapping[str, str] | None, path: str) -> None:
    """The matchLabelKeys and mismatchLabelKeys of every pod (anti-)affinity term at ``path`` (spec.affinity), as
    the API server's validateMatchLabelKeysAndMismatchLabelKeys checks them, in its order.

    The API server checks a pod after merging those keys into the term's labelSelector (``key In (value)``, then
    ``key NotIn (value)``, for the keys the pod's ``labels`` carry); a workload's template (``labels`` None) as it
    is written. A pod whose selector already ends with the merged expressions (one read back from an API server)
    is checked as it is."""
    if affinity is None:
        return
    for name, group in (("podAffinity", affinity.pod_affinity), ("podAntiAffinity", affinity.pod_anti_affinity)):
        if group is not None:
            _check_group_label_keys(group, labels, f"{path}.{name}")


def _check_group_label_keys(group: PodAffinity, labels: Mapping[str, str] | None, path: str) -> None:
    for i, term in enumerate(group.required):
        _check_term_label_keys(term, labels, f"{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
    for i, weighted in enumerate(group.preferred):
        _check_term_label_keys(weighted.pod_affinity_term, labels,
                               f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm")


def _check_term_label_keys(term: PodAffinityTerm, labels: Mapping[str, str] | None, path: str) -> None:
    match, mismatch, selector = term.match_label_keys, term.mismatch_label_keys, term.label_selector
    for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if not keys:
            continue
        if selector is None:
            f.report(f"{path}.{field}", "Forbidden: must not be specified when labelSelector is not set")
            continue
        for i, key in enumerate(keys):
            check_name(key, f"{path}.{field}[{i}]", validation.qualified_name)
    if selector is not None and match:
        # A key read by the selector before one of matchLabelKeys' merged expressions repeats it. The API server
        # reports it at the term's path indexed by the key's (last) position in matchLabelKeys.
        position = {key: i for i, key in enumerate(match)}
        seen = set(selector.match_labels)
        for requirement in _merged_expressions(term, selector, labels):
            key = requirement.key
            if key in position and key in seen:
                f.report(f"{path}[{position[key]}]",
                         f"Invalid value: {f.quote(key)}: exists in both matchLabelKeys and labelSelector")
            seen.add(key)
    both = set(mismatch)
    for i, key in enumerate(match):
        if key in both:
            f.report(f"{path}.matchLabelKeys[{i}]",
                     f"Invalid value: {f.quote(key)}: exists in both matchLabelKeys and mismatchLabelKeys")


def _merged_expressions(term: PodAffinityTerm, selector: LabelSelector,
                        labels: Mapping[str, str] | None) -> tuple[LabelSelectorRequirement, ...]:
    """The selector's matchExpressions once the API server has merged the term's label keys into them on create."""
    written = selector.match_expressions
    if labels is None:
        return written
    merged = tuple(LabelSelectorRequirement(key, operator, (labels[key],))
                   for keys, operator in ((term.match_label_keys, "In"), (term.mismatch_label_keys, "NotIn"))
                   for key in keys if key in labels)
    if not merged or written[len(written) - len(merged):] == merged:
        return written
    return written + merged


def check_spread_repeats(constraints: tuple[TopologySpreadConstraint, ...], path: str) -> None:
    """No two constraints may share {topologyKey, whenUnsatisfiable}; each one that a later one repeats is
    reported, as the API server does."""
    for i, constraint in enumerate(constraints):
        pair = (constraint.topology_key, constraint.when_unsatisfiable)
        if any((c.topology_key, c.when_unsatisfiable) == pair for c in constraints[i + 1:]):
            shown = f.quote(f"{{{pair[0]}, {pair[1]}}}")
            f.report(f"{path}[{i}].{{topologyKey, whenUnsatisfiable}}", f"Duplicate value: {shown}")


def check_requirements(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity], resources: Obj,
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


def check_unique_names(containers: tuple[Container, ...], init_containers: tuple[Container, ...],
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


def check_unique_host_ports(containers: list[tuple[str, Container]]) -> None:
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


def check_host_network_ports(containers: tuple[Container, ...], path: str) -> None:
    """A hostNetwork pod's containers (not its init containers, which the API server does not check) use each port
    as the same host port, or none (a template's; a pod's was defaulted) (validateHostNetwork)."""
    for i, container in enumerate(containers):
        for j, port in enumerate(container.ports):
            if port.host_port and port.host_port != port.container_port:
                f.report(f"{path}[{i}].ports[{j}].hostPort", f"Invalid value: {port.host_port}: must match "
                                                              "`containerPort` when `hostNetwork` is true")


def check_volume_mounts(spec: Mapping[str, object], path: str) -> None:
    """Every container's volumeMounts name one of the pod's volumes (the API server's ValidateVolumeMounts: 422
    ``Not found``). Read from the raw spec: kubesched models neither, so nothing else reads them."""
    volumes = spec.get("volumes")
    names = {v.get("name") for v in volumes if isinstance(v, Mapping)} if isinstance(volumes, list) else set()
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        for i, container in enumerate(containers):
            mounts = container.get("volumeMounts") if isinstance(container, Mapping) else None
            if not isinstance(mounts, list):
                continue
            for j, mount in enumerate(mounts):
                name = mount.get("name") if isinstance(mount, Mapping) else None
                if isinstance(name, str) and name and name not in names:
                    f.report(f"{path}.{key}[{i}].volumeMounts[{j}].name", f"Not found: {f.quote(name)}")
