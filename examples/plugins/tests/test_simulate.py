"""End to end: simulations with the default profile plus both example plugins (support.PROFILE)."""

from __future__ import annotations

from kubesched.runtime import PluginRegistry
from kubesched.testing import make_pod

from kubesched_examples.node_label_placement import PREFERRED_VALUES_ANNOTATION

from support import POOL_LABEL, ZONE_LABEL, by_name, gang_pod, node, run, with_annotation

TIMEOUT_30S = "[profiles.plugin-config.Coscheduling]\npermit-waiting-time-seconds = 30\n"
PLACEMENT = f"""
[profiles.plugin-config.NodeLabelPlacement]
required-labels = {{ "{POOL_LABEL}" = "batch" }}
preferred-label = "{ZONE_LABEL}"
preferred-values = ["zone-a", "zone-b"]
"""


def test_gang_that_fits_binds_every_member_at_once(registry: PluginRegistry) -> None:
    """Three members of a group of 3 bind at time 0; the last to arrive binds first, then those it allowed."""
    pods = [gang_pod(f"m{i}", "g", 3, cpu="1") for i in range(3)]
    result = run(registry, [node("n1")], pods)
    assert {p.name: p.phase for p in result.pods} == {"m0": "Bound", "m1": "Bound", "m2": "Bound"}
    assert [(e.time, e.reason, e.object) for e in result.events] == [
        (0.0, "Scheduled", "default/m2"), (0.0, "Scheduled", "default/m0"), (0.0, "Scheduled", "default/m1")]


def test_gang_that_does_not_fit_binds_no_member(registry: PluginRegistry) -> None:
    """Room for two of three members: none binds, and the two that waited release their room."""
    pods = [gang_pod(f"m{i}", "g", 3, cpu="2") for i in range(3)]
    result = run(registry, [node("n1")], pods)
    assert {p.phase for p in result.pods} == {"Pending"}
    assert [e for e in result.events if e.reason == "Scheduled"] == []
    assert result.nodes[0].cpu_requested == 0


def test_waiting_members_time_out_with_the_framework_message(registry: PluginRegistry) -> None:
    """Members waiting at Permit are rejected at the timeout with kube-scheduler's timeout message."""
    pods = [gang_pod(f"m{i}", "g", 3, cpu="2") for i in range(3)]
    result = run(registry, [node("n1")], pods, TIMEOUT_30S)
    timeouts = [(e.time, e.object, e.message) for e in result.events if "timeout" in e.message]
    assert timeouts == [
        (30.0, "default/m0", "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
                             "Coscheduling."),
        (30.0, "default/m1", "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
                             "Coscheduling."),
    ]


def test_gang_short_of_quorum_stays_pending_with_the_timeout_cause(registry: PluginRegistry) -> None:
    """Every member ends Pending; retried during the backoff, each reports that the group timed out."""
    pods = [gang_pod(f"m{i}", "g", 3, cpu="2") for i in range(3)]
    result = run(registry, [node("n1")], pods, TIMEOUT_30S)
    assert {p.message for p in result.pods} == {
        "0/1 nodes are available: pod group default/g is backing off: it did not reach min-available 3 within 30s. "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."}


def test_gang_with_too_few_pods_times_out(registry: PluginRegistry) -> None:
    """A group declaring min-available 3 with only two pods never binds, though both fit."""
    result = run(registry, [node("n1")], [gang_pod("m0", "g", 3), gang_pod("m1", "g", 3)])
    assert {p.phase for p in result.pods} == {"Pending"}
    assert all("did not reach min-available 3 within 1m0s" in p.message for p in result.pods)


def test_without_backoff_an_impossible_gang_re_forms_until_nothing_new_happens(registry: PluginRegistry) -> None:
    """pod-group-backoff-seconds = 0: the gang re-forms and times out again and again, until its rounds bring
    nothing new to the simulator; every member ends Pending."""
    pods = [gang_pod(f"m{i}", "g", 3, cpu="2") for i in range(3)]
    result = run(registry, [node("n1")], pods, "[profiles.plugin-config.Coscheduling]\npod-group-backoff-seconds = 0\n")
    assert {p.phase for p in result.pods} == {"Pending"}
    assert len([e for e in result.events if "rejected due to timeout" in e.message]) > 3


def test_new_member_joins_running_members_at_once(registry: PluginRegistry) -> None:
    """Members already running count towards min-available: a late member binds without waiting."""
    running = [gang_pod(f"m{i}", "g", 3).with_node_name("n1") for i in range(2)]
    result = run(registry, [node("n1")], [*running, gang_pod("late", "g", 3)])
    assert by_name(result)["late"].phase == "Bound"
    assert [(e.time, e.object) for e in result.events] == [(0.0, "default/late")]


def test_pods_outside_groups_are_not_held_by_a_waiting_gang(registry: PluginRegistry) -> None:
    """A plain pod binds at time 0 while a gang that cannot complete waits beside it."""
    pods = [gang_pod("m0", "g", 2, cpu="1"), gang_pod("m1", "g", 2, cpu="8"), make_pod("web").req(cpu="1").obj()]
    result = run(registry, [node("n1")], pods)
    assert by_name(result)["web"].phase == "Bound"
    assert (by_name(result)["m0"].phase, by_name(result)["m1"].phase) == ("Pending", "Pending")


def test_required_labels_keep_pods_off_other_pools(registry: PluginRegistry) -> None:
    """The roomy system node is rejected by the placement filter; the pod is counted there in the message."""
    nodes = [node("batch-1", cpu="1"), node("system-1", cpu="64", pool="system")]
    pods = [make_pod("a").req(cpu="1").obj(), make_pod("b").req(cpu="1").obj()]
    result = by_name(run(registry, nodes, pods, PLACEMENT))
    assert result["a"].node == "batch-1"
    assert result["b"].message.startswith(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't have the required placement labels.")


def test_preferred_zone_wins_over_a_less_loaded_node(registry: PluginRegistry) -> None:
    """With weight 3, the zone-a preference outweighs LeastAllocated's pull towards the empty zone-b node."""
    nodes = [node("a", zone="zone-a"), node("b", zone="zone-b")]
    running = make_pod("busy").req(cpu="2").node("a").obj()
    result = by_name(run(registry, nodes, [running, make_pod("p").req(cpu="1").obj()], PLACEMENT))
    assert result["p"].node == "a"


def test_pod_annotation_turns_the_preference_around(registry: PluginRegistry) -> None:
    """A pod annotated ``zone-b, zone-a`` lands in zone-b."""
    nodes = [node("a", zone="zone-a"), node("b", zone="zone-b")]
    pod = with_annotation(make_pod("p").req(cpu="1").obj(), PREFERRED_VALUES_ANNOTATION, "zone-b, zone-a")
    result = by_name(run(registry, nodes, [pod], PLACEMENT))
    assert result["p"].node == "b"
