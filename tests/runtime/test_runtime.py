"""Specification of the Framework: how one profile's plugins run at each extension point."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import pytest

from kubesched.api.pod import Pod
from kubesched.errors import ProfileError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore, NodeToStatus, PostFilterResult, PreFilterResult
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import framework_of, make_filter, make_pre_filter, make_score

POD = make_pod("p").obj()


def nodes(*names: str) -> list[NodeInfo]:
    return [NodeInfo.of(make_node(n).capacity(cpu="4").obj()) for n in names]


class TestFilter:
    """Tests for run_filter_plugins."""

    def test_runs_plugins_in_profile_order(self) -> None:
        """Every Filter plugin runs, in the order the profile lists them."""
        calls: list[str] = []
        fwk = framework_of({"filter": ["B", "A"]}, make_filter("A", lambda n: None, calls),
                           make_filter("B", lambda n: None, calls))
        assert fwk.run_filter_plugins(CycleState(), POD, nodes("n1")[0]) is None
        assert calls == ["B:n1", "A:n1"]

    def test_stops_at_first_rejection_and_names_the_plugin(self) -> None:
        """The first rejection ends the node's check and carries the rejecting plugin's name."""
        calls: list[str] = []
        fwk = framework_of({"filter": ["A", "B"]},
                           make_filter("A", lambda n: Status.unschedulable("no room"), calls),
                           make_filter("B", lambda n: None, calls))
        status = fwk.run_filter_plugins(CycleState(), POD, nodes("n1")[0])
        assert status is not None
        assert (status.code, status.reasons, status.plugin) == (Code.UNSCHEDULABLE, ("no room",), "A")
        assert calls == ["A:n1"]

    def test_non_rejection_status_becomes_an_error(self) -> None:
        """A Filter returning Wait (not a rejection) is an Error, worded as kube-scheduler does."""
        fwk = framework_of({"filter": ["A"]}, make_filter("A", lambda n: Status.wait("hold on")))
        status = fwk.run_filter_plugins(CycleState(), POD, nodes("n1")[0])
        assert status is not None
        assert status.code is Code.ERROR
        assert status.message() == 'running "A" filter plugin: hold on'

    def test_exception_is_that_plugins_error(self) -> None:
        """A Filter that raises yields an Error naming the plugin and the exception."""
        def explode(node: NodeInfo) -> Status | None:
            raise ValueError("boom")

        fwk = framework_of({"filter": ["A"]}, make_filter("A", explode))
        status = fwk.run_filter_plugins(CycleState(), POD, nodes("n1")[0])
        assert status is not None
        assert (status.code, status.plugin) == (Code.ERROR, "A")
        assert status.message() == 'running "A" filter plugin: ValueError: boom'

    def test_hook_taking_a_subset_of_arguments_is_called_with_those(self) -> None:
        """A hook may accept only some of the hookspec's arguments, by name."""
        seen: list[str] = []

        class NodeOnly(Plugin):
            name = "NodeOnly"

            @hookimpl
            def filter(self, node_info: NodeInfo) -> Status | None:
                seen.append(node_info.name)
                return None

        fwk = framework_of({"filter": ["NodeOnly"]}, NodeOnly)
        assert fwk.run_filter_plugins(CycleState(), POD, nodes("n7")[0]) is None
        assert seen == ["n7"]


class TestPreFilter:
    """Tests for run_pre_filter_plugins."""

    def test_skip_disables_the_plugins_filter(self) -> None:
        """Skip from PreFilter means the same plugin's Filter does not run this cycle."""
        calls: list[str] = []
        fwk = framework_of({"pre-filter": ["S"], "filter": ["S"]},
                           make_pre_filter("S", Status.skip(), calls, filter_verdict=Status.unschedulable("x")))
        state = CycleState()
        _, status, _ = fwk.run_pre_filter_plugins(state, POD, nodes("n1"))
        assert status is None
        assert state.skip_filter_plugins == {"S"}
        assert fwk.run_filter_plugins(state, POD, nodes("n1")[0]) is None
        assert calls == ["S:pre_filter"]

    def test_unresolvable_stops_the_remaining_plugins(self) -> None:
        """UnschedulableAndUnresolvable from PreFilter ends PreFilter at once."""
        calls: list[str] = []
        fwk = framework_of({"pre-filter": ["A", "B"]},
                           make_pre_filter("A", Status.unresolvable("nope"), calls),
                           make_pre_filter("B", None, calls))
        _, status, _ = fwk.run_pre_filter_plugins(CycleState(), POD, nodes("n1"))
        assert status is not None
        assert (status.code, status.plugin) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "A")
        assert calls == ["A:pre_filter"]

    def test_unschedulable_lets_the_remaining_plugins_run(self) -> None:
        """Unschedulable from PreFilter is remembered while later PreFilter plugins still run."""
        calls: list[str] = []
        fwk = framework_of({"pre-filter": ["A", "B"]},
                           make_pre_filter("A", Status.unschedulable("later"), calls),
                           make_pre_filter("B", None, calls))
        _, status, _ = fwk.run_pre_filter_plugins(CycleState(), POD, nodes("n1"))
        assert status is not None
        assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "A")
        assert calls == ["A:pre_filter", "B:pre_filter"]

    def test_results_are_intersected(self) -> None:
        """Node narrowing from several plugins is intersected; the narrowing plugins are reported."""
        fwk = framework_of({"pre-filter": ["A", "B"]},
                           make_pre_filter("A", PreFilterResult(frozenset({"n1", "n2"}))),
                           make_pre_filter("B", PreFilterResult(frozenset({"n2", "n3"}))))
        result, status, with_nodes = fwk.run_pre_filter_plugins(CycleState(), POD, nodes("n1", "n2", "n3"))
        assert status is None
        assert result == PreFilterResult(frozenset({"n2"}))
        assert with_nodes == {"A", "B"}

    @pytest.mark.parametrize(("outcomes", "message"), [
        ([frozenset()], "node(s) didn't satisfy plugin A"),
        ([frozenset({"n1"}), frozenset({"n2"})], "node(s) didn't satisfy plugin(s) [A B] simultaneously"),
    ], ids=["one-plugin", "two-plugins"])
    def test_empty_intersection_is_unresolvable(self, outcomes: list[frozenset[str]], message: str) -> None:
        """When the narrowed node sets do not overlap, the pod is UnschedulableAndUnresolvable."""
        plugins = [make_pre_filter(n, PreFilterResult(o)) for n, o in zip("AB", outcomes, strict=False)]
        fwk = framework_of({"pre-filter": [p.name for p in plugins]}, *plugins)
        _, status, _ = fwk.run_pre_filter_plugins(CycleState(), POD, nodes("n1", "n2"))
        assert status is not None
        assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.message() == message


class TestScore:
    """Tests for run_pre_score_plugins and run_score_plugins."""

    def test_weights_multiply_normalised_scores(self) -> None:
        """A node's total is the sum of each plugin's score times its weight."""
        fwk = framework_of({"score": [("A", 2), ("B", 1)]},
                           make_score("A", {"n1": 10, "n2": 50}), make_score("B", {"n1": 100, "n2": 0}))
        table, status = fwk.run_score_plugins(CycleState(), POD, nodes("n1", "n2"))
        assert status is None
        result = table.node_scores()
        assert [(r.name, r.total_score) for r in result] == [("n1", 120), ("n2", 100)]
        assert [(s.name, s.score) for s in result[0].scores] == [("A", 20), ("B", 100)]

    def test_normalize_score_rewrites_raw_scores(self) -> None:
        """NormalizeScore sees the raw scores of every node and its rewrite is what counts."""
        def halve(scores: list[NodeScore]) -> None:
            for ns in scores:
                ns.score //= 2

        fwk = framework_of({"score": ["A"]}, make_score("A", {"n1": 200, "n2": 100}, normalize=halve))
        table, status = fwk.run_score_plugins(CycleState(), POD, nodes("n1", "n2"))
        assert status is None
        assert table.totals == [100, 50]

    @pytest.mark.parametrize("change", [list.pop, list.reverse], ids=["drops-a-node", "reorders"])
    def test_normalize_score_must_keep_every_node_in_order(self, change: Callable[[list[NodeScore]], object]) -> None:
        """A normalizer that drops or reorders entries would put scores on the wrong nodes: that is an Error."""
        def normalize(scores: list[NodeScore]) -> None:
            change(scores)

        fwk = framework_of({"score": ["A"]}, make_score("A", {"n1": 10, "n2": 20}, normalize=normalize))
        table, status = fwk.run_score_plugins(CycleState(), POD, nodes("n1", "n2"))
        assert status is not None
        assert (status.code, status.plugin) == (Code.ERROR, "A")
        assert status.message() == ('running Normalize on Score plugins: plugin "A" changed the list of nodes (it '
                                    "must rewrite scores in place, keeping every node in order)")
        assert table.totals == [0, 0]

    @pytest.mark.parametrize("bad", [101, -1], ids=["above-100", "negative"])
    def test_score_outside_0_100_after_normalising_is_an_error(self, bad: int) -> None:
        """Scores must be in [0, 100] after NormalizeScore; otherwise the cycle fails with an Error."""
        fwk = framework_of({"score": ["A"]}, make_score("A", {"n1": bad}))
        _, status = fwk.run_score_plugins(CycleState(), POD, nodes("n1"))
        assert status is not None
        assert status.code is Code.ERROR
        assert status.message() == (f'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
                                    f"score {bad}, it should in the range of [0, 100] after normalizing")

    def test_pre_score_skip_disables_the_plugins_score(self) -> None:
        """Skip from PreScore leaves the plugin out of the totals."""
        fwk = framework_of({"pre-score": ["A"], "score": ["A", "B"]},
                           make_score("A", {"n1": 100}, pre_score=Status.skip()), make_score("B", {"n1": 7}))
        state = CycleState()
        assert fwk.run_pre_score_plugins(state, POD, nodes("n1")) is None
        table, _ = fwk.run_score_plugins(state, POD, nodes("n1"))
        assert table.totals == [7]
        assert table.plugins == ["B"]

    def test_score_exception_is_an_error_naming_the_plugin(self) -> None:
        """A Score plugin that raises fails the cycle with an Error naming it."""
        fwk = framework_of({"score": ["A"]}, make_score("A", {}))
        _, status = fwk.run_score_plugins(CycleState(), POD, nodes("n1"))
        assert status is not None
        assert (status.code, status.plugin) == (Code.ERROR, "A")
        assert status.message() == "running Score plugins: plugin \"A\" failed with: KeyError: 'n1'"

    def test_score_exception_is_recorded_on_the_node_being_scored(self) -> None:
        """The plugin failure names the node whose Score raised, not the first or the last node."""
        fwk = framework_of({"score": ["A"]}, make_score("A", {"n1": 5, "n3": 5}))
        fwk.run_score_plugins(CycleState(), POD, nodes("n1", "n2", "n3"))
        assert [(f.point, f.plugin, f.node) for f in fwk.failures] == [("Score", "A", "n2")]

    def test_invalid_score_is_recorded_on_its_node(self) -> None:
        """A score outside [0, 100] is reported on the node that got it."""
        fwk = framework_of({"score": ["A"]}, make_score("A", {"n1": 5, "n2": 7, "n3": 400}))
        fwk.run_score_plugins(CycleState(), POD, nodes("n1", "n2", "n3"))
        assert [(f.point, f.plugin, f.node) for f in fwk.failures] == [("Score", "A", "n3")]


class Recorder(Plugin):
    """Reserve/Permit/Bind plugin whose outcomes are set per test."""

    name = "Recorder"
    log: ClassVar[list[str]] = []
    reserve_status: ClassVar[Status | None] = None
    permit_outcome: ClassVar[tuple[Status | None, float]] = (None, 0.0)

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.log.append(f"{self.name}:reserve")
        return self.reserve_status

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.log.append(f"{self.name}:unreserve")

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return self.permit_outcome


class TestReservePermitBind:
    """Tests for Reserve, Unreserve, Permit and Bind."""

    def test_unreserve_runs_in_reverse_order(self) -> None:
        """Unreserve runs for every Reserve plugin, last first."""
        log: list[str] = []
        first = type("First", (Recorder,), {"name": "First", "log": log})
        second = type("Second", (Recorder,), {"name": "Second", "log": log})
        fwk = framework_of({"reserve": ["First", "Second"]}, first, second)
        fwk.run_reserve_plugins_unreserve(CycleState(), POD, "n1")
        assert log == ["Second:unreserve", "First:unreserve"]

    def test_reserve_stops_at_first_failure(self) -> None:
        """A rejected Reserve stops the later Reserve plugins and is attributed to its plugin."""
        log: list[str] = []
        first = type("First", (Recorder,), {"name": "First", "log": log,
                                            "reserve_status": Status.unschedulable("full")})
        second = type("Second", (Recorder,), {"name": "Second", "log": log})
        fwk = framework_of({"reserve": ["First", "Second"]}, first, second)
        status = fwk.run_reserve_plugins_reserve(CycleState(), POD, "n1")
        assert status is not None
        assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "First")
        assert log == ["First:reserve"]

    def test_permit_wait_parks_a_waiting_pod_with_a_capped_timeout(self) -> None:
        """Wait from Permit creates a WaitingPod; timeouts are capped at 15 minutes."""
        waiter = type("Waiter", (Recorder,), {"name": "Waiter", "permit_outcome": (Status.wait(), 3600.0)})
        fwk = framework_of({"permit": ["Waiter"]}, waiter)
        status = fwk.run_permit_plugins(CycleState(), POD, "n1")
        assert status is not None
        assert status.code is Code.WAIT
        assert status.message() == 'one or more plugins asked to wait and no plugin rejected pod "p"'
        waiting = fwk.handle.get_waiting_pod(POD.uid)
        assert waiting is not None
        assert waiting.get_pending_plugins() == ["Waiter"]
        assert waiting.next_deadline() == 900.0

    def test_waiting_pod_times_out_with_kube_message(self) -> None:
        """A waiting pod past its deadline is rejected by the waiting plugin with kube's wording."""
        waiter = type("Waiter", (Recorder,), {"name": "Waiter", "permit_outcome": (Status.wait(), 10.0)})
        fwk = framework_of({"permit": ["Waiter"]}, waiter)
        fwk.run_permit_plugins(CycleState(), POD, "n1")
        waiting = fwk.handle.get_waiting_pod(POD.uid)
        assert waiting is not None
        waiting.expire(10.0)
        assert waiting.outcome is not None
        assert (waiting.outcome.code, waiting.outcome.plugin) == (Code.UNSCHEDULABLE, "Waiter")
        assert waiting.outcome.message() == "rejected due to timeout after waiting 10s at plugin Waiter"

    def test_bind_skip_passes_to_the_next_binder(self) -> None:
        """A Bind plugin returning Skip lets the next Bind plugin bind."""
        bound: list[str] = []

        class Skipper(Plugin):
            name = "Skipper"

            @hookimpl
            def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
                return Status.skip()

        class Binder(Plugin):
            name = "Binder"

            @hookimpl
            def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
                bound.append(node_name)
                return None

        fwk = framework_of({"bind": ["Skipper", "Binder"]}, Skipper, Binder)
        assert fwk.run_bind_plugins(CycleState(), POD, "n3") is None
        assert bound == ["n3"]


class TestPostFilter:
    """Tests for run_post_filter_plugins."""

    @staticmethod
    def post_filter(name: str, result: PostFilterResult | None, status: Status | None) -> type[Plugin]:
        class _PostFilter(Plugin):
            @hookimpl
            def post_filter(self, state: CycleState, pod: Pod,
                            filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
                return result, status

        _PostFilter.name = name
        return _PostFilter

    def test_success_ends_post_filter(self) -> None:
        """The first successful PostFilter plugin decides the result."""
        fwk = framework_of({"post-filter": ["A", "B"]},
                           self.post_filter("A", PostFilterResult.nominate("n1"), None),
                           self.post_filter("B", PostFilterResult.nominate("n2"), None))
        result, status = fwk.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
        assert status.is_success()
        assert result == PostFilterResult.nominate("n1")

    def test_unschedulable_reasons_accumulate_and_first_failure_is_the_rejector(self) -> None:
        """Unschedulable from every plugin: reasons accumulate, the first plugin is the rejector."""
        fwk = framework_of({"post-filter": ["A", "B"]},
                           self.post_filter("A", None, Status.unschedulable("a says no")),
                           self.post_filter("B", PostFilterResult.nominate(""), Status.unschedulable("b says no")))
        result, status = fwk.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
        assert (status.code, status.reasons, status.plugin) == (Code.UNSCHEDULABLE, ("a says no", "b says no"), "A")
        assert result == PostFilterResult.nominate("")


class TestNominatedPods:
    """Tests for run_filter_plugins_with_nominated_pods (the two-pass filter)."""

    def test_higher_priority_nominated_pod_takes_the_room(self) -> None:
        """A nominated pod of higher priority counts on its node in the first pass."""
        from kubesched.plugins.noderesources.fit import NodeResourcesFit

        fwk = framework_of({"pre-filter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit"]}, NodeResourcesFit)
        node = NodeInfo.of(make_node("n1").capacity(cpu="2").obj())
        nominee = make_pod("vip").req(cpu="2").priority(100).nominated("n1").obj()
        fwk.handle.nominator.add_nominated_pod(PodInfo.of(nominee))
        pod = make_pod("p").req(cpu="1").priority(10).obj()
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, [node])
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node)
        assert status is not None
        assert status.reasons == ("Insufficient cpu",)

    def test_lower_priority_nominated_pod_is_ignored(self) -> None:
        """A nominated pod of lower priority does not hold room against a more important pod."""
        from kubesched.plugins.noderesources.fit import NodeResourcesFit

        fwk = framework_of({"pre-filter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit"]}, NodeResourcesFit)
        node = NodeInfo.of(make_node("n1").capacity(cpu="2").obj())
        fwk.handle.nominator.add_nominated_pod(PodInfo.of(make_pod("low").req(cpu="2").priority(1).nominated("n1").obj()))
        pod = make_pod("p").req(cpu="1").priority(10).obj()
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, [node])
        assert fwk.run_filter_plugins_with_nominated_pods(state, pod, node) is None


    def test_pod_must_also_fit_without_the_nominated_pods(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Pass 1 (with the nominee) passes, pass 2 (without it) fails, so the pod does not fit: affinity to a
        pod that is only nominated is not enough, since the nominee may never arrive."""
        from kubesched.plugins.inter_pod_affinity import InterPodAffinity

        fwk = framework_of({"pre-filter": ["InterPodAffinity"], "filter": ["InterPodAffinity"]}, InterPodAffinity)
        node = NodeInfo.of(make_node("n1").obj())
        fwk.handle.nominator.add_nominated_pod(PodInfo.of(make_pod("db").label(app="db").priority(100).nominated("n1").obj()))
        pod = make_pod("p").priority(10).pod_affinity("kubernetes.io/hostname", app="db").obj()
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, [node])
        passes: list[tuple[int, Status | None]] = []
        run_filter_plugins = fwk.run_filter_plugins

        def recorded(state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            status = run_filter_plugins(state, pod, node_info)
            passes.append((len(node_info.pods), status))
            return status

        monkeypatch.setattr(fwk, "run_filter_plugins", recorded)
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node)
        assert status is not None
        assert status.reasons == ("node(s) didn't match pod affinity rules",)
        assert [(count, s is None) for count, s in passes] == [(1, True), (0, False)]


class TestConstruction:
    """Tests for building a Framework from a profile."""

    def test_plugin_constructor_failure_is_a_profile_error(self) -> None:
        """A plugin whose constructor raises makes the profile fail to build, naming the plugin."""
        class Broken(Plugin):
            name = "Broken"

            def __init__(self, handle: object, args: object = None) -> None:
                raise RuntimeError("no GPU driver")

            @hookimpl
            def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
                return None

        with pytest.raises(ProfileError, match=r'initializing plugin "Broken": RuntimeError: no GPU driver'):
            framework_of({"filter": ["Broken"]}, Broken)


class TestPluginFailures:
    """Tests for how plugin errors are contained and recorded."""

    def test_bind_success_without_binding_is_that_plugins_error(self) -> None:
        """A Bind plugin that reports success while the pod stays unbound fails with an Error naming it."""
        class Liar(Plugin):
            name = "Liar"

            @hookimpl
            def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
                return None

        cluster = InMemoryCluster(VirtualClock())
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(POD)
        fwk = framework_of({"bind": ["Liar"]}, Liar, cluster=cluster)
        status = fwk.run_bind_plugins(CycleState(), POD, "n1")
        assert status == Status(Code.ERROR, ('running Bind plugin "Liar": returned success but pod "default/p" is '
                                             'not bound to node "n1"',), "Liar")

    @pytest.mark.parametrize("point", ["unreserve", "post_bind"])
    def test_errors_in_contained_hooks_are_still_recorded(self, point: str) -> None:
        """Unreserve and PostBind errors do not stop anything, but are recorded with plugin, pod and node."""
        class Broken(Plugin):
            name = "Broken"

            @hookimpl
            def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
                return None

            @hookimpl
            def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
                raise RuntimeError("cleanup failed")

            @hookimpl
            def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
                raise RuntimeError("cleanup failed")

        fwk = framework_of({"reserve": ["Broken"], "post-bind": ["Broken"]}, Broken)
        run = fwk.run_reserve_plugins_unreserve if point == "unreserve" else fwk.run_post_bind_plugins
        run(CycleState(), POD, "n1")
        label = "Unreserve" if point == "unreserve" else "PostBind"
        assert [(f.point, f.plugin, f.pod, f.node, f.message) for f in fwk.failures] == [
            (label, "Broken", "default/p", "n1", "RuntimeError: cleanup failed")]

    def test_frames_name_the_plugin_source_not_the_runtime(self) -> None:
        """A failure's frames are the innermost ones in the plugin's code, as ``file:line in function``."""
        def crash(node: NodeInfo) -> Status | None:
            raise ValueError("bad label")

        fwk = framework_of({"filter": ["Crash"]}, make_filter("Crash", crash))
        fwk.run_filter_plugins(CycleState(), POD, nodes("n1")[0])
        frames = fwk.failures[0].frames
        assert frames[-1].startswith("tests/runtime/test_runtime.py:")
        assert frames[-1].endswith(" in crash")
        assert not any("kubesched/runtime/" in frame for frame in frames)

    def test_without_a_call_budget_hooks_are_called_directly(self) -> None:
        """No budget, no timing wrapper: the framework calls the plugin's own method."""
        fwk = framework_of({"filter": ["A"]}, make_filter("A", lambda n: None))
        assert fwk.hook("A", "filter") == fwk.plugins["A"].filter
