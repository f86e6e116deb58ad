"""The authoring kit's harness: run one plugin, or a whole profile, on a small cluster and read the decisions."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.testing import make_node, make_pod, plugin_framework, run_plugin, run_profile
from tests.conftest import write

NODES = [make_node("small").capacity(cpu="2").obj(), make_node("large").capacity(cpu="8").obj()]


def test_run_plugin_binds_what_fits_and_says_why_the_rest_waits() -> None:
    """Each pod gets a Decision: bound pods name their node; pending ones carry kube-scheduler's message."""
    decisions = run_plugin(NodeResourcesFit, NODES, [make_pod("medium").req(cpu="3").obj(),
                                                     make_pod("huge").req(cpu="16").obj()])
    assert decisions.placements() == {"default/medium": "large", "default/huge": None}
    assert decisions["huge"].message == "0/2 nodes are available: 2 Insufficient cpu."
    assert decisions["medium"].rejected == {"small": ("Insufficient cpu",)}


def test_run_plugin_reports_the_scores_of_the_last_attempt() -> None:
    """With two feasible nodes the Decision holds each node's total score (LeastAllocated favours the emptier)."""
    decision = run_plugin(NodeResourcesFit, NODES, [make_pod("p").req(cpu="1").obj()])["p"]
    assert decision.node == "large"
    assert decision.scores["large"] > decision.scores["small"]


def test_run_plugin_takes_args_as_profile_keys() -> None:
    """Args given as a kebab-case mapping are structured like a profile's plugin-config (MostAllocated packs)."""
    decision = run_plugin(NodeResourcesFit, NODES, [make_pod("p").req(cpu="1").obj()],
                          args={"scoring-strategy": {"type": "MostAllocated"}})["p"]
    assert decision.node == "small"


def test_run_plugin_uses_only_that_plugin() -> None:
    """Without NodeResourcesFit in the profile, a pod too big for every node is still bound."""
    tainted = [make_node("n1").capacity(cpu="1").taint("dedicated", "gpu").obj(),
               make_node("n2").capacity(cpu="1").obj()]
    decisions = run_plugin(TaintToleration, tainted, [make_pod("big").req(cpu="64").obj()])
    assert decisions["big"].node == "n2"
    assert decisions["big"].rejected == {"n1": ("node(s) had untolerated taint {dedicated: gpu}",)}


def test_run_profile_accepts_a_shipped_name_or_a_file(tmp_path: Path) -> None:
    """The whole default profile, or a profile file, decides; the result of the simulation is kept too."""
    pods = [make_pod("p").req(cpu="1").obj()]
    assert run_profile("default", NODES, pods)["p"].bound
    profile = write(tmp_path / "p.toml", '[[profiles]]\n[profiles.plugin-config.NodeResourcesFit.scoring-strategy]\n'
                                         'type = "MostAllocated"\n')
    decisions = run_profile(profile, NODES, pods)
    assert decisions["p"].node == "small"
    assert decisions.result.pods[0].node == "small"


def test_decisions_by_namespace_when_names_repeat() -> None:
    """A bare name shared by two namespaces is ambiguous; ``namespace/name`` always works."""
    decisions = run_plugin(NodeResourcesFit, NODES, [make_pod("p", "a").obj(), make_pod("p", "b").obj()])
    assert decisions["a/p"].bound
    with pytest.raises(KeyError, match="ambiguous"):
        decisions["p"]


def test_plugin_framework_gives_the_plugin_a_real_handle() -> None:
    """The Framework holds the plugin with its args and a snapshot of the given nodes and running pods."""
    running = [make_pod("r").node("small").req(cpu="1").obj()]
    framework = plugin_framework(NodeResourcesFit, {"scoring-strategy": {"type": "MostAllocated"}}, nodes=NODES,
                                 pods=running)
    plugin = framework.plugins["NodeResourcesFit"]
    assert plugin.args.scoring_strategy.type == "MostAllocated"
    assert [len(n.pods) for n in framework.handle.snapshot.list()] == [1, 0]
    assert framework.hook("NodeResourcesFit", "filter") is not None
    assert framework.hook("NodeResourcesFit", "permit") is None


def test_rejections_before_filter_are_listed_for_every_node() -> None:
    """A pod PreFilter rejects is listed as rejected on every node, with the PreFilter's reason."""
    from kubesched.plugins.node_affinity import NodeAffinity

    nodes = [make_node("n1").obj(), make_node("n2").obj()]
    pod = make_pod("p").node_affinity_names("elsewhere").obj()
    decision = run_plugin(NodeAffinity, nodes, [pod])["p"]
    assert decision.phase == "Pending"
    assert decision.rejected == dict.fromkeys(("n1", "n2"), ("node(s) didn't satisfy plugin(s) [NodeAffinity]",))


def test_builders_are_accepted_without_obj() -> None:
    """``make_pod(...)`` and ``make_node(...)`` builders can be passed as they are."""
    decisions = run_plugin(NodeResourcesFit, [make_node("n1").capacity(cpu="2")], [make_pod("p").req(cpu="1")])
    assert decisions["p"].node == "n1"
