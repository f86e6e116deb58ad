"""The --explain tables: node-by-plugin matrices whose size does not grow with the cluster."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from kubesched.cli.explain_summary import SUMMARY_PODS, summary_lines
from kubesched.cli.explain_table import BEST_NODES, REJECTED_NODES, print_explain
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import load_config
from kubesched.runtime import Attempt, Explainer, PluginRegistry
from kubesched.sim.result import PodResult
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import EXAMPLES


def table(result: SimulationResult) -> str:
    """The explain tables at 140 columns."""
    out = io.StringIO()
    assert result.explain is not None
    print_explain(result.explain, Console(file=out, width=140, highlight=False, soft_wrap=False))
    return out.getvalue()


def attempt_lines(text: str) -> list[str]:
    """The lines of ``text`` after the summary (from the first pod's "Explain" line)."""
    lines = text.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("Explain default/")):]


def cluster(nodes: int, full: int) -> ClusterInput:
    """``nodes`` nodes of 4 CPUs, every ``full``-th one with only 1; a pod asking 2 CPUs and one asking 100."""
    built = tuple(make_node(f"n{i:05}").capacity(cpu="1" if i % full else "4", memory="8Gi", pods=110).obj()
                  for i in range(nodes))
    return ClusterInput(nodes=built, pods=(make_pod("fits").req(cpu="2").obj(), make_pod("huge").req(cpu="100").obj()))


def run(registry: PluginRegistry, cluster_input: ClusterInput) -> SimulationResult:
    return simulate(cluster_input, load_config("default", registry), registry,
                    explainer=Explainer(["default/fits", "default/huge"]))


def test_worked_example_matrix(registry: PluginRegistry) -> None:
    """The selected node first, then the feasible and rejected ones, with "-" for plugins that never ran."""
    result = simulate(load([EXAMPLES / "explain"]), load_config("default", registry), registry,
                      explainer=Explainer(["default/p"]))
    text = table(result)
    assert "Explain default/p, attempt 1 at 0 s (profile default-scheduler): selected n2" in text
    rows = [line for line in text.splitlines() if line.startswith("│ n")]
    assert [row.split("│")[1].strip() for row in rows] == ["n2", "n3", "n1", "n2", "n3"]
    assert rows[2].split("│")[4].strip() == "node(s) had untolerated taint {dedicated: gpu}"
    assert rows[2].split("│")[5].strip() == "-"
    assert [cell.strip() for cell in rows[3].split("│")[2:7]] == ["0/100/300", "75/75/75", "100/100/100", "0/0/0",
                                                                  "475"]


def test_rejected_nodes_beyond_the_limit_are_counted_by_reason(registry: PluginRegistry) -> None:
    """300 nodes, all rejected for huge: ten rows, then one row counting the other 290 by plugin and reason."""
    text = table(run(registry, cluster(300, 3)))
    huge = text[text.index("Explain default/huge"):]
    assert "... and 290 more rejected │ 290 NodeResourcesFit: Insufficient cpu" in huge
    assert sum(line.startswith("│ n0") for line in huge.splitlines()) == REJECTED_NODES


@pytest.mark.slow
def test_five_thousand_nodes_json_lists_every_node_and_the_table_stays_small(registry: PluginRegistry) -> None:
    """5000 nodes: the JSON of an attempt has every node (in filter if tried, else in notTried), and the table shows
    the best and the rejecting nodes with counts of the rest, in a bounded number of lines."""
    result = run(registry, cluster(5000, 2))
    document = result.to_json()["explain"]
    assert isinstance(document, dict)
    (fits,) = document["default/fits"]
    assert len(fits["filter"]) + len(fits["notTried"]) == 5000
    # 10% of 5000 nodes (50 - 5000/125 = 10, at least 5) are looked for: 500 feasible, and the rejected ones met.
    assert sum(all(v == "passed" for v in entry.values()) for entry in fits["filter"].values()) == \
        len(fits["score"]) == 500
    assert set(fits["notTried"].values()) == {"not tried: enough feasible nodes were found"}
    (huge,) = document["default/huge"]
    assert (len(huge["filter"]), huge["notTried"]) == (5000, {})
    assert len(json.dumps(document)) < 5_000_000
    text = table(result)
    assert "... and 495 more feasible" in text
    assert "... and 4990 more rejected │ 4990 NodeResourcesFit: Insufficient cpu" in text
    assert len(text.splitlines()) < 120
    assert sum(line.startswith("│ n") for line in text.splitlines()) == 2 * BEST_NODES + 2 * REJECTED_NODES


def test_pre_filter_narrowing_and_counted_nominations_are_noted(registry: PluginRegistry) -> None:
    """A line says which plugin narrowed the nodes to which, another which nominated pods Filter counted."""
    nodes = tuple(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods=110).obj() for i in range(1, 4))
    narrowed = ClusterInput(nodes=nodes, pods=(make_pod("d").req(cpu="1").node_affinity_names("n2", "n3").obj(),))
    text = table(simulate(narrowed, load_config("default", registry), registry, explainer=Explainer(None)))
    assert "PreFilter (NodeAffinity) narrowed the nodes to 2: n2, n3" in text
    preemption = simulate(load([EXAMPLES / "preemption"]), load_config("default", registry), registry,
                          explainer=Explainer(["default/report"]))
    assert "Filter counted the pods nominated to node-c: default/critical" in table(preemption)


def test_pre_filter_rejection_is_noted() -> None:
    """An attempt PreFilter rejected says by which plugin and why, above its (not tried) rows."""
    attempt = Attempt("default/d", 0.0, 1, "default-scheduler",
                      not_tried={"n1": "not tried: PreFilter rejected the pod"},
                      pre_filter={"rejectedBy": "Refuse", "reason": "refused by policy", "narrowedBy": [],
                                  "nodes": None, "skippedFilters": []}, fit_error="0/1 nodes are available: refused.")
    out = io.StringIO()
    print_explain({"default/d": [attempt]}, Console(file=out, width=140))
    lines = attempt_lines(out.getvalue())
    assert lines[1] == "PreFilter rejected the pod: Refuse: refused by policy"
    assert "│ 1 node(s) │ not tried: PreFilter rejected the pod │" in out.getvalue()


@pytest.mark.parametrize(("result", "line"), [
    pytest.param(None, "Explain default/cache: no scheduling attempt", id="unknown-end"),
    pytest.param(PodResult("default", "cache", "Bound", "n3", None, 0, ""),
                 "Explain default/cache: no scheduling attempt (Bound on n3)", id="bound"),
    pytest.param(PodResult("default", "cache", "Pending", None, None, 0, "waiting for scheduling gates: [g]"),
                 "Explain default/cache: no scheduling attempt (Pending: waiting for scheduling gates: [g])",
                 id="gated"),
])
def test_pod_without_attempts_says_so_and_where_it_ended(result: PodResult | None, line: str) -> None:
    """A pod explained but never attempted gets one line saying so, with where the run left it when known."""
    out = io.StringIO()
    print_explain({"default/cache": []}, Console(file=out, width=140), () if result is None else (result,))
    assert attempt_lines(out.getvalue()) == [line]


def test_failure_after_the_choice_shows_both() -> None:
    """An attempt whose selected node then failed Reserve or Permit says both in its heading line."""
    attempt = Attempt("default/d", 0.0, 1, "default-scheduler", filter={"n1": {"NodeName": "passed"}},
                      selected_node="n1", fit_error="0/1 nodes are available: 1 volume claim taken.")
    out = io.StringIO()
    print_explain({"default/d": [attempt]}, Console(file=out, width=140))
    assert attempt_lines(out.getvalue())[0] == (
        "Explain default/d, attempt 1 at 0 s (profile default-scheduler): selected n1, then unschedulable")


def outcome(key: str, **kwargs: object) -> list[Attempt]:
    """One attempt of ``key`` that came to what ``kwargs`` say (fit_error, error, selected_node)."""
    return [Attempt(key, 0.0, 1, "default-scheduler", **kwargs)]  # type: ignore[arg-type]


@pytest.mark.parametrize(("explain", "pods", "lines"), [
    pytest.param({"default/a": outcome("default/a", selected_node="n1"),
                  "default/b": outcome("default/b", fit_error="0/1 nodes are available: 1 Insufficient cpu."),
                  "default/c": outcome("default/c", fit_error="0/1 nodes are available: 1 Insufficient cpu.")},
                 (), ["2 pod(s): 0/1 nodes are available: 1 Insufficient cpu. [default/b, default/c]",
                      "1 pod(s): selected a node [default/a]"], id="largest-group-first"),
    pytest.param({"default/a": outcome("default/a", error="running Filter plugin \"X\": boom"),
                  "default/b": outcome("default/b", selected_node="n1")},
                 (), ['1 pod(s): error: running Filter plugin "X": boom [default/a]',
                      "1 pod(s): selected a node [default/b]"], id="ties-in-order-of-first-pod"),
    pytest.param({"default/a": [], "default/b": []},
                 (PodResult("default", "a", "Bound", "n1", None, 0, ""),
                  PodResult("default", "b", "Bound", "n2", None, 0, "")),
                 ["2 pod(s): no scheduling attempt (Bound) [default/a, default/b]"], id="never-attempted-any-node"),
    pytest.param({"default/a": [*outcome("default/a", fit_error="0/1 nodes are available: 1 Insufficient cpu."),
                                *outcome("default/a", selected_node="n1")]},
                 (), ["1 pod(s): selected a node [default/a]"], id="last-attempt-decides"),
])
def test_summary_has_one_line_per_outcome_of_the_last_attempt(explain: dict[str, list[Attempt]],
                                                              pods: tuple[PodResult, ...], lines: list[str]) -> None:
    """Pods whose last attempts came to the same thing share a line: count, outcome, pods; largest group first."""
    assert summary_lines(explain, pods) == lines


def test_summary_line_names_a_bounded_number_of_pods() -> None:
    """A group of many pods names the first ones, then counts the rest."""
    keys = [f"default/p{i:02}" for i in range(SUMMARY_PODS + 5)]
    (line,) = summary_lines({key: outcome(key, selected_node="n1") for key in keys}, ())
    assert line == f"{SUMMARY_PODS + 5} pod(s): selected a node [{', '.join(keys[:SUMMARY_PODS])} and 5 more]"
