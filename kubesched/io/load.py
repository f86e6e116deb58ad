"""Load manifests from files and directories: YAML or JSON, multi-document, ``kind: List``.

Every problem in the input is collected and reported together, each naming the file, the object and the
field; nothing is returned unless the whole input is valid.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget, PriorityClass
from kubesched.api.workload import Namespace, Service, WorkloadController
from kubesched.errors import InputError, KubeschedError
from kubesched.io import decode
from kubesched.io.admission import admit_pods
from kubesched.io.fields import describe

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

# kind -> (resource used in object names, namespaced)
_KINDS: dict[str, tuple[str, bool]] = {
    "Node": ("nodes", False),
    "Pod": ("pods", True),
    "PriorityClass": ("priorityclasses", False),
    "PodDisruptionBudget": ("poddisruptionbudgets", True),
    "Namespace": ("namespaces", False),
    "Service": ("services", True),
    "ReplicaSet": ("replicasets", True),
    "StatefulSet": ("statefulsets", True),
    "ReplicationController": ("replicationcontrollers", True),
}


class InputErrorList(KubeschedError):  # noqa: N818 - a list of InputError
    """Every error found in the input, grouped by file in input order."""

    def __init__(self, errors: Sequence[InputError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


@attrs.frozen
class ClusterInput:
    """The validated, admitted objects of an input, pods and nodes in input order."""

    nodes: tuple[Node, ...] = ()
    pods: tuple[Pod, ...] = ()
    priority_classes: tuple[PriorityClass, ...] = ()
    pdbs: tuple[PodDisruptionBudget, ...] = ()
    namespaces: tuple[Namespace, ...] = ()
    services: tuple[Service, ...] = ()
    #: ReplicaSets, StatefulSets and ReplicationControllers, in input order.
    controllers: tuple[WorkloadController, ...] = ()
    warnings: tuple[str, ...] = ()


@attrs.define
class _Document:
    file: str
    index: int
    data: object


def manifest_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories (recursively, sorted) into manifest files; files are kept as given."""
    files: list[Path] = []
    errors: list[InputError] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in MANIFEST_SUFFIXES)
            if not found:
                errors.append(InputError("no manifest files (.yaml, .yml, .json) in this directory", file=str(path)))
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            errors.append(InputError("no such file or directory", file=str(path)))
    if errors:
        raise InputErrorList(errors)
    return files


def _documents(file: Path) -> Iterator[_Document]:
    name = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", file=name) from None
    if file.suffix == ".json":
        try:
            yield _Document(name, 0, json.loads(text))
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name) from None
        return
    try:
        for i, data in enumerate(yaml.safe_load_all(text)):
            if data is not None:
                yield _Document(name, i, data)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"invalid YAML{where}: {problem}", file=name) from None


def _expand(doc: _Document) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Yield (position, object) for a document, flattening ``List`` and ``<Kind>List`` wrappers."""
    position = f"document {doc.index + 1}"
    if not isinstance(doc.data, Mapping):
        raise InputError(f"{position}: expected a Kubernetes object, got {describe(doc.data)}", file=doc.file)
    kind = doc.data.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and "items" in doc.data:
        items = doc.data.get("items") or []
        if not isinstance(items, list):
            raise InputError(f"{position}: items: expected a list", file=doc.file)
        item_kind = kind[: -len("List")] or None
        for i, item in enumerate(items):
            if isinstance(item, Mapping) and "kind" not in item and item_kind:
                item = {**item, "kind": item_kind}
            yield f"{position}, items[{i}]", item
    else:
        yield position, doc.data


def _object_name(kind: str, obj: Mapping[str, Any]) -> str | None:
    resource, namespaced = _KINDS[kind]
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(name, str) or not name:
        return None
    if namespaced:
        namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
        return f"{resource}/{namespace if isinstance(namespace, str) and namespace else 'default'}/{name}"
    return f"{resource}/{name}"


_DECODERS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "Node": decode.node,
    "Pod": decode.pod,
    "PriorityClass": decode.priority_class,
    "PodDisruptionBudget": decode.pod_disruption_budget,
    "Namespace": decode.namespace,
    "Service": decode.service,
    "ReplicaSet": decode.workload_controller,
    "StatefulSet": decode.workload_controller,
    "ReplicationController": decode.workload_controller,
}


def load(paths: Iterable[str | Path]) -> ClusterInput:
    """Load, validate and admit every object under ``paths``; raise :class:`InputErrorList` on any problem."""
    errors: list[InputError] = []
    skipped: dict[str, int] = {}
    seen: dict[str, str] = {}
    decoded: dict[str, list[Any]] = {kind: [] for kind in _KINDS}
    # Objects are remembered with their file so later checks (admission, node references) can cite it.
    origin: dict[int, str] = {}
    files = manifest_files(paths)
    for file in files:
        try:
            documents = list(_documents(file))
        except InputError as exc:
            errors.append(exc)
            continue
        for doc in documents:
            try:
                entries = list(_expand(doc))
            except InputError as exc:
                errors.append(exc)
                continue
            for position, obj in entries:
                _decode_one(doc.file, position, obj, decoded, seen, skipped, errors, origin)
    nodes: list[Node] = decoded["Node"]
    pods: list[Pod] = decoded["Pod"]
    classes: list[PriorityClass] = decoded["PriorityClass"]
    errors.extend(_check_node_names(pods, {n.name for n in nodes}, origin))
    admitted, admission_errors = admit_pods(pods, classes)
    errors.extend(e.located(file=origin.get(id(p))) for p, e in admission_errors)
    if errors:
        # Report in file order; within a file, problems found while reading come first.
        order = {str(path): i for i, path in enumerate(files)}
        errors.sort(key=lambda e: order.get(e.file or "", len(order)))
        raise InputErrorList(errors)
    warnings = tuple(
        f"skipped {count} object(s) of kind {kind}: kubesched does not read this kind"
        for kind, count in sorted(skipped.items())
    )
    return ClusterInput(nodes=tuple(nodes), pods=tuple(admitted), priority_classes=tuple(classes),
                        pdbs=tuple(decoded["PodDisruptionBudget"]), namespaces=tuple(decoded["Namespace"]),
                        services=tuple(decoded["Service"]),
                        controllers=tuple(c for kind in ("ReplicaSet", "StatefulSet", "ReplicationController")
                                          for c in decoded[kind]),
                        warnings=warnings)


def _decode_one(file: str, position: str, obj: Mapping[str, Any], decoded: dict[str, list[Any]],
                seen: dict[str, str], skipped: dict[str, int], errors: list[InputError],
                origin: dict[int, str]) -> None:
    if not isinstance(obj, Mapping):
        errors.append(InputError(f"{position}: expected a Kubernetes object", file=file))
        return
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        errors.append(InputError("kind: Required value: every object needs a kind", file=file, obj=position))
        return
    if kind not in _KINDS:
        skipped[kind] = skipped.get(kind, 0) + 1
        return
    name = _object_name(kind, obj)
    where = name or f"{_KINDS[kind][0]} ({position})"
    try:
        value = _DECODERS[kind](obj)
    except InputError as exc:
        errors.append(exc.located(file=file, obj=where))
        return
    assert name is not None  # decoding fails first when the name is missing
    if name in seen:
        errors.append(InputError(f"duplicate object: already defined in {seen[name]}", file=file, obj=name))
        return
    seen[name] = file
    if not value.metadata.uid:
        # Hand-written manifests have no uid; derive a stable one from the object's name.
        uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesched:{name}"))
        value = attrs.evolve(value, metadata=attrs.evolve(value.metadata, uid=uid))
    elif kind == "Pod":
        owner = seen.get(f"uid:{value.metadata.uid}")
        if owner is not None:
            errors.append(InputError(f"metadata.uid: duplicate uid {value.metadata.uid!r} (also used by {owner})",
                                     file=file, obj=name))
            return
        seen[f"uid:{value.metadata.uid}"] = name
    origin[id(value)] = file
    decoded[kind].append(value)


def _check_node_names(pods: Sequence[Pod], node_names: set[str], origin: dict[int, str]) -> list[InputError]:
    return [
        InputError(f'node "{p.spec.node_name}" is not in the input', file=origin.get(id(p)),
                   obj=f"pods/{p.key}", field="spec.nodeName")
        for p in pods
        if p.spec.node_name and p.spec.node_name not in node_names
    ]
