"""PodTopologySpread: args and their validation, default constraints (System and List), and when PreFilter and
PreScore skip. Also the cluster-building helpers the other test_pod_topology_spread_* files share.

Filter behaviour is in test_pod_topology_spread_filter.py, scoring in test_pod_topology_spread_score.py and the
PreFilter extensions in test_pod_topology_spread_extensions.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs
import pytest

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import Pod, TopologySpreadConstraint
from kubesched.api.workload import Service, WorkloadController
from kubesched.framework._args import ArgsError, structure, unstructure
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore
from kubesched.plugins.pod_topology_spread import NAME, PodTopologySpread, PodTopologySpreadArgs, SpreadConstraintArg
from kubesched.plugins.pod_topology_spread.common import default_constraints
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import verdict

# -- shared helpers ---------------------------------------------------------------------------------

HOSTNAME = "kubernetes.io/hostname"
TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"

OK: tuple[Code, tuple[str, ...]] = (Code.SUCCESS, ())
SKEW = (Code.UNSCHEDULABLE, ("node(s) didn't match pod topology spread constraints",))
MISSING = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
           ("node(s) didn't match pod topology spread constraints (missing required label)",))

Verdict = tuple[Code, tuple[str, ...]]


def exists(*keys: str) -> LabelSelector:
    """A selector requiring each of these label keys to be present."""
    return LabelSelector(match_expressions=tuple(LabelSelectorRequirement(k, "Exists") for k in keys))


FOO = exists("foo")
BAR = exists("bar")


def spread(max_skew: int, key: str, when: str = DO_NOT_SCHEDULE, selector: LabelSelector | None = FOO, *,
           min_domains: int | None = None, node_affinity_policy: str | None = None,
           node_taints_policy: str | None = None, match_label_keys: tuple[str, ...] = ()) -> TopologySpreadConstraint:
    """A topology spread constraint (``selector=None`` is a constraint without labelSelector)."""
    return TopologySpreadConstraint(max_skew, key, when, selector, min_domains, node_affinity_policy,
                                    node_taints_policy, match_label_keys)


def with_spread(pod: Pod, *constraints: TopologySpreadConstraint) -> Pod:
    """The pod with these topology spread constraints added."""
    existing = pod.spec.topology_spread_constraints
    return attrs.evolve(pod, spec=attrs.evolve(pod.spec, topology_spread_constraints=(*existing, *constraints)))


def incoming(*constraints: TopologySpreadConstraint, labels: Mapping[str, str] | None = None) -> Pod:
    """The pod to schedule, labelled ``foo`` unless other labels are given."""
    return with_spread(make_pod("p").label(**(labels if labels is not None else {"foo": ""})).obj(), *constraints)


def node(name: str, labels: Mapping[str, str] | None = None, **more: str) -> Node:
    """A node with exactly these labels (no implicit hostname label)."""
    return Node(ObjectMeta(name=name, uid=f"{name}-uid", labels={**(labels or {}), **more}))


def zoned(name: str, zone: str) -> Node:
    """A node labelled ``zone=<zone>`` and ``node=<name>``, as kube-scheduler's spreading tests lay them out."""
    return node(name, zone=zone, node=name)


def on(node_name: str, name: str, namespace: str = "default", **labels: str) -> Pod:
    """An existing pod bound to ``node_name`` with these labels."""
    return make_pod(name, namespace).node(node_name).label(**labels).obj()


def foo_pods(node_name: str, count: int) -> list[Pod]:
    """``count`` pods labelled ``foo`` on the node, named after it."""
    return [on(node_name, f"{node_name}-p{i}", foo="") for i in range(count)]


FOUR_NODES = [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")]


def cluster(nodes: Sequence[Node], pods: Sequence[Pod] = ()) -> list[NodeInfo]:
    """NodeInfos for the nodes (in order) holding the pods bound to them."""
    infos = {n.name: NodeInfo.of(n) for n in nodes}
    for pod in pods:
        infos[pod.spec.node_name].add_pod(PodInfo.of(pod))
    return list(infos.values())


@attrs.frozen
class Workloads:
    """The workload objects default constraints look up: Services and controllers."""

    services: Sequence[Service] = ()
    controllers: Sequence[WorkloadController] = ()


def service(name: str, **selector: str) -> Service:
    """A Service in ``default`` selecting pods with these labels."""
    return Service(ObjectMeta(name=name, namespace="default"), selector)


def replica_set(name: str, selector: LabelSelector) -> WorkloadController:
    """A ReplicaSet in ``default`` with this pod selector."""
    return WorkloadController("ReplicaSet", ObjectMeta(name=name, namespace="default"), selector)


def make_plugin(infos: Sequence[NodeInfo] = (), workloads: Workloads | None = None,
                args: dict[str, Any] | None = None) -> PodTopologySpread:
    """The plugin over a snapshot of ``infos``, built from kebab-case args (System defaulting by default)."""
    workloads = workloads or Workloads()
    plugin: PodTopologySpread = plugin_instance(PodTopologySpread, args or {}, nodes=list(infos),
                                                services=workloads.services, controllers=workloads.controllers)
    return plugin


def pre_filter(plugin: PodTopologySpread, pod: Pod, infos: Sequence[NodeInfo]) -> tuple[CycleState, Status | None]:
    """PreFilter over every node; returns the state and PreFilter's status."""
    state = CycleState()
    status = plugin.pre_filter(state, pod, list(infos))
    assert not isinstance(status, Status) or status.code in (Code.SUCCESS, Code.SKIP), f"PreFilter: {status}"
    return state, status


def filter_verdicts(plugin: PodTopologySpread, pod: Pod, infos: Sequence[NodeInfo]) -> dict[str, Verdict]:
    """Each node's Filter verdict after PreFilter over all of them (a PreFilter Skip fails the test)."""
    state, status = pre_filter(plugin, pod, infos)
    assert status is None, f"PreFilter returned {status}"
    return {ni.name: verdict(plugin.filter(state, pod, ni)) for ni in infos}


def final_scores(plugin: PodTopologySpread, pod: Pod, feasible: Sequence[NodeInfo]) -> list[int]:
    """PreScore over the feasible nodes, Score on each, then NormalizeScore (PreScore must succeed)."""
    state = CycleState()
    status = plugin.pre_score(state, pod, list(feasible))
    assert status is None, f"PreScore returned {status}"
    scores = [NodeScore(ni.name, plugin.score(state, pod, ni)) for ni in feasible]
    assert plugin.normalize_score(state, pod, scores) is None
    return [s.score for s in scores]


def is_skip(status: Status | None) -> bool:
    """Whether a hook returned Skip."""
    return isinstance(status, Status) and status.code is Code.SKIP


# -- args -------------------------------------------------------------------------------------------

def test_name_is_pod_topology_spread() -> None:
    """The plugin registers under kube-scheduler's name."""
    assert NAME == "PodTopologySpread"
    assert PodTopologySpread.name == NAME


def test_args_default_to_system_defaulting_without_constraints() -> None:
    """Empty config means System defaulting and no listed constraints."""
    args = structure(PodTopologySpreadArgs, {})
    assert (args.defaulting_type, args.default_constraints) == ("System", ())


def test_system_defaulting_uses_kube_scheduler_defaults() -> None:
    """System defaults: hostname with maxSkew 3, zone with maxSkew 5, both ScheduleAnyway."""
    assert PodTopologySpreadArgs().effective_defaults() == (
        SpreadConstraintArg(3, HOSTNAME, SCHEDULE_ANYWAY),
        SpreadConstraintArg(5, TOPOLOGY_ZONE, SCHEDULE_ANYWAY),
    )


def test_args_read_kebab_case_keys_and_round_trip() -> None:
    """List defaulting with constraints reads kebab-case keys, and unstructures back to them."""
    config = {"defaulting-type": "List", "default-constraints": [
        {"max-skew": 1, "topology-key": "zone", "when-unsatisfiable": "DoNotSchedule"},
        {"max-skew": 2, "topology-key": "zone", "when-unsatisfiable": "ScheduleAnyway"},
    ]}
    args = structure(PodTopologySpreadArgs, config)
    assert args.default_constraints == (SpreadConstraintArg(1, "zone", DO_NOT_SCHEDULE),
                                        SpreadConstraintArg(2, "zone", SCHEDULE_ANYWAY))
    assert args.effective_defaults() == args.default_constraints
    assert unstructure(args) == config


def constraint_arg(**overrides: Any) -> dict[str, Any]:
    """A valid kebab-case default constraint with some keys replaced (None removes a key)."""
    base: dict[str, Any] = {"max-skew": 1, "topology-key": "zone", "when-unsatisfiable": "DoNotSchedule"}
    base.update({k.replace("_", "-"): v for k, v in overrides.items()})
    return {k: v for k, v in base.items() if v is not None}


def listed(*constraints: dict[str, Any]) -> dict[str, Any]:
    """List-defaulting args with these default constraints."""
    return {"defaulting-type": "List", "default-constraints": list(constraints)}


INVALID_ARGS = [
    pytest.param({"default-constraints": [constraint_arg()]},
                 'defaulting-type: Invalid value: "System": when default-constraints are not empty',
                 id="system-with-constraints"),
    pytest.param({"defaulting-type": "Custom"},
                 'defaulting-type: Unsupported value: "Custom": supported values: "System", "List"',
                 id="unknown-defaulting-type"),
    pytest.param(listed(constraint_arg(max_skew=0)),
                 "default-constraints[0].max-skew: Invalid value: 0: not in valid range (0, inf)", id="zero-max-skew"),
    pytest.param(listed(constraint_arg(), constraint_arg(max_skew=-1, topology_key="rack")),
                 "default-constraints[1].max-skew: Invalid value: -1: not in valid range (0, inf)",
                 id="negative-max-skew"),
    pytest.param(listed(constraint_arg(max_skew=None)), "default-constraints[0].max-skew: Required value",
                 id="missing-max-skew"),
    pytest.param(listed(constraint_arg(topology_key="")),
                 "default-constraints[0].topology-key: Required value: can not be empty", id="empty-topology-key"),
    pytest.param(listed(constraint_arg(topology_key="not a key!")),
                 'default-constraints[0].topology-key: Invalid value: "not a key!": must be a qualified label name',
                 id="invalid-topology-key"),
    pytest.param(listed(constraint_arg(when_unsatisfiable="Sometimes")),
                 'default-constraints[0].when-unsatisfiable: Unsupported value: "Sometimes": supported values: '
                 '"DoNotSchedule", "ScheduleAnyway"', id="unknown-when-unsatisfiable"),
    pytest.param(listed(constraint_arg(label_selector={"match-labels": {"app": "web"}})),
                 "default-constraints[0].label-selector: Forbidden: constraint must not define a selector",
                 id="selector-forbidden"),
    pytest.param(listed(constraint_arg(), constraint_arg(max_skew=3)),
                 'default-constraints[1]: Duplicate value: "{zone, DoNotSchedule}"', id="duplicate-key-and-action"),
]


@pytest.mark.parametrize(("config", "message"), INVALID_ARGS)
def test_invalid_args_are_rejected_with_key_path(config: dict[str, Any], message: str) -> None:
    """ValidatePodTopologySpreadArgs: each violation is an ArgsError naming the offending key."""
    with pytest.raises(ArgsError) as info:
        structure(PodTopologySpreadArgs, config)
    assert str(info.value).startswith(message)


def test_default_constraints_accept_min_domains_and_inclusion_policies() -> None:
    """Like kube-scheduler's args, a listed default constraint may set minDomains and the node policies."""
    config = listed(constraint_arg(min_domains=2, node_affinity_policy="Ignore", node_taints_policy="Honor"))
    (constraint,) = structure(PodTopologySpreadArgs, config).default_constraints
    assert (constraint.min_domains, constraint.node_affinity_policy, constraint.node_taints_policy) == (
        2, "Ignore", "Honor")
    defaults = default_constraints([constraint], LabelSelector(match_labels={"app": "web"}))
    assert (defaults[0].min_domains, defaults[0].node_affinity_policy, defaults[0].node_taints_policy) == (
        2, "Ignore", "Honor")


@pytest.mark.parametrize(("override", "message"), [
    pytest.param({"min_domains": 0}, "default-constraints[0].min-domains: Invalid value: 0: must be greater than 0",
                 id="zero-min-domains"),
    pytest.param({"node_taints_policy": "Sometimes"},
                 'default-constraints[0].node-taints-policy: Unsupported value: "Sometimes"', id="bad-policy"),
])
def test_default_constraint_policies_are_validated(override: dict[str, Any], message: str) -> None:
    """minDomains must be positive and the policies Honor or Ignore."""
    with pytest.raises(ArgsError) as info:
        structure(PodTopologySpreadArgs, listed(constraint_arg(**override)))
    assert str(info.value).startswith(message)


def test_same_key_with_both_actions_is_allowed() -> None:
    """Only (topologyKey, whenUnsatisfiable) pairs must be unique."""
    config = listed(constraint_arg(), constraint_arg(when_unsatisfiable=SCHEDULE_ANYWAY))
    args = structure(PodTopologySpreadArgs, config)
    assert len(args.default_constraints) == 2


def test_list_defaulting_may_have_no_constraints() -> None:
    """List with an empty list is valid and means no default spreading."""
    assert structure(PodTopologySpreadArgs, {"defaulting-type": "List"}).effective_defaults() == ()


def test_constructing_args_directly_validates_too() -> None:
    """The checks run on construction, not only when reading config."""
    with pytest.raises(ArgsError, match="Required value: can not be empty"):
        SpreadConstraintArg(1, "zone", "")  # type: ignore[arg-type]
    with pytest.raises(ArgsError, match="when default-constraints are not empty"):
        PodTopologySpreadArgs("System", (SpreadConstraintArg(1, "zone", DO_NOT_SCHEDULE),))


# -- skipping ---------------------------------------------------------------------------------------

NO_HARD_CONSTRAINTS = [
    pytest.param(incoming(), id="no-constraints"),
    pytest.param(incoming(spread(1, "zone", SCHEDULE_ANYWAY)), id="only-schedule-anyway"),
]


@pytest.mark.parametrize("pod", NO_HARD_CONSTRAINTS)
def test_pre_filter_skips_without_do_not_schedule_constraints(pod: Pod) -> None:
    """No DoNotSchedule constraint (after defaulting): PreFilter returns Skip."""
    infos = cluster(FOUR_NODES)
    assert is_skip(make_plugin(infos).pre_filter(CycleState(), pod, infos))


NO_SOFT_CONSTRAINTS = [
    pytest.param(incoming(), id="no-constraints"),
    pytest.param(incoming(spread(1, "zone")), id="only-do-not-schedule"),
]


@pytest.mark.parametrize("pod", NO_SOFT_CONSTRAINTS)
def test_pre_score_skips_without_schedule_anyway_constraints(pod: Pod) -> None:
    """No ScheduleAnyway constraint (after defaulting): PreScore returns Skip."""
    infos = cluster(FOUR_NODES)
    assert is_skip(make_plugin(infos).pre_score(CycleState(), pod, infos))


def test_pre_score_skips_with_an_empty_snapshot() -> None:
    """No node in the snapshot: nothing to score."""
    pod = incoming(spread(1, "zone", SCHEDULE_ANYWAY))
    assert is_skip(make_plugin([]).pre_score(CycleState(), pod, []))


# -- default constraints ----------------------------------------------------------------------------

WEB = {"app": "web"}


def web_pod(*constraints: TopologySpreadConstraint, owner: str = "") -> Pod:
    """An ``app=web`` pod, optionally owned by ReplicaSet ``owner``, with these constraints of its own."""
    builder = make_pod("p").label(**WEB)
    if owner:
        builder = builder.owner("ReplicaSet", owner)
    return with_spread(builder.obj(), *constraints)


def web_on(node_name: str, count: int) -> list[Pod]:
    """``count`` ``app=web`` pods on the node."""
    return [on(node_name, f"{node_name}-web{i}", app="web") for i in range(count)]


HOSTS = [make_node(f"node-{c}").obj() for c in "abcd"]
# Matching pods spread as 4/3/2/1 over hosts without zone labels.
HOST_PODS = web_on("node-a", 4) + web_on("node-b", 3) + web_on("node-c", 2) + web_on("node-d", 1)

SELECTED_BY_WORKLOAD = [
    pytest.param(Workloads(services=[service("web", app="web")]), "", id="selected-by-service"),
    pytest.param(Workloads(controllers=[replica_set("rs1", LabelSelector(match_labels=WEB))]), "rs1",
                 id="owned-by-known-replicaset"),
]


@pytest.mark.parametrize(("workloads", "owner"), SELECTED_BY_WORKLOAD)
def test_system_defaults_spread_a_pod_selected_by_its_workload(workloads: Workloads, owner: str) -> None:
    """System defaults (hostname maxSkew 3, zone maxSkew 5) score a workload pod; zone-less nodes still count."""
    infos = cluster(HOSTS, HOST_PODS)
    assert final_scores(make_plugin(infos, workloads), web_pod(owner=owner), infos) == [44, 66, 77, 100]


NOT_SELECTED = [
    pytest.param(Workloads(), "", id="no-workload"),
    pytest.param(Workloads(services=[service("db", app="db")]), "", id="service-selects-other-pods"),
    pytest.param(Workloads(controllers=[replica_set("rs1", LabelSelector(match_labels=WEB))]), "rs2",
                 id="owner-replicaset-unknown"),
]


@pytest.mark.parametrize(("workloads", "owner"), NOT_SELECTED)
def test_system_defaults_do_not_apply_without_a_workload_selector(workloads: Workloads, owner: str) -> None:
    """No Service or known controller selects the pod: no default constraints, PreScore skips."""
    infos = cluster(HOSTS, HOST_PODS)
    assert is_skip(make_plugin(infos, workloads).pre_score(CycleState(), web_pod(owner=owner), infos))


def test_system_defaults_do_not_apply_to_a_pod_with_its_own_constraints() -> None:
    """A pod with only a DoNotSchedule constraint of its own gets no soft default constraints."""
    infos = cluster(HOSTS, HOST_PODS)
    plugin = make_plugin(infos, Workloads(services=[service("web", app="web")]))
    pod = web_pod(spread(1, HOSTNAME, selector=LabelSelector(match_labels=WEB)))
    assert is_skip(plugin.pre_score(CycleState(), pod, infos))


def test_system_defaults_never_filter() -> None:
    """The system defaults are all ScheduleAnyway: PreFilter skips even for a selected pod."""
    infos = cluster(HOSTS, HOST_PODS)
    plugin = make_plugin(infos, Workloads(services=[service("web", app="web")]))
    assert is_skip(plugin.pre_filter(CycleState(), web_pod(), infos))


ZONE_LESS = [node("node-a", {HOSTNAME: "node-a", TOPOLOGY_ZONE: "z1"}),
             node("node-b", {HOSTNAME: "node-b", TOPOLOGY_ZONE: "z1"}),
             node("node-c", {HOSTNAME: "node-c"})]
ZONE_LESS_PODS = web_on("node-a", 1) + web_on("node-c", 2)
SYSTEM_LIST = listed({"max-skew": 3, "topology-key": HOSTNAME, "when-unsatisfiable": SCHEDULE_ANYWAY},
                     {"max-skew": 5, "topology-key": TOPOLOGY_ZONE, "when-unsatisfiable": SCHEDULE_ANYWAY})


def test_system_defaults_score_nodes_without_a_zone_label() -> None:
    """System defaulting does not require every key: node-c has no zone, so it is scored on hostname alone, and
    the zone-less nodes form one more zone domain (weights log(3 + 2) for hosts, log(2 + 2) for zones)."""
    infos = cluster(ZONE_LESS, ZONE_LESS_PODS)
    plugin = make_plugin(infos, Workloads(services=[service("web", app="web")]))
    # raw: a = 1*ln5 + 2 + 1*ln4 + 4 -> 9; b = 2 + ln4 + 4 -> 7; c = 2*ln5 + 2 -> 5
    assert final_scores(plugin, web_pod(), infos) == [55, 77, 100]


def test_same_constraints_listed_ignore_nodes_without_a_zone_label() -> None:
    """Listed explicitly, the same two constraints require both keys: node-c is ignored and scores 0."""
    infos = cluster(ZONE_LESS, ZONE_LESS_PODS)
    plugin = make_plugin(infos, Workloads(services=[service("web", app="web")]), SYSTEM_LIST)
    # raw: a = 1*ln4 + 2 + 1*ln3 + 4 -> 8; b = 2 + ln3 + 4 -> 7
    assert final_scores(plugin, web_pod(), infos) == [87, 100, 0]


LIST_ZONE_HARD = listed({"max-skew": 1, "topology-key": "zone", "when-unsatisfiable": DO_NOT_SCHEDULE})


def test_list_defaults_filter_with_the_workload_selector() -> None:
    """A DoNotSchedule default constraint filters a workload pod, counting pods its ReplicaSet selects."""
    infos = cluster(FOUR_NODES, [*web_on("node-a", 2), on("node-x", "other", app="db")])
    plugin = make_plugin(infos, Workloads(controllers=[replica_set("rs1", LabelSelector(match_labels=WEB))]),
                         LIST_ZONE_HARD)
    assert filter_verdicts(plugin, web_pod(owner="rs1"), infos) == {
        "node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": OK}


def test_list_defaults_do_not_apply_to_a_pod_with_its_own_constraints() -> None:
    """The pod's own (soft-only) constraints replace the defaults entirely: no DoNotSchedule, PreFilter skips."""
    infos = cluster(FOUR_NODES, web_on("node-a", 2))
    plugin = make_plugin(infos, Workloads(controllers=[replica_set("rs1", LabelSelector(match_labels=WEB))]),
                         LIST_ZONE_HARD)
    pod = web_pod(spread(1, "zone", SCHEDULE_ANYWAY, LabelSelector(match_labels=WEB)), owner="rs1")
    assert is_skip(plugin.pre_filter(CycleState(), pod, infos))


def test_list_defaults_without_a_workload_do_not_apply() -> None:
    """A List default constraint needs a workload selector too."""
    infos = cluster(FOUR_NODES, web_on("node-a", 2))
    assert is_skip(make_plugin(infos, Workloads(), LIST_ZONE_HARD).pre_filter(CycleState(), web_pod(), infos))


def test_list_defaults_score_with_custom_constraints() -> None:
    """A ScheduleAnyway List default scores with its own maxSkew: zone1 holds 2 web pods, zone2 none."""
    infos = cluster(FOUR_NODES, web_on("node-a", 2))
    args = listed({"max-skew": 2, "topology-key": "zone", "when-unsatisfiable": SCHEDULE_ANYWAY})
    plugin = make_plugin(infos, Workloads(services=[service("web", app="web")]), args)
    # weight ln(2 + 2); raw zone1 = 2*ln4 + 1 -> 4, zone2 = 0 + 1 -> 1: 100*(4+1-4)//4 = 25
    assert final_scores(plugin, web_pod(), infos) == [25, 25, 100, 100]


def test_empty_list_means_no_default_spreading() -> None:
    """List defaulting without constraints: a Service-selected pod is neither filtered nor scored."""
    infos = cluster(FOUR_NODES, web_on("node-a", 2))
    plugin = make_plugin(infos, Workloads(services=[service("web", app="web")]), {"defaulting-type": "List"})
    assert is_skip(plugin.pre_filter(CycleState(), web_pod(), infos))
    assert is_skip(plugin.pre_score(CycleState(), web_pod(), infos))
