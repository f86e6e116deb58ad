"""Scenario files (``apiVersion: kubesched.io/v1alpha1``, ``kind: Scenario``): steps at virtual times.

This module reads and validates a scenario into :mod:`kubesched.sim.scenario_steps`;
:mod:`kubesched.sim.scenario_run` runs it. Every problem of the file (and of the manifests its steps create, loaded
together as one input) is reported at once, each naming the file, the step (``spec.steps[i]``) and the field.
The schema is documented in docs/scenarios.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.api.timespec import MAX_DURATION, MAX_SECONDS_TEXT, TimeSpecError, parse_duration
from kubesched.errors import InputError
from kubesched.io import decode
from kubesched.io import fields as f
from kubesched.io.decode_workloads import MAX_WORKLOAD_PODS, too_many_pods
from kubesched.io.documents import YAML_RULES
from kubesched.io.load import ClusterInput, InputErrorList, Source, load_groups
from kubesched.io.pod_rules import check_labels
from kubesched.io.read import UnreadableFileError, read_text
from kubesched.io.yaml_reader import YamlError, documents
from kubesched.sim.controllers import ControllerSettings, StorageSettings
from kubesched.sim.scenario_steps import (
    ACTIONS,
    API_VERSION,
    DELETABLE,
    KIND,
    QUIESCENCE,
    SCALABLE,
    Action,
    Create,
    Delete,
    DeleteNode,
    DrainNode,
    ObjectRef,
    PatchNode,
    RunUntil,
    Scale,
    Scenario,
    Step,
)
from kubesched.validation import MANIFEST, escape

#: The storage control loop's keys of spec.settings.
STORAGE_KEYS = ("provisioningDelay", "provisioners")


def is_scenario_file(path: Path) -> bool:
    """Whether ``path`` holds a Scenario (its first document says ``kind: Scenario``); False when unreadable."""
    if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json"):
        return False
    try:
        text = read_text(path)
        if KIND not in text:
            return False  # no need to parse a manifest that cannot be one
        first = next(documents(text, YAML_RULES), None)
    except (UnreadableFileError, YamlError):
        return False
    return isinstance(first, Mapping) and first.get("kind") == KIND


def load_scenario(path: Path) -> Scenario:
    """Read, validate and load a scenario and the objects its steps create; raise :class:`InputErrorList` with
    every problem."""
    name = escape(str(path))
    try:
        docs = [d for d in documents(read_text(path), YAML_RULES) if d is not None]
    except UnreadableFileError as exc:
        raise InputErrorList([InputError(escape(str(exc)), file=name)]) from None
    except YamlError as exc:
        raise InputErrorList([InputError(str(exc), file=name)]) from None
    if len(docs) != 1:
        raise InputErrorList([InputError(f"a scenario file holds exactly one document (the Scenario), not {len(docs)}",
                                         file=name)])
    return _Reader(path, name).read(docs[0])


def read_scenario(doc: object, path: Path) -> Scenario:
    """Validate and load a scenario document already parsed (a generator's, such as benchmarks/week.py), as if read
    from ``path`` (its ``from`` paths are relative to it); raise :class:`InputErrorList` with every problem."""
    return _Reader(path, escape(str(path))).read(doc)


class _Reader:
    """One scenario's validation: problems collected, objects of create steps loaded together at the end."""

    def __init__(self, path: Path, name: str) -> None:
        self.path = path
        self.file = name
        self.errors: list[InputError] = []
        self.sources: list[Source] = []
        self.source_steps: list[int] = []

    def problem(self, message: str, step: int | None = None, field: str | None = None) -> None:
        self.errors.append(InputError(message, file=self.file, obj=None if step is None else f"spec.steps[{step}]",
                                      field=field))

    def read(self, doc: object) -> Scenario:
        if not isinstance(doc, Mapping):
            raise InputErrorList([InputError(f"must be a Scenario object, not {MANIFEST.describe(doc)}",
                                             file=self.file)])
        if doc.get("apiVersion") != API_VERSION:
            self.problem(f"Unsupported value: {f.quote(str(doc.get('apiVersion')))}: supported values: "
                         f'"{API_VERSION}"', field="apiVersion")
        if doc.get("kind") != KIND:
            self.problem(f'Unsupported value: {f.quote(str(doc.get("kind")))}: supported values: "{KIND}"',
                         field="kind")
        self._unknown(doc, ("apiVersion", "kind", "metadata", "spec"), "")
        meta = self._mapping(doc.get("metadata"), None, "metadata")
        self._unknown(meta, ("name", "labels", "annotations"), "metadata.")
        scenario_name = meta.get("name", "")
        if not isinstance(scenario_name, str):
            self.problem(MANIFEST.wrong_type(scenario_name, "a string"), field="metadata.name")
            scenario_name = ""
        spec = self._mapping(doc.get("spec"), None, "spec")
        self._unknown(spec, ("settings", "steps"), "spec.")
        raw_settings = self._mapping(spec.get("settings"), None, "spec.settings")
        settings = self._settings(raw_settings)
        storage = self._storage_settings(raw_settings)
        raw_steps = spec.get("steps")
        if not isinstance(raw_steps, list) or not raw_steps:
            self.problem("Required value: a scenario needs at least one step" if raw_steps is None or
                         raw_steps == [] else MANIFEST.wrong_type(raw_steps, "a list"), field="spec.steps")
            raw_steps = []
        steps = [self._step(i, raw) for i, raw in enumerate(raw_steps)]
        self._check_order([s for s in steps if s is not None])
        loaded = self._load_objects()
        final = []
        for step in steps:
            if step is None:
                continue
            if isinstance(step.action, Create):
                step = attrs.evolve(step, action=attrs.evolve(step.action, objects=loaded[step.index]))
            final.append(step)
        if not self.errors:
            self._check_references(final)
        if self.errors:
            raise InputErrorList(self.errors)
        return Scenario(self.file, scenario_name or self.path.stem, settings, tuple(final), storage)

    # -- pieces ----------------------------------------------------------------------------------------------
    def _unknown(self, raw: Mapping[str, Any], known: Sequence[str], prefix: str) -> None:
        """Report every key of ``raw`` outside ``known`` (a misspelt key would otherwise be silently ignored)."""
        choices = ", ".join(f'"{k}"' for k in known)
        for key in raw:
            if key not in known:
                self.problem(f"unknown field {f.quote(str(key))} (known: {choices})",
                             field=f"{prefix}{escape(str(key))}")

    def _mapping(self, value: object, step: int | None, field: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.problem(MANIFEST.wrong_type(value, "an object"), step, field)
            return {}
        return value

    def _time(self, value: object, step: int | None, field: str) -> float | None:
        """A virtual time or duration: a Go duration string or a number of seconds, 0 to Go's longest duration."""
        if isinstance(value, bool) or value is None:
            self.problem(MANIFEST.wrong_type(value, 'a duration such as "90s" or a number of seconds'), step, field)
            return None
        if isinstance(value, int | float):
            if value < 0 or value != value or value in (float("inf"),):
                self.problem(f"Invalid value: {value}: must be a finite number of seconds, 0 or more", step, field)
                return None
            if value > MAX_DURATION:
                self.problem(f"Invalid value: {value}: must be at most {MAX_SECONDS_TEXT} seconds (the longest Go "
                             "duration, about 292 years)", step, field)
                return None
            return float(value)
        if not isinstance(value, str):
            self.problem(MANIFEST.wrong_type(value, 'a duration such as "90s" or a number of seconds'), step, field)
            return None
        try:
            return parse_duration(value)
        except TimeSpecError as exc:
            self.problem(f"Invalid value: {f.quote(value)}: {exc}", step, field)
            return None

    def _settings(self, raw: Mapping[str, Any]) -> ControllerSettings:
        defaults = ControllerSettings()
        unknown = sorted(set(raw) - {"controllerDelay", "jobDuration", *STORAGE_KEYS}, key=str)
        for key in unknown:
            known = ", ".join(f'"{k}"' for k in ("controllerDelay", "jobDuration", *STORAGE_KEYS))
            self.problem(f"unknown field {f.quote(str(key))} (known: {known})",
                         field=f"spec.settings.{escape(str(key))}")
        delay = self._time(raw["controllerDelay"], None, "spec.settings.controllerDelay") \
            if "controllerDelay" in raw else None
        duration = self._time(raw["jobDuration"], None, "spec.settings.jobDuration") if "jobDuration" in raw else None
        return ControllerSettings(defaults.controller_delay if delay is None else delay,
                                  defaults.job_duration if duration is None else duration)

    def _storage_settings(self, raw: Mapping[str, Any]) -> StorageSettings:
        """``provisioningDelay`` (a duration) and ``provisioners`` (a list of names; ``"*"``: every one)."""
        defaults = StorageSettings()
        delay = self._time(raw["provisioningDelay"], None, "spec.settings.provisioningDelay") \
            if "provisioningDelay" in raw else None
        provisioners = defaults.provisioners
        if "provisioners" in raw:
            value = raw["provisioners"]
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                self.problem(MANIFEST.wrong_type(value, "a list of provisioner names"),
                             field="spec.settings.provisioners")
            else:
                provisioners = tuple(value)
        return StorageSettings(defaults.provisioning_delay if delay is None else delay, provisioners)

    def _step(self, index: int, raw: object) -> Step | None:
        if not isinstance(raw, Mapping):
            self.problem(MANIFEST.wrong_type(raw, "an object"), index)
            return None
        at = self._time(raw["at"], index, "at") if "at" in raw else None
        actions = [k for k in raw if k in ACTIONS]
        unknown = [k for k in raw if k not in ACTIONS and k != "at"]
        for key in unknown:
            choices = ", ".join(f'"{a}"' for a in ACTIONS)
            self.problem(f"unknown field {f.quote(str(key))} (a step has an optional \"at\" and one of {choices})",
                         index, escape(str(key)))
        if len(actions) != 1:
            if not unknown:
                choices = ", ".join(f'"{a}"' for a in ACTIONS)
                self.problem(f"Required value: exactly one action of {choices}" if not actions else
                             f"Invalid value: {', '.join(actions)}: a step has exactly one action", index)
            return None
        name = actions[0]
        body = raw[name]
        action: Action | None
        if name in ("create", "apply"):
            action = self._create(index, name, body)
        elif name == "delete":
            action = self._delete(index, body)
        elif name == "patch-node":
            action = self._patch_node(index, body)
        elif name == "drain-node":
            fields = self._fields(index, name, body, ("name", "timeout"))
            timeout = self._time(fields["timeout"], index, f"{name}.timeout") if "timeout" in fields else None
            action = DrainNode(self._name(index, name, fields), timeout)
        elif name == "delete-node":
            action = DeleteNode(self._name(index, name, self._fields(index, name, body, ("name",))))
        elif name == "scale":
            action = self._scale(index, body)
        else:
            action = self._run_until(index, body)
        return Step(index, at, name, action) if action is not None else None

    def _fields(self, index: int, name: str, body: object, known: Sequence[str]) -> Mapping[str, Any]:
        fields = self._mapping(body, index, name)
        if body is None:
            self.problem("Required value", index, name)
        for key in fields:
            if key not in known:
                choices = ", ".join(f'"{k}"' for k in known)
                self.problem(f"unknown field {f.quote(str(key))} (known: {choices})", index,
                             f"{name}.{escape(str(key))}")
        return fields

    def _name(self, index: int, name: str, fields: Mapping[str, Any], key: str = "name") -> str:
        value = fields.get(key)
        if value is None or value == "":
            self.problem("Required value", index, f"{name}.{key}")
            return ""
        if not isinstance(value, str):
            self.problem(MANIFEST.wrong_type(value, "a string"), index, f"{name}.{key}")
            return ""
        return value

    def _create(self, index: int, name: str, body: object) -> Create | None:
        fields = self._fields(index, name, body, ("from", "objects"))
        raw_from = fields.get("from", [])
        paths: list[Path] = []
        if isinstance(raw_from, str):
            raw_from = [raw_from]
        if not isinstance(raw_from, list):
            self.problem(MANIFEST.wrong_type(raw_from, "a list of paths"), index, f"{name}.from")
            raw_from = []
        for i, item in enumerate(raw_from):
            if not isinstance(item, str) or not item:
                self.problem(MANIFEST.wrong_type(item, "a path"), index, f"{name}.from[{i}]")
                continue
            target = self.path.parent / item
            if not target.exists():
                self.problem(f"Invalid value: {f.quote(item)}: no such file or directory (paths are relative to the "
                             "scenario file)", index, f"{name}.from[{i}]")
                continue
            paths.append(target)
        objects = fields.get("objects", [])
        if not isinstance(objects, list):
            self.problem(MANIFEST.wrong_type(objects, "a list of objects"), index, f"{name}.objects")
            objects = []
        if body is not None and not raw_from and not objects:
            self.problem('Required value: "from" (manifest files) or "objects" (inline)', index, name)
        self.sources.append(Source(tuple(paths), tuple(objects), self.file, f"spec.steps[{index}].{name}.objects",
                                   replaces=name == "apply"))
        self.source_steps.append(index)
        return Create(ClusterInput(), update=name == "apply")

    def _ref(self, index: int, field: str, raw: object, kinds: Sequence[str]) -> ObjectRef | None:
        fields = self._fields(index, field, raw, ("kind", "name", "namespace"))
        kind = self._name(index, field, fields, "kind")
        if kind and kind not in kinds:
            choices = ", ".join(f'"{k}"' for k in kinds)
            self.problem(f"Unsupported value: {f.quote(kind)}: supported values: {choices}", index, f"{field}.kind")
        name = self._name(index, field, fields)
        namespace = fields.get("namespace", "default")
        if not isinstance(namespace, str) or not namespace:
            self.problem(MANIFEST.wrong_type(namespace, "a namespace name"), index, f"{field}.namespace")
            namespace = "default"
        return ObjectRef(kind, namespace, name) if kind in kinds and name else None

    def _delete(self, index: int, body: object) -> Delete | None:
        items = body if isinstance(body, list) else [body]
        if body is None or items == []:
            self.problem("Required value: the objects to delete", index, "delete")
            return None
        refs = [self._ref(index, f"delete[{i}]" if isinstance(body, list) else "delete", item, DELETABLE)
                for i, item in enumerate(items)]
        return Delete(tuple(r for r in refs if r is not None))

    def _patch_node(self, index: int, body: object) -> PatchNode | None:
        fields = self._fields(index, "patch-node", body, ("name", "labels", "taints", "unschedulable"))
        node = self._name(index, "patch-node", fields)
        labels: dict[str, str | None] = {}
        raw_labels = self._mapping(fields.get("labels"), index, "patch-node.labels")
        for key, value in raw_labels.items():
            if value is not None and not isinstance(value, str):
                self.problem(MANIFEST.wrong_type(value, "a string (or null to remove the label)"), index,
                             f"patch-node.labels.{escape(str(key))}")
                continue
            labels[str(key)] = value
        with f.collecting() as problems:
            check_labels({k: v or "" for k, v in labels.items()}, "patch-node.labels")
        for problem in problems:
            self.problem(problem.message, index, problem.field)
        taints = None
        if "taints" in fields:
            with f.collecting() as problems:
                taints = f.items(fields["taints"], "patch-node.taints", decode._taint)
            for problem in problems:
                self.problem(problem.message, index, problem.field)
        unschedulable = fields.get("unschedulable")
        if unschedulable is not None and not isinstance(unschedulable, bool):
            self.problem(MANIFEST.wrong_type(unschedulable, "a boolean"), index, "patch-node.unschedulable")
            unschedulable = None
        if not labels and taints is None and unschedulable is None and body is not None:
            self.problem('Required value: one of "labels", "taints", "unschedulable"', index, "patch-node")
        return PatchNode(node, labels, taints, unschedulable) if node else None

    def _scale(self, index: int, body: object) -> Scale | None:
        fields = self._fields(index, "scale", body, ("kind", "name", "namespace", "replicas"))
        ref = self._ref(index, "scale", {k: v for k, v in fields.items() if k != "replicas"}, SCALABLE)
        replicas = fields.get("replicas")
        if isinstance(replicas, bool) or not isinstance(replicas, int):
            self.problem("Required value" if replicas is None else MANIFEST.wrong_type(replicas, "an integer"),
                         index, "scale.replicas")
            return None
        if not 0 <= replicas < 2**31:
            self.problem(f"Invalid value: {replicas}: must be between 0 and 2147483647", index, "scale.replicas")
            return None
        if replicas > MAX_WORKLOAD_PODS:
            self.problem(too_many_pods(replicas), index, "scale.replicas")
            return None
        return Scale(ref, replicas) if ref is not None else None

    def _run_until(self, index: int, body: object) -> RunUntil | None:
        if body == QUIESCENCE:
            return RunUntil(None)
        if isinstance(body, str) and not body[:1].isdigit():
            self.problem(f'Invalid value: {f.quote(body)}: "{QUIESCENCE}" or a time such as "24h"', index, "run-until")
            return None
        time = self._time(body, index, "run-until")
        return RunUntil(time) if time is not None else None

    # -- across steps ------------------------------------------------------------------------------------------
    def _check_order(self, steps: list[Step]) -> None:
        """Times never go back: each ``at`` (and run-until time) is at or after the ones before it."""
        latest = 0.0
        for step in steps:
            if step.at is not None:
                if step.at < latest:
                    self.problem(f"Invalid value: {step.at:g}s: before an earlier step's time ({latest:g}s); steps "
                                 "run in order", step.index, "at")
                latest = max(latest, step.at)
            if isinstance(step.action, RunUntil) and step.action.time is not None:
                if step.action.time < latest:
                    self.problem(f"Invalid value: {step.action.time:g}s: before an earlier step's time ({latest:g}s)",
                                 step.index, "run-until")
                latest = max(latest, step.action.time)

    def _load_objects(self) -> dict[int, ClusterInput]:
        try:
            loaded = load_groups(self.sources)
        except InputErrorList as exc:
            self.errors.extend(exc.errors)
            return {index: ClusterInput() for index in self.source_steps}
        return dict(zip(self.source_steps, loaded, strict=True))

    def _check_references(self, steps: list[Step]) -> None:
        """Objects are created before they are named, never twice, and not named after they are deleted."""
        existing: set[tuple[str, str, str]] = set()
        for step in steps:
            action = step.action
            if isinstance(action, Create):
                for key, what in _keys(action.objects):
                    if key in existing and not (action.update and key[0] in ("Deployment", "Node")):
                        hint = " (apply updates Deployments and Nodes only)" if action.update else \
                            " (use apply to update a Deployment or a Node)"
                        self.problem(f"AlreadyExists: {what} already exists{hint}", step.index, step.name)
                    existing.add(key)
            elif isinstance(action, Delete):
                for i, ref in enumerate(action.targets):
                    key = (ref.kind, ref.namespace, ref.name)
                    if ref.kind != "Pod" and key not in existing:
                        self.problem(f"NotFound: {ref} is not created by an earlier step", step.index,
                                     f"delete[{i}]" if len(action.targets) > 1 else "delete")
                    existing.discard(key)
            elif isinstance(action, Scale):
                key = (action.target.kind, action.target.namespace, action.target.name)
                if key not in existing:
                    self.problem(f"NotFound: {action.target} is not created by an earlier step", step.index, "scale")
            elif isinstance(action, PatchNode | DrainNode | DeleteNode):
                key = ("Node", "", action.name)
                if key not in existing:
                    self.problem(f"NotFound: node {f.quote(action.name)} is not created by an earlier step (or was "
                                 "deleted)", step.index, f"{step.name}.name")
                if isinstance(action, DeleteNode):
                    existing.discard(key)


def _keys(objects: ClusterInput) -> list[tuple[tuple[str, str, str], str]]:
    """(kind, namespace, name) and a description of every object of a create step."""
    keys = [(("Node", "", n.name), f"node {f.quote(n.name)}") for n in objects.nodes]
    keys += [(("Pod", p.namespace, p.name), f"Pod {p.key}") for p in objects.pods]
    keys += [(("PodDisruptionBudget", p.namespace, p.name), f"PodDisruptionBudget {p.namespace}/{p.name}")
             for p in objects.pdbs]
    keys += [(("Service", s.metadata.namespace, s.metadata.name),
              f"Service {s.metadata.namespace}/{s.metadata.name}") for s in objects.services]
    keys += [((w.kind, w.metadata.namespace, w.metadata.name), f"{w.kind} {w.metadata.namespace}/{w.metadata.name}")
             for w in objects.workloads]
    return keys
