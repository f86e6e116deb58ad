"""What keeps a plugin off the fast path (kubesched/runtime/_speed.py), read from its class: its hooks and its
``filter_reads`` declaration, never its name. Each note must say what the runtime then does: the cases are checked
against the runtime's own decisions (the two-pass overlay, the preemption dry run by arithmetic) on a framework
running the plugin beside NodeResourcesFit.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.framework import Evaluator, ResourceShortcut
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._plugin import FilterReads, Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import NodeScore, PreFilterResult
from kubesched.plugins.default_preemption import RESOURCE_SHORTCUT
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.runtime import FastPath, OffTheFastPath, PluginRegistry, fast_path
from kubesched.runtime._batch_filter import nominated_overlay_exact
from kubesched.runtime._preemption import ResourceAccelerator
from kubesched.testing import make_node, make_pod
from kubesched.testing.frameworks import plugin_framework

NOMINATED = "nodes with nominated pods take the per-node two-pass filter"
DRY_RUN = "preemption's dry run runs Filter on node copies"
NO_DECLARATION = f"no filter_reads declaration: {NOMINATED}, and {DRY_RUN} while this plugin filters"
NO_FILTER_NODES = "no filter_nodes: Filter runs node by node"
NO_SCORE_NODES = "no score_nodes: Score runs node by node"
NO_NORMALIZE_SCORES = "no normalize_scores: NormalizeScore runs on NodeScore objects built node by node"


# -- the hooks, as mixins ----------------------------------------------------------------------------------


class _PreFilter:
    @hookimpl
    def pre_filter(self) -> PreFilterResult | Status | None:
        return None


class _AddPod:
    @hookimpl
    def pre_filter_add_pod(self) -> Status | None:
        return None


class _RemovePod:
    @hookimpl
    def pre_filter_remove_pod(self) -> Status | None:
        return None


class _Filter:
    @hookimpl
    def filter(self) -> Status | None:
        return None


class _FilterNodes:
    @hookimpl
    def filter_nodes(self) -> Any:
        return None


class _Score:
    @hookimpl
    def score(self) -> int:
        return 0


class _ScoreNodes:
    @hookimpl
    def score_nodes(self, node_batch: Any) -> Any:
        return np.zeros(len(node_batch), dtype=np.int64)


class _NormalizeScore:
    @hookimpl
    def normalize_score(self, scores: list[NodeScore]) -> Status | None:
        return None


class _NormalizeScores:
    @hookimpl
    def normalize_scores(self, batch_scores: Any) -> Any:
        return batch_scores


class _PreScore:
    @hookimpl
    def pre_score(self) -> Status | None:
        return None


class _Refilter:
    @hookimpl
    def filter(self) -> Status | None:
        return Status.unschedulable("no")


class _Rescore:
    @hookimpl
    def score(self) -> int:
        return 1


# -- the plugins -------------------------------------------------------------------------------------------


class Sorter(Plugin):
    """No Filter or Score at all: nothing to say."""

    name = "Sorter"

    @hookimpl
    def queue_sort_less(self) -> bool:
        return False


class NodeFilter(_FilterNodes, _Filter, Plugin):
    """A batch Filter reading only the Node object: fully on the fast path."""

    name = "NodeFilter"
    filter_reads = FilterReads.NODE


class PerNodeNodeFilter(_Filter, Plugin):
    """Reads only the Node object, but has no batch form."""

    name = "PerNodeNodeFilter"
    filter_reads = FilterReads.NODE


class UndeclaredFilter(_FilterNodes, _Filter, Plugin):
    """A batch Filter that says nothing about what it reads."""

    name = "UndeclaredFilter"


class BareFilter(_Filter, Plugin):
    """Neither a batch form nor a declaration."""

    name = "BareFilter"


class ResourceFilter(_FilterNodes, _Filter, Plugin):
    """Reads the node's resource amounts: the overlay stands in for it, preemption's arithmetic does not (it repeats
    NodeResourcesFit's checks only)."""

    name = "ResourceFilter"
    filter_reads = FilterReads.RESOURCES


class RedefinedFilter(NodeFilter):
    """Redefines Filter below NodeFilter's declaration, which then no longer holds."""

    name = "RedefinedFilter"

    @hookimpl
    def filter(self) -> Status | None:
        return Status.unschedulable("no")


class RedefinedScore(NodeFilter, _ScoreNodes, _Score):
    """Redefines only Score below NodeFilter's declaration, which still holds."""

    name = "RedefinedScore"

    @hookimpl
    def score(self) -> int:
        return 1


class AddPodOnly(_AddPod, _PreFilter, Plugin):
    """A PreFilter AddPod extension."""

    name = "AddPodOnly"


class RemovePodOnly(_RemovePod, _PreFilter, Plugin):
    """A PreFilter RemovePod extension."""

    name = "RemovePodOnly"


class BothExtensions(_RemovePod, _AddPod, _PreFilter, Plugin):
    """Both PreFilter extensions."""

    name = "BothExtensions"


class NodeFilterWithExtensions(_RemovePod, _AddPod, _PreFilter, NodeFilter):
    """A declared batch Filter whose PreFilter extensions still keep it off the overlay and the arithmetic."""

    name = "NodeFilterWithExtensions"


class PerNodeScore(_Score, Plugin):
    """Score without its batch form."""

    name = "PerNodeScore"


class ListNormalizer(_NormalizeScore, _ScoreNodes, _Score, Plugin):
    """Batch Score, but NormalizeScore only on the NodeScore list."""

    name = "ListNormalizer"


class BatchScore(_NormalizeScores, _NormalizeScore, _ScoreNodes, _Score, _PreScore, Plugin):
    """Batch Score and NormalizeScore; a PreScore without pre_score_nodes runs once per cycle either way."""

    name = "BatchScore"


class PerNodeEverything(_NormalizeScore, _Score, _PreScore, _Filter, _PreFilter, Plugin):
    """No batch form and no declaration anywhere: every note, in order."""

    name = "PerNodeEverything"


@attrs.frozen
class Case:
    """A plugin class and what fast_path says of it with DefaultPreemption's resource shortcut."""

    plugin: type[Any]
    batch_forms: tuple[str, ...]
    filter_reads: FilterReads | None
    notes: tuple[str, ...]


CASES = {
    "no filter or score": Case(Sorter, (), None, ()),
    "batch filter declaring NODE": Case(NodeFilter, ("filter_nodes",), FilterReads.NODE, ()),
    "NODE without filter_nodes": Case(PerNodeNodeFilter, (), FilterReads.NODE, (NO_FILTER_NODES,)),
    "batch filter without declaration": Case(UndeclaredFilter, ("filter_nodes",), None, (NO_DECLARATION,)),
    "neither batch form nor declaration": Case(BareFilter, (), None, (NO_FILTER_NODES, NO_DECLARATION)),
    "RESOURCES, not the fit plugin": Case(ResourceFilter, ("filter_nodes",), FilterReads.RESOURCES, (
        f"filter_reads RESOURCES: {DRY_RUN} while this plugin filters (its arithmetic needs NODE of every Filter "
        "plugin but NodeResourcesFit)",)),
    "NodeResourcesFit": Case(NodeResourcesFit, ("filter_nodes", "score_nodes"), FilterReads.RESOURCES, ()),
    "subclass redefines filter": Case(RedefinedFilter, ("filter_nodes",), None, (
        "filter_reads dropped: a subclass redefines Filter below the declaration, which no longer holds, so "
        f"{NOMINATED}, and {DRY_RUN} while this plugin filters",)),
    "subclass redefines score only": Case(RedefinedScore, ("filter_nodes", "score_nodes"), FilterReads.NODE, ()),
    "AddPod": Case(AddPodOnly, (), None, (f"PreFilter AddPod: while this extension runs, {NOMINATED}, and {DRY_RUN}",)),
    "RemovePod": Case(RemovePodOnly, (), None, (f"PreFilter RemovePod: while this extension runs, {DRY_RUN}",)),
    "AddPod and RemovePod": Case(BothExtensions, (), None, (
        f"PreFilter AddPod/RemovePod: while these extensions run, {NOMINATED}, and {DRY_RUN}",)),
    "declared batch filter with extensions": Case(NodeFilterWithExtensions, ("filter_nodes",), FilterReads.NODE, (
        f"PreFilter AddPod/RemovePod: while these extensions run, {NOMINATED}, and {DRY_RUN}",)),
    "score without score_nodes": Case(PerNodeScore, (), None, (NO_SCORE_NODES,)),
    "normalize_score without normalize_scores": Case(ListNormalizer, ("score_nodes",), None, (NO_NORMALIZE_SCORES,)),
    "batch score and normalize": Case(BatchScore, ("score_nodes", "normalize_scores"), None, ()),
    "per node everywhere": Case(PerNodeEverything, (), None, (
        NO_FILTER_NODES, NO_DECLARATION, NO_SCORE_NODES, NO_NORMALIZE_SCORES)),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_notes_say_what_keeps_the_plugin_off_the_fast_path(case: Case) -> None:
    """The batch forms, the declaration in effect and the notes, in a fixed order, as sentences."""
    speed = fast_path(case.plugin, resource_shortcut=RESOURCE_SHORTCUT)
    assert (speed.batch_forms, speed.filter_reads, tuple(speed.sentences)) == (
        case.batch_forms, case.filter_reads, case.notes)


@pytest.mark.parametrize("case", [c for c in CASES.values() if c.plugin is not NodeResourcesFit],
                         ids=[k for k, c in CASES.items() if c.plugin is not NodeResourcesFit])
def test_notes_agree_with_what_the_runtime_decides(case: Case) -> None:
    """Beside NodeResourcesFit, the plugin keeps the two-pass overlay and preemption's arithmetic exactly when no
    note says it loses them (the runtime's own predicates, on a framework running both plugins)."""
    overlay, arithmetic = _runtime_keeps(case.plugin)
    assert _noted_losses(case.plugin) == (not overlay, not arithmetic)


def _runtime_keeps(plugin: type[Any]) -> tuple[bool, bool]:
    """Whether, beside NodeResourcesFit, the runtime keeps the two-pass overlay and preemption's arithmetic."""
    framework = plugin_framework(NodeResourcesFit, plugin, path="batch", nodes=[make_node("n1").obj()])
    state = CycleState()
    evaluator = Evaluator("DefaultPreemption", framework.handle)
    evaluator.resource_shortcut = RESOURCE_SHORTCUT
    accelerator = ResourceAccelerator(framework, framework.handle.snapshot, framework.handle.nominator)
    overlay = nominated_overlay_exact(framework, state, framework.cycle_filters(state))
    arithmetic = accelerator.shortcut_request(evaluator, state, make_pod("p").req(cpu="1").obj()) is not None
    return overlay, arithmetic


def _noted_losses(plugin: type[Any]) -> tuple[bool, bool]:
    """Whether fast_path's notes say the plugin loses the overlay (or runs Filter node by node) and the arithmetic."""
    notes = fast_path(plugin, resource_shortcut=RESOURCE_SHORTCUT).sentences
    return (any(NOMINATED in note or "Filter runs node by node" in note for note in notes),
            any(DRY_RUN in note for note in notes))


@st.composite
def plugin_classes(draw: st.DrawFn) -> type[Any]:
    """A plugin class of random hooks (a batch form only beside its per-node hook, the PreFilter extensions only
    beside PreFilter), a random declaration, and maybe a subclass redefining Filter or Score below it."""
    bases: list[type] = []
    if draw(st.booleans()):
        bases.append(_Filter)
        if draw(st.booleans()):
            bases.insert(0, _FilterNodes)
    if draw(st.booleans()):
        bases.append(_PreFilter)
        bases[:0] = [m for m in (_AddPod, _RemovePod) if draw(st.booleans())]
    if draw(st.booleans()):
        bases.append(_Score)
        bases[:0] = [m for m in (_ScoreNodes, _NormalizeScore) if draw(st.booleans())]
    if not bases:
        bases.append(_PreScore)
    reads = draw(st.sampled_from([None, FilterReads.NODE, FilterReads.RESOURCES]))
    namespace: dict[str, Any] = {"name": "Generated"} | ({"filter_reads": reads} if reads is not None else {})
    cls = type("Generated", (*bases, Plugin), namespace)
    redefine = draw(st.sampled_from([None, _Refilter, _Rescore]))
    if redefine is not None and hasattr(cls, "filter" if redefine is _Refilter else "score"):
        cls = type("Redefining", (redefine, cls), {})
    return cls


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plugin_classes())
def test_notes_agree_with_the_runtime_for_any_plugin(plugin: type[Any]) -> None:
    """For any mix of hooks and declarations, the notes name exactly the losses the runtime's predicates decide."""
    overlay, arithmetic = _runtime_keeps(plugin)
    assert _noted_losses(plugin) == (not overlay, not arithmetic)


def test_the_name_matters_only_as_the_resource_shortcut_names_it() -> None:
    """Classes alike but for their name get the same notes; a RESOURCES plugin is preemption's fit plugin only when
    the shortcut names it, and then a NODE declaration is what it lacks."""
    twin = type("Twin", (ResourceFilter,), {"name": "Twin"})
    assert fast_path(twin, resource_shortcut=RESOURCE_SHORTCUT) == \
        fast_path(ResourceFilter, resource_shortcut=RESOURCE_SHORTCUT)
    assert fast_path(ResourceFilter, resource_shortcut=ResourceShortcut("ResourceFilter")).notes == ()
    assert fast_path(NodeFilter, resource_shortcut=ResourceShortcut("NodeFilter")).sentences == [
        f"filter_reads NODE: {DRY_RUN} while this plugin filters (its arithmetic needs RESOURCES of NodeFilter)"]


def test_without_a_resource_shortcut_no_note_blames_a_plugin_for_the_dry_run() -> None:
    """With no shortcut the dry run always runs Filter on node copies, whatever the plugins declare: the notes say
    only what the plugin itself costs."""
    assert fast_path(UndeclaredFilter, resource_shortcut=None).sentences == [
        f"no filter_reads declaration: {NOMINATED}"]
    assert fast_path(ResourceFilter, resource_shortcut=None).notes == ()
    assert fast_path(RemovePodOnly, resource_shortcut=None).notes == ()


def test_json_form() -> None:
    """``batchForms`` in hook order, ``filterReads`` by name or null, ``offTheFastPath`` the sentences."""
    assert fast_path(PerNodeEverything, resource_shortcut=RESOURCE_SHORTCUT).to_json() == {
        "batchForms": [], "filterReads": None,
        "offTheFastPath": [NO_FILTER_NODES, NO_DECLARATION, NO_SCORE_NODES, NO_NORMALIZE_SCORES]}
    assert fast_path(NodeFilter, resource_shortcut=RESOURCE_SHORTCUT).to_json() == {
        "batchForms": ["filter_nodes"], "filterReads": "NODE", "offTheFastPath": []}


def test_a_note_is_its_cause_then_its_effect() -> None:
    """The short cause (the table's cell) and the sentence."""
    speed = fast_path(BareFilter, resource_shortcut=RESOURCE_SHORTCUT)
    assert speed == FastPath((), None, (OffTheFastPath("no filter_nodes", "Filter runs node by node"),
                                        OffTheFastPath("no filter_reads declaration", NO_DECLARATION.split(": ")[1])))


#: Every built-in plugin's notes with DefaultPreemption's shortcut: the ones not listed are fully on the fast path.
BUILTIN_NOTES = {
    "InterPodAffinity": [NO_DECLARATION,
                         f"PreFilter AddPod/RemovePod: while these extensions run, {NOMINATED}, and {DRY_RUN}"],
    "NodePorts": [NO_DECLARATION],
    "NodeVolumeLimits": [NO_FILTER_NODES, NO_DECLARATION],
    "PodTopologySpread": [NO_DECLARATION,
                          f"PreFilter AddPod/RemovePod: while these extensions run, {NOMINATED}, and {DRY_RUN}"],
    "VolumeRestrictions": [NO_DECLARATION,
                           f"PreFilter AddPod/RemovePod: while these extensions run, {NOMINATED}, and {DRY_RUN}"],
}
BUILTINS = {name: spec.cls for name, spec in PluginRegistry.discover().items() if spec.source == "builtin"}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_notes(name: str) -> None:
    """InterPodAffinity, PodTopologySpread, NodePorts, VolumeRestrictions and NodeVolumeLimits read the node's pods
    (the last without a batch form); every other built-in is fully on the fast path."""
    assert fast_path(BUILTINS[name], resource_shortcut=RESOURCE_SHORTCUT).sentences == BUILTIN_NOTES.get(name, [])


def test_the_builtins_fully_on_the_fast_path() -> None:
    """The list, spelled out."""
    assert sorted(n for n, cls in BUILTINS.items() if not fast_path(cls, resource_shortcut=RESOURCE_SHORTCUT).notes) \
        == ["DefaultBinder", "DefaultPreemption", "ImageLocality", "NodeAffinity", "NodeName",
            "NodeResourcesBalancedAllocation", "NodeResourcesFit", "NodeUnschedulable", "PrioritySort",
            "SchedulingGates", "TaintToleration", "VolumeBinding", "VolumeZone"]
