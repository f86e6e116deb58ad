"""Read what ``kubesched capacity`` is given: INPUT as ``kubesched simulate`` reads it, POD.yaml (one Pod, or one
workload whose pod template is copied) and NODE.yaml (one Node, for ``--add-nodes``).

The three are loaded as one input (names and uids checked across them, POD.yaml admitted with the input's
PriorityClasses, LimitRanges and RuntimeClasses), POD.yaml and NODE.yaml as templates that may repeat an object of
INPUT. What each template file holds is checked on its documents as read, so a file holding the wrong objects is
reported in the same run as any problem inside the objects.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.api.apps import Deployment, Job, ReplicaSet, StatefulSet
from kubesched.api.node import Node
from kubesched.capacity.template import TEMPLATE_KINDS, CopyTemplate, from_pod, from_workload
from kubesched.errors import InputError
from kubesched.io.documents import STDIN, display, documents, expand_lists, expand_paths
from kubesched.io.load import ClusterInput, InputErrorList, Source, load_groups
from kubesched.sim.scenario import is_scenario_file
from kubesched.validation import quote

#: Kinds that live in a namespace, by the resource errors name them with; the others are cluster-scoped.
_NAMESPACED = {"Pod": "pods", "Deployment": "deployments", "ReplicaSet": "replicasets",
               "ReplicationController": "replicationcontrollers", "StatefulSet": "statefulsets", "Job": "jobs",
               "CronJob": "cronjobs", "DaemonSet": "daemonsets", "Service": "services",
               "PodDisruptionBudget": "poddisruptionbudgets", "PersistentVolumeClaim": "persistentvolumeclaims",
               "LimitRange": "limitranges", "ResourceQuota": "resourcequotas"}
_CLUSTER = {"Node": "nodes", "PriorityClass": "priorityclasses", "Namespace": "namespaces",
            "PersistentVolume": "persistentvolumes", "StorageClass": "storageclasses", "CSINode": "csinodes",
            "CSIDriver": "csidrivers", "RuntimeClass": "runtimeclasses"}
_PLAIN = re.compile(r"[a-z0-9.-]+", re.ASCII)
#: Why a workload that has pods is still not something capacity copies.
_NOT_COPIED = {
    "DaemonSet": "a DaemonSet runs one pod per node, so its copies have nowhere to go but their own node: give the "
                 "DaemonSet's pod, or a Deployment with its template",
    "CronJob": "a CronJob's pods belong to Jobs it has not created yet: give a Job with its jobTemplate",
}
#: Kinds the loader reads without a template too (as a selector plugins look up): POD.yaml's must have one.
_LOOKUPS = ("ReplicaSet", "ReplicationController", "StatefulSet")
POD_FILE = "POD.yaml"
NODE_FILE = "NODE.yaml"


@attrs.frozen
class CapacityInput:
    """The cluster, the pod to copy and, for ``--add-nodes``, the node to add."""

    cluster: ClusterInput
    template: CopyTemplate
    node: Node | None = None


@attrs.frozen
class _Found:
    """An object of a template file as read: its kind, location (``pods/default/web``) and raw form."""

    file: str
    kind: str
    location: str
    obj: Mapping[str, Any]


def _part(text: object) -> str:
    value = text if isinstance(text, str) and text else ""
    return value if _PLAIN.fullmatch(value) else quote(value)


def _location(kind: str, obj: Mapping[str, Any]) -> str:
    """``resource[/namespace]/name`` as the loader names objects; "" for a kind it does not read."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    name = _part(meta.get("name"))
    if kind in _NAMESPACED:
        namespace = meta.get("namespace")
        return f"{_NAMESPACED[kind]}/{_part(namespace if isinstance(namespace, str) and namespace else 'default')}" \
               f"/{name}"
    return f"{_CLUSTER[kind]}/{name}" if kind in _CLUSTER else ""


def _objects(path: str) -> list[_Found] | None:
    """Every object of the files at ``path`` that has a kind; None when a file is missing or cannot be read (the
    loader reports it)."""
    files, missing, _ = expand_paths([path])
    if missing:
        return None
    found = []
    for file in files:
        try:
            for doc in documents(file):
                for _position, _item, obj in expand_lists(doc):
                    kind = obj.get("kind") if isinstance(obj, Mapping) else None
                    if isinstance(kind, str) and kind:
                        found.append(_Found(display(file), kind, _location(kind, obj), obj))
        except InputError:
            return None
    return found


def _one(path: str, what: str, found: list[_Found]) -> InputError | None:
    """The problem with a template file that must hold one object, or None."""
    if not found:
        return InputError(f"holds no object: give {what}", file=display(path))
    if len(found) > 1:
        shown = ", ".join(f.location for f in found[:3]) + (", ..." if len(found) > 3 else "")
        return InputError(f"holds {len(found)} objects ({shown}): give {what}", file=display(path))
    return None


def _pod_file_problems(path: str) -> list[InputError]:
    """What is wrong with POD.yaml as a whole: not exactly one object, not a kind copied, a workload without a
    pod template."""
    found = _objects(path)
    if found is None:
        return []
    what = "one Pod, or one workload whose pod template is copied (" + ", ".join(TEMPLATE_KINDS) + ")"
    problem = _one(path, what, found)
    if problem is not None:
        return [problem]
    [item] = found
    if item.kind in _NOT_COPIED:
        return [InputError(_NOT_COPIED[item.kind], file=item.file, obj=item.location)]
    if item.kind != "Pod" and item.kind not in TEMPLATE_KINDS:
        return [InputError(f"a {item.kind} has no pod to copy: give {what}", file=item.file,
                           obj=item.location or None)]
    spec = item.obj.get("spec")
    if item.kind in _LOOKUPS and not (isinstance(spec, Mapping) and spec.get("template") is not None):
        return [InputError("Required value: capacity copies the pod template", file=item.file, obj=item.location,
                           field="spec.template")]
    return []


def _node_file_problems(path: str) -> list[InputError]:
    """What is wrong with NODE.yaml as a whole: not exactly one Node."""
    found = _objects(path)
    if found is None:
        return []
    problem = _one(path, "one Node, the shape of the nodes to add", found)
    if problem is not None:
        return [problem]
    if found[0].kind != "Node":
        return [InputError(f"a {found[0].kind} is not a Node: give one Node, the shape of the nodes to add",
                           file=found[0].file, obj=found[0].location or None)]
    return []


def _usage_problems(pod_file: str, inputs: Sequence[str], node_file: str | None) -> list[InputError]:
    """Template files given as standard input, and Scenario files among INPUT."""
    problems = [InputError(f"{name} must be a file: standard input (-) is read for INPUT only")
                for name, path in ((POD_FILE, pod_file), (NODE_FILE, node_file)) if path == STDIN]
    problems += [InputError("a Scenario file is not an input of capacity: give the manifests of the cluster "
                            "(files or directories)", file=display(path))
                 for path in inputs if path != STDIN and is_scenario_file(Path(path))]
    return problems


def load_capacity_input(pod_file: str, inputs: Sequence[str], node_file: str | None,
                        scheduler_names: Collection[str]) -> CapacityInput:
    """Load INPUT, POD.yaml and NODE.yaml together; raise :class:`InputErrorList` with every problem found, in
    the input and in what the template files hold (a copy whose scheduler name no profile has included)."""
    problems = _usage_problems(pod_file, inputs, node_file)
    if problems:
        raise InputErrorList(problems)
    problems = _pod_file_problems(pod_file)
    if node_file is not None:
        problems += _node_file_problems(node_file)
    sources = [Source(tuple(inputs)), Source((pod_file,), replaces=True)]
    if node_file is not None:
        sources.append(Source((node_file,), replaces=True))
    try:
        groups = load_groups(sources)
    except InputErrorList as failed:
        raise InputErrorList([*failed.errors, *problems]) from None
    if problems:
        raise InputErrorList(problems)
    template = _template(groups[1], display(pod_file))
    spec = template.pod.spec
    if spec.scheduler_name not in scheduler_names:
        field = "spec.schedulerName" if template.kind == "Pod" else "spec.template.spec.schedulerName"
        raise InputErrorList([InputError(
            f"{quote(spec.scheduler_name)}: no profile has this scheduler name, so no copy would be scheduled "
            f"(profiles: {', '.join(quote(n) for n in scheduler_names)})", file=display(pod_file),
            obj=template.location, field=field)])
    node = groups[2].nodes[0] if node_file is not None else None
    return CapacityInput(groups[0], template, node)


def _template(group: ClusterInput, file: str) -> CopyTemplate:
    """The copy template of POD.yaml's one object (checked to be a Pod or a workload with a template)."""
    if group.pods:
        pod = group.pods[0]
        return from_pod(pod, f"pods/{_part(pod.namespace)}/{_part(pod.name)}")
    [workload] = group.workloads
    assert isinstance(workload, Deployment | ReplicaSet | StatefulSet | Job), file
    kind = workload.kind
    return from_workload(workload, f"{_NAMESPACED[kind]}/{_part(workload.metadata.namespace)}/"
                                   f"{_part(workload.metadata.name)}")


def node_location(node: Node) -> str:
    """``nodes/<name>``, as errors and the result name the node template."""
    return f"nodes/{_part(node.name)}"
