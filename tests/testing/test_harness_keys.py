"""The harness keys pods by namespace/name and uid and nodes by name: two objects with one key are an error."""

from __future__ import annotations

import pytest

from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.testing import make_node, make_pdb, make_pod, plugin_framework, run_plugin, run_profile

NODE = make_node("n").capacity(cpu="4")


def test_two_pods_with_one_name_are_refused_with_the_name() -> None:
    """Two pending pods ``x`` in one namespace: a ValueError naming ``default/x`` and the way out."""
    with pytest.raises(ValueError, match=r'two pods are named "default/x": give each pod its own name'):
        run_plugin(NodeResourcesFit, [NODE], [make_pod("x").req(cpu="1"), make_pod("x").req(cpu="2")])


def test_pods_with_one_name_in_two_namespaces_are_two_pods() -> None:
    """The same name in another namespace is another pod: both get a decision."""
    decisions = run_plugin(NodeResourcesFit, [NODE], [make_pod("x").req(cpu="1"), make_pod("x", "other").req(cpu="1")])
    assert decisions.placements() == {"default/x": "n", "other/x": "n"}


def test_two_pods_with_one_uid_are_refused() -> None:
    """Distinct names sharing a uid are refused too: the cluster keys pods by uid."""
    with pytest.raises(ValueError, match=r'two pods have the uid "u"'):
        run_plugin(NodeResourcesFit, [NODE], [make_pod("a").uid("u"), make_pod("b").uid("u")])


def test_two_nodes_with_one_name_are_refused() -> None:
    """Two nodes ``n``: a ValueError naming the node."""
    with pytest.raises(ValueError, match=r'two nodes are named "n"'):
        run_plugin(NodeResourcesFit, [NODE, make_node("n")], [make_pod("p")])


def test_plugin_framework_refuses_a_pod_given_twice() -> None:
    """A pod on a NodeInfo and again in ``pods`` is one key twice."""
    bound = make_pod("x").node("n").obj()
    info = NodeInfo.of(NODE.obj(), [PodInfo.of(bound)])
    with pytest.raises(ValueError, match=r'two pods are named "default/x"'):
        plugin_framework(NodeResourcesFit, nodes=[info], pods=[bound])


def test_pdbs_may_be_given_as_builders() -> None:
    """A PdbBuilder counts like the PDB it builds: preemption spares the pod it protects (without it, ``db`` on
    node b would be the victim)."""
    nodes = [make_node("a").capacity(cpu="1"), make_node("b").capacity(cpu="1")]
    pods = [make_pod("web").req(cpu="1").node("a"), make_pod("db").label(app="db").req(cpu="1").node("b"),
            make_pod("high").priority(100).req(cpu="1")]
    decisions = run_profile("default", nodes, pods, pdbs=[make_pdb("budget").match(app="db").disruptions_allowed(0)])
    assert decisions.placements() == {"default/web": None, "default/db": "b", "default/high": "a"}
