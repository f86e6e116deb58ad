"""The conformance suite as a base test class: subclass it in your tests and pytest runs one test per check.

::

    from kubesched.testing import PluginConformance

    class TestMyFilter(PluginConformance):
        plugin_class = MyFilter
        plugin_args = {"max-per-node": 3}      # optional: an Args instance or profile keys
        cluster = "cluster.yaml"               # optional: manifests the plugin acts on (next to this file)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.errors import KubeschedError
from kubesched.testing.conformance.checks import CHECKS, Check
from kubesched.testing.conformance.examples import default_nodes, default_pods, default_running, default_storage
from kubesched.testing.conformance.report import Outcome, run_check
from kubesched.testing.conformance.subject import DEFAULT_LARGE_CLUSTER, DEFAULT_TIME_BUDGET, PluginUnderTest
from kubesched.testing.harness import built


class ConformanceWarning(UserWarning):
    """A check passed but noticed something worth a look (a plugin somewhat over the time budget)."""


#: Warnings of checks run by PluginConformance subclasses or --kubesched-conformance in this process; the
#: pytest plugin prints them in the terminal summary. They are not Python warnings, so ``-W error`` cannot
#: turn a slow plugin into a failure.
NOTES: list[str] = []
#: Per plugin checked in this process (by the name the summary gives it), what keeps it off the fast path; the
#: pytest plugin lists the plugins with something to say in the terminal summary. Informational, never a failure.
FAST_PATH: dict[str, list[str]] = {}


class PluginConformance:
    """Base class: set ``plugin_class`` (and optionally args and examples); each check becomes a test method
    ``test_<check id>``. Checks that do not apply (no such extension point) are reported as skipped."""

    plugin_class: ClassVar[type[Any]]
    #: The plugin's Args instance or a kebab-case mapping of its profile keys; None means the defaults.
    plugin_args: ClassVar[Any] = None
    #: Manifest files (a path or several) to use as the example cluster, as ``kubesched conformance --cluster``
    #: does: their nodes, their bound pods as running pods, the other pods as the pods to schedule. A relative
    #: path is relative to the file of the class that sets it. Use it when the default examples never reach
    #: the plugin's hooks (a plugin gated by a resource, a label or an annotation).
    cluster: ClassVar[str | Path | Sequence[str | Path] | None] = None
    #: Or the example cluster in Python: nodes, the pods already running on them, and pods to schedule.
    nodes: ClassVar[Sequence[Node] | None] = None
    running: ClassVar[Sequence[Pod] | None] = None
    pods: ClassVar[Sequence[Pod] | None] = None
    #: And its storage objects (PersistentVolumes, claims, StorageClasses, CSI objects); None: the default
    #: examples' (the web pod's claim of a local volume).
    storage: ClassVar[Sequence[Any] | None] = None
    #: Seconds a single Filter or Score call may take on average before the time-budget check warns (it fails
    #: at ten times that).
    time_budget: ClassVar[float] = DEFAULT_TIME_BUDGET
    #: Nodes in the large cluster of the edge-input and time-budget checks.
    large_cluster: ClassVar[int] = DEFAULT_LARGE_CLUSTER

    def plugin_under_test(self) -> PluginUnderTest:
        """The subject the checks run on, from the class attributes; a cluster file that cannot be used is a
        KubeschedError naming the file."""
        if self.cluster is not None:
            if any(v is not None for v in (self.nodes, self.running, self.pods, self.storage)):
                raise KubeschedError("set either cluster or nodes, running, pods and storage, not both")
            return PluginUnderTest.from_cluster(self.plugin_class, self.cluster_paths(), args=self.plugin_args,
                                                time_budget=self.time_budget, large_cluster=self.large_cluster)
        return PluginUnderTest(self.plugin_class, self.plugin_args,
                               built(self.nodes) if self.nodes is not None else default_nodes(),
                               built(self.running) if self.running is not None else default_running(),
                               built(self.pods) if self.pods is not None else default_pods(),
                               self.time_budget, self.large_cluster,
                               storage=built(self.storage) if self.storage is not None else default_storage())

    def cluster_paths(self) -> list[Path]:
        """The ``cluster`` paths, relative ones resolved against the directory of the class that sets it."""
        cluster = self.cluster
        paths = [cluster] if isinstance(cluster, (str, Path)) else list(cluster or ())
        owner = next(c for c in type(self).__mro__ if "cluster" in vars(c))
        module_file = getattr(sys.modules.get(owner.__module__), "__file__", None)
        base = Path(module_file).parent if module_file else Path.cwd()
        return [base / path for path in paths]

    def run_conformance_check(self, check: Check, summary: bool = True) -> None:
        """Run one check, turning its outcome into pytest's: a failure, a skip, or a warning (a line of the
        terminal summary when kubesched's pytest plugin is active, else a :class:`ConformanceWarning`)."""
        import pytest

        if not hasattr(self, "plugin_class"):
            pytest.fail(f"{type(self).__name__}: set plugin_class to the plugin to test", pytrace=False)
        try:
            subject = self.plugin_under_test()
        except KubeschedError as exc:
            pytest.fail(f"{type(self).__name__}: {exc}", pytrace=False)
        if summary:
            FAST_PATH.setdefault(f"{type(self).__name__} ({subject.name})", subject.fast_path.sentences)
        result = run_check(check, subject)
        if result.outcome is Outcome.FAILED:
            pytest.fail(f"{check.id}: {result.detail}", pytrace=False)
        if result.outcome is Outcome.SKIPPED:
            pytest.skip(f"{check.id}: {result.detail}")
        if result.outcome is Outcome.WARNED:
            note = f"{type(self).__name__} ({self.plugin_class.name}): {check.id}: {result.detail}"
            if summary:
                NOTES.append(note)
            else:
                warnings.warn(ConformanceWarning(note), stacklevel=2)


def _test_method(check: Check) -> Callable[[PluginConformance, Any], None]:
    def test(self: PluginConformance, pytestconfig: Any) -> None:
        self.run_conformance_check(check, summary=pytestconfig.pluginmanager.has_plugin("kubesched"))

    test.__name__ = "test_" + check.id.replace("-", "_")
    test.__doc__ = f"Conformance: {check.title}."
    return test


for _check in CHECKS:
    _method = _test_method(_check)
    setattr(PluginConformance, _method.__name__, _method)
