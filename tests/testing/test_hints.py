"""kubesched.testing.hint: what a plugin's registrations answer for one pod and one change, by the runtime's rules
(no events_to_register, the Node/Add workaround, the wildcard events, hints that raise), and the same answer the
scheduling queue acts on."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.errors import PluginError
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    Plugin,
    QueueingHint,
    Status,
    hookimpl,
)
from kubesched.framework._events import (
    ASSIGNED_POD_DELETE,
    FORCE_ACTIVATE,
    NODE_ADD,
    NODE_TAINT_UPDATE,
    UNSCHEDULABLE_TIMEOUT,
)
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import contents, hint, make_node, make_pod, new_queue, place, plugin_instance

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
NODE_LABEL = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
POD = make_pod("p").obj()
BIG = make_node("big").label(size="big").obj()
SMALL = make_node("small").obj()


def _big(pod: Pod, old: Node | None, new: Node | None) -> QueueingHint:
    return QUEUE if new is not None and new.labels.get("size") == "big" else SKIP


class Picky(Plugin):
    """Registers Node/Add with a hint that queues only for big nodes."""

    name = "Picky"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_ADD, _big)]

    @hookimpl
    def filter(self) -> Status | None:
        return None


class PickyOnTaints(Picky):
    """Registers Node/Add and Node/UpdateNodeTaint, both through the big-node hint."""

    name = "PickyOnTaints"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                                     _big)]


class LabelsOnly(Picky):
    """Registers Node/UpdateNodeLabel alone, through the big-node hint."""

    name = "LabelsOnly"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_LABEL, _big)]


class Legacy(Plugin):
    """Has no events_to_register."""

    name = "Legacy"

    @hookimpl
    def filter(self) -> Status | None:
        return None


class Broken(Plugin):
    """Its hint raises on Node/Add and answers a string on a label change."""

    name = "Broken"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        def raising(pod: Pod, old: Any, new: Any) -> QueueingHint:
            raise RuntimeError("boom")

        def wrong(pod: Pod, old: Any, new: Any) -> QueueingHint:
            return "yes"  # type: ignore[return-value]
        return [ClusterEventWithHint(NODE_ADD, raising), ClusterEventWithHint(NODE_LABEL, wrong)]

    @hookimpl
    def filter(self) -> Status | None:
        return None


@attrs.frozen
class SizedArgs:
    """The node label value Sized waits for."""

    size: str = "big"


class Sized(Plugin):
    """Like Picky, with the wanted size from its args, or from ``wanted`` once set on the instance."""

    name = "Sized"
    Args = SizedArgs
    args: SizedArgs

    def __init__(self, handle: Any, args: SizedArgs) -> None:
        super().__init__(handle, args)
        self.wanted = args.size

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_ADD, self.sized)]

    def sized(self, pod: Pod, old: Node | None, new: Node | None) -> QueueingHint:
        return QUEUE if new is not None and new.labels.get("size") == self.wanted else SKIP

    @hookimpl
    def filter(self) -> Status | None:
        return None


class TestRegistrations:
    """Tests for the answers of the plugin's own registrations."""

    @pytest.mark.parametrize(("node", "expected"), [(BIG, QUEUE), (SMALL, SKIP)])
    def test_a_registered_event_gets_the_hints_answer(self, node: Node, expected: QueueingHint) -> None:
        """For an event the plugin registered, its hint decides."""
        assert hint(Picky, POD, NODE_ADD, None, node) is expected

    def test_an_event_the_plugin_did_not_register_is_skip(self) -> None:
        """A change the plugin did not register leaves the pod unschedulable."""
        assert hint(Picky, POD, NODE_LABEL, SMALL, BIG) is SKIP

    @pytest.mark.parametrize("event", [NODE_ADD, NODE_LABEL, ASSIGNED_POD_DELETE])
    def test_a_plugin_without_events_to_register_queues_for_every_event(self, event: ClusterEvent) -> None:
        """No events_to_register counts as every event, always Queue."""
        assert hint(Legacy, POD, event, SMALL, SMALL) is QUEUE

    def test_node_add_brings_taint_updates_that_always_queue(self) -> None:
        """Registering Node/Add without Node/UpdateNodeTaint adds UpdateNodeTaint with no hint (issue 109437)."""
        assert hint(Picky, POD, NODE_TAINT_UPDATE, SMALL, SMALL) is QUEUE

    def test_node_events_without_node_add_bring_no_taint_updates(self) -> None:
        """A plugin registering Node/UpdateNodeLabel but not Node/Add gets no UpdateNodeTaint registration."""
        assert hint(LabelsOnly, POD, NODE_TAINT_UPDATE, SMALL, SMALL) is SKIP
        assert hint(LabelsOnly, POD, NODE_LABEL, SMALL, BIG) is QUEUE

    def test_a_plugin_registering_taint_updates_keeps_its_hint_for_them(self) -> None:
        """With Node/UpdateNodeTaint registered, the plugin's own hint answers taint changes."""
        assert hint(PickyOnTaints, POD, NODE_TAINT_UPDATE, SMALL, SMALL) is SKIP

    @pytest.mark.parametrize("event", [NODE_ADD, NODE_LABEL], ids=["raises", "answers-a-string"])
    def test_a_broken_hint_counts_as_queue(self, event: ClusterEvent) -> None:
        """A hint that raises, or answers something other than a QueueingHint, is Queue, as kube-scheduler does."""
        assert hint(Broken, POD, event, None, SMALL) is QUEUE


class TestWildcardEvents:
    """Tests for the events no plugin is asked about."""

    def test_the_unschedulable_timeout_queues(self) -> None:
        """The 5-minute flush retries every pod, whatever its plugins registered."""
        assert hint(Picky, POD, UNSCHEDULABLE_TIMEOUT) is QUEUE

    @pytest.mark.parametrize(("activated", "expected"), [(POD, QUEUE), (make_pod("other").obj(), SKIP)])
    def test_force_activate_queues_only_the_pod_it_names(self, activated: Pod, expected: QueueingHint) -> None:
        """ForceActivate carries the pod it activates: only that pod is queued."""
        assert hint(Picky, POD, FORCE_ACTIVATE, None, activated) is expected


class TestPluginForms:
    """Tests for the ways to name the plugin."""

    def test_args_reach_a_plugin_class(self) -> None:
        """A class is built with the given args (a mapping of profile keys)."""
        small = make_node("s").label(size="small").obj()
        assert (hint(Sized, POD, NODE_ADD, None, small), hint(Sized, POD, NODE_ADD, None, small,
                                                               args={"size": "small"})) == (SKIP, QUEUE)

    def test_a_built_in_plugin_by_name(self) -> None:
        """A name is a built-in (or installed) plugin: NodeAffinity queues for a node matching the nodeSelector."""
        pod = make_pod("p").node_selector(zone="a")
        assert [hint("NodeAffinity", pod, NODE_ADD, None, make_node("n").label(zone=zone).obj())
                for zone in ("a", "b")] == [QUEUE, SKIP]

    def test_a_kit_instance_answers_with_its_own_state(self) -> None:
        """An instance from plugin_instance answers through its own framework, so with its current state."""
        plugin = plugin_instance(Sized)
        plugin.wanted = "small"
        assert hint(plugin, POD, NODE_ADD, None, make_node("s").label(size="small").obj()) is QUEUE

    def test_an_instance_from_elsewhere_is_refused(self) -> None:
        """An instance the kit did not build has no framework to answer with: a TypeError says what to pass."""
        with pytest.raises(TypeError, match="Picky instance was not built by the testing kit; pass the plugin class"):
            hint(Picky(None, None), POD, NODE_ADD, None, BIG)  # type: ignore[arg-type]

    def test_an_unknown_name_is_a_plugin_error(self) -> None:
        """A name no plugin has is a PluginError suggesting the closest one."""
        with pytest.raises(PluginError, match="NodeAffinity"):
            hint("NodeAfinity", POD, NODE_ADD, None, BIG)


CHANGES = [(NODE_ADD, None, BIG), (NODE_ADD, None, SMALL), (NODE_LABEL, SMALL, BIG), (NODE_TAINT_UPDATE, SMALL, BIG),
           (ASSIGNED_POD_DELETE, make_pod("x").node("big").obj(), None), (UNSCHEDULABLE_TIMEOUT, None, None)]


@pytest.mark.parametrize("plugin", [Picky, PickyOnTaints, Legacy, Broken])
@pytest.mark.parametrize(("event", "old", "new"), CHANGES, ids=[f"{e.label}-{i}" for i, (e, _, _) in
                                                                 enumerate(CHANGES)])
def test_the_queue_moves_the_pod_exactly_when_hint_says_queue(plugin: type[Plugin], event: ClusterEvent, old: Any,
                                                                new: Any) -> None:
    """A pod the plugin rejected leaves the unschedulable pods on the change exactly when hint() says Queue."""
    clock = VirtualClock()
    queue = new_queue(plugin, clock=clock)
    place(queue, POD, "unschedulable", rejected_by=(plugin.name,))
    clock.advance_to(2.0)
    queue.move_all_to_active_or_backoff(event, old, new)
    moved = contents(queue) == {"active": ["p"]}
    assert moved == (hint(plugin, POD, event, old, new) is QUEUE)
