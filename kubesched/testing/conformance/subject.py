"""The plugin under test: its class, args and example cluster, and the Frameworks the checks run it in."""

from __future__ import annotations

import collections
import copy
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.storage import StorageObject
from kubesched.errors import InputError
from kubesched.framework._plugin import marked_hooks
from kubesched.io.load import load
from kubesched.plugins.default_preemption import RESOURCE_SHORTCUT
from kubesched.runtime import FastPath, Framework, fast_path
from kubesched.testing.conformance.examples import default_nodes, default_pods, default_running, default_storage
from kubesched.testing.conformance.recorder import Recorder
from kubesched.testing.harness import cluster_and_snapshot, plugin_profile, plugin_registry

#: Default per-call budget for Filter and Score; over it the time-budget check warns, far over it it fails.
DEFAULT_TIME_BUDGET = 0.0005
#: Nodes in the large cluster of the edge-input and time-budget checks.
DEFAULT_LARGE_CLUSTER = 2000
#: The seed of every framework the checks build (reset before each cycle, so handle.rng repeats).
SEED = 0


def load_cluster(paths: Sequence[str | Path]) -> tuple[tuple[Node, ...], tuple[Pod, ...], tuple[Pod, ...],
                                                      tuple[StorageObject, ...]]:
    """(nodes, running pods, pods to schedule, storage objects) from manifest files: bound pods run, the others
    are scheduled. A problem with the files, or a cluster without a node or a pod to schedule, is an
    InputError."""
    manifests = load(paths)
    pending = tuple(p for p in manifests.pods if not p.spec.node_name)
    if not manifests.nodes or not pending:
        raise InputError("the cluster needs at least one node and one pod without spec.nodeName to schedule",
                         file=", ".join(str(p) for p in paths))
    return (tuple(manifests.nodes), tuple(p for p in manifests.pods if p.spec.node_name), pending,
            tuple(manifests.storage))


@attrs.define
class PluginUnderTest:
    """A plugin class with the args and example cluster the checks run it on.

    ``args`` is the plugin's Args instance or a kebab-case mapping (None: the defaults). ``nodes`` and
    ``running`` form the example cluster, ``pods`` are the pods to schedule on it; each check gets fresh copies.
    ``cluster`` names the manifest files they came from (empty: the suite's default examples); ``storage`` holds
    the PersistentVolumes, claims, StorageClasses and CSI objects of the example cluster.
    ``entry_point`` is the name the plugin is installed under, when it came from an entry point.
    """

    plugin_class: type[Any]
    args: Any = None
    nodes: Sequence[Node] = attrs.field(factory=default_nodes)
    running: Sequence[Pod] = attrs.field(factory=default_running)
    pods: Sequence[Pod] = attrs.field(factory=default_pods)
    time_budget: float = DEFAULT_TIME_BUDGET
    large_cluster: int = DEFAULT_LARGE_CLUSTER
    entry_point: str | None = None
    cluster: tuple[str, ...] = ()
    storage: Sequence[StorageObject] = attrs.field(factory=default_storage)
    #: How often each hook was called since :meth:`reset_calls` (the runner resets it before every check).
    calls: collections.Counter[str] = attrs.field(factory=collections.Counter)

    @classmethod
    def from_cluster(cls, plugin_class: type[Any], paths: Sequence[str | Path], **kwargs: Any) -> PluginUnderTest:
        """The plugin with the cluster of these manifest files as its examples (see :func:`load_cluster`)."""
        nodes, running, pods, storage = load_cluster(paths)
        return cls(plugin_class, nodes=nodes, running=running, pods=pods, cluster=tuple(str(p) for p in paths),
                   storage=storage, **kwargs)

    @property
    def name(self) -> str:
        """The name the plugin is known by: its entry-point name, else the class's ``name``."""
        return self.entry_point or str(getattr(self.plugin_class, "name", self.plugin_class.__name__))

    @property
    def hooks(self) -> set[str]:
        """The hook methods the plugin marks with hookimpl."""
        return marked_hooks(self.plugin_class)

    @property
    def fast_path(self) -> FastPath:
        """What keeps the plugin off the scheduler's fast path, as the default profile's DefaultPreemption sees it
        (informational: the report lists it, no check fails on it)."""
        return fast_path(self.plugin_class, resource_shortcut=RESOURCE_SHORTCUT)

    def has(self, *hooks: str) -> bool:
        """Whether the plugin implements every one of ``hooks``."""
        return set(hooks) <= self.hooks

    def reset_calls(self) -> None:
        """Forget the hook call counts."""
        self.calls.clear()

    def examples(self) -> tuple[list[Node], list[Pod], list[Pod]]:
        """Fresh deep copies of (nodes, running pods, pods to schedule), so no check sees another's changes."""
        return copy.deepcopy(list(self.nodes)), copy.deepcopy(list(self.running)), copy.deepcopy(list(self.pods))

    def framework(self, nodes: Sequence[Node] | None = None, running: Sequence[Pod] | None = None,
                  recorder: Recorder | None = None) -> Framework:
        """A fresh Framework running only this plugin over the example cluster (or the given one), its hooks
        recorded by ``recorder`` (a new one counting into :attr:`calls` when not given)."""
        if nodes is None or running is None:
            example_nodes, example_running, _ = self.examples()
            nodes = example_nodes if nodes is None else nodes
            running = example_running if running is None else running
        recorder = recorder if recorder is not None else Recorder(self.plugin_class.name, self.calls)
        client, snapshot = cluster_and_snapshot(nodes, running)
        for obj in self.storage:
            client.storage.put(obj)
        return Framework(plugin_profile(self.plugin_class, self.args), plugin_registry(self.plugin_class),
                         client=client, rng=random.Random(SEED), clock=client.clock, snapshot=snapshot,
                         hook_wrapper=recorder.wrap)
