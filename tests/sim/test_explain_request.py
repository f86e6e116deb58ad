"""Which pods ``kubesched simulate`` explains: the flags read into a request (refused before the run when they or
the input settle it), resolved against every pod of the run when it ends, and the run made again when pods
pending at the end were not recorded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import load_config
from kubesched.runtime import Attempt, Explainer, PluginRegistry
from kubesched.sim.explain import ExplainError, ExplainRequest, explain_request, resolve
from kubesched.sim.explain_run import ExplainedRun, run_explaining
from kubesched.sim.result import PodResult
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_pod
from tests.conftest import write

WORKLOADS = """\
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '2', memory: 4Gi, pods: '10'}}
---
kind: StatefulSet
apiVersion: apps/v1
metadata: {name: db}
spec:
  replicas: 3
  podManagementPolicy: Parallel
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
---
kind: Pod
metadata: {name: lone, labels: {app: lone}}
spec: {containers: [{name: c, resources: {requests: {cpu: '100m'}}}]}
"""


def request(*names: str, selector: str | None = None, pending: bool = False,
            every_pod: bool = False, cluster: ClusterInput | None = None) -> ExplainRequest:
    made = explain_request(names, selector, pending, every_pod, cluster)
    assert made is not None
    return made


def problems(*names: str, selector: str | None = None, cluster: ClusterInput | None = None) -> list[str]:
    with pytest.raises(ExplainError) as caught:
        explain_request(names, selector, False, False, cluster)
    return str(caught.value).splitlines()


def ended(pod: Pod, phase: str, node: str | None = None) -> PodResult:
    return PodResult(pod.metadata.namespace, pod.metadata.name, phase, node, None, 0, "")


def attempted(*keys: str) -> dict[str, Sequence[Attempt]]:
    return {key: [Attempt(key, 0.0, 1, "default-scheduler")] for key in keys}


def test_no_flag_asks_for_nothing() -> None:
    """Without any explain flag there is no request (and the JSON has no explain key)."""
    assert explain_request((), None, False, False) is None


def test_names_are_keys_in_the_order_given_once_each() -> None:
    """A bare name is in namespace default; a pod named twice is explained once, where first named."""
    assert request("web-0", "prod/api", "default/web-0").names == (("web-0", "default/web-0"),
                                                                   ("prod/api", "prod/api"))


def test_every_flag_problem_is_one_line_names_in_order() -> None:
    """Malformed names, names an input without workloads lacks, and an invalid selector: all of them at once."""
    cluster = ClusterInput(pods=(make_pod("d").obj(),))
    assert problems("default/nope", "x/y/z", "d", selector="a b", cluster=cluster) == [
        '--explain "default/nope": no pod "nope" in namespace "default" existed during the run',
        '--explain "x/y/z": expected NAMESPACE/NAME (or NAME in namespace "default")',
        "--explain-selector \"a b\": unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    ]


def test_names_an_input_with_workloads_lacks_wait_for_the_run(tmp_path: Path) -> None:
    """A controller may create the pod: the name is only resolved when the run ends."""
    cluster = load([write(tmp_path / "w.yaml", WORKLOADS)])
    assert request("db-0", "nope", cluster=cluster).keys == {"default/db-0", "default/nope"}


def test_resolution_orders_names_then_matched_pods_as_created() -> None:
    """Named pods first, as given; then the pods the selector matches or pending at the end, in creation order."""
    a, b, c = (make_pod(n).label(app="web" if n != "b" else "db").obj() for n in "abc")
    resolved = resolve(request("c", selector="app=web", pending=True), [a, b, c],
                       [ended(a, "Bound", "n1"), ended(b, "Pending"), ended(c, "Pending")], attempted())
    assert resolved.keys == ("default/c", "default/a", "default/b")


def test_explain_all_adds_every_other_pod_attempted_in_order() -> None:
    """With --explain-all the pods named come first, then every other pod as first attempted."""
    a, b = make_pod("a").obj(), make_pod("b").obj()
    resolved = resolve(request("b", every_pod=True), [a, b], [ended(a, "Bound"), ended(b, "Bound")],
                       attempted("default/a", "default/b"))
    assert resolved.keys == ("default/b", "default/a")


def test_every_name_that_never_existed_is_one_error() -> None:
    """A name no pod of the run (input or created) ever had is an error, each on its line."""
    a = make_pod("a").obj()
    with pytest.raises(ExplainError) as caught:
        resolve(request("a", "nope", "other/a"), [a], [ended(a, "Bound")], attempted())
    assert str(caught.value).splitlines() == [
        '--explain "nope": no pod "nope" in namespace "default" existed during the run',
        '--explain "other/a": no pod "a" in namespace "other" existed during the run',
    ]


@pytest.mark.parametrize(("flags", "warning"), [
    pytest.param({"selector": "app=none"}, '--explain-selector "app=none": no pod of the run matches it',
                 id="selector-matches-nothing"),
    pytest.param({"pending": True}, "--explain-pending: no pod is pending at the end of the run",
                 id="nothing-pending"),
])
def test_flag_that_selects_no_pod_warns(flags: dict[str, object], warning: str) -> None:
    """A selector that matches no pod, or --explain-pending with none pending, warns (it may be a typo)."""
    a = make_pod("a").label(app="web").obj()
    resolved = resolve(request(**flags), [a], [ended(a, "Bound")], attempted())  # type: ignore[arg-type]
    assert (resolved.keys, resolved.warnings) == ((), (warning,))


@pytest.mark.parametrize(("pod", "warning"), [
    pytest.param(make_pod("a").node("n1"), '--explain default/a: the pod is already on node "n1": it is not scheduled',
                 id="on-a-node"),
    pytest.param(make_pod("a").phase("Succeeded"),
                 "--explain default/a: the pod has finished (phase Succeeded): it is not scheduled", id="finished"),
])
def test_named_pod_never_attempted_says_why(pod: object, warning: str) -> None:
    """A named pod created on a node, or finished in the input, is explained with no attempt and a warning."""
    built = pod.obj()  # type: ignore[attr-defined]
    resolved = resolve(request("a"), [], [], attempted(), input_pods=[built])
    assert (resolved.keys, resolved.warnings) == (("default/a",), (warning,))


def run(registry: PluginRegistry, cluster: ClusterInput, made: ExplainRequest) -> tuple[list[str], ExplainedRun]:
    """The explained run, and the kind of explainer of each run made."""
    explainers: list[str] = []

    def start(explainer: Explainer | None) -> Simulation:
        explainers.append(type(explainer).__name__)
        return Simulation(cluster, load_config("default", registry), registry, explainer=explainer)

    return explainers, run_explaining(start, made)


def test_pods_named_or_selected_are_recorded_in_one_run(registry: PluginRegistry, tmp_path: Path) -> None:
    """A StatefulSet's pod by name and the pods a selector matches are recorded as they happen: one run."""
    cluster = load([write(tmp_path / "w.yaml", WORKLOADS)])
    explainers, explained = run(registry, cluster, request("db-2", selector="app in (lone)", cluster=cluster))
    assert explainers == ["RequestExplainer"]
    explain = explained.result.explain
    assert explain is not None
    assert list(explain) == ["default/db-2", "default/lone"]
    assert all(explain.values())


def test_pending_pods_not_recorded_are_recorded_by_a_second_identical_run(registry: PluginRegistry,
                                                                          tmp_path: Path) -> None:
    """--explain-pending alone records nothing the first time: the run is made again recording the pods pending
    at its end; placements are those of a run without explain."""
    cluster = load([write(tmp_path / "w.yaml", WORKLOADS)])
    explainers, explained = run(registry, cluster, request(pending=True))
    plain = Simulation(cluster, load_config("default", registry), registry).run()
    result = explained.result
    assert explainers == ["RequestExplainer", "Explainer"]
    assert result.explain is not None
    assert result.pods == plain.pods
    pending = [f"{p.namespace}/{p.name}" for p in plain.pods if p.phase == "Pending"]
    assert list(result.explain) == pending == ["default/db-1", "default/db-2"]
    assert all(attempts and attempts[-1].fit_error for attempts in result.explain.values())

