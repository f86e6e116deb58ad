"""NodeName: a pod that sets spec.nodeName fits only the node of that name."""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.plugins.node_name import NodeName
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import SUCCESS, node_info, verdict

CASES = [
    pytest.param(make_pod("p").obj(), SUCCESS, id="no-node-name-fits-anywhere"),
    pytest.param(make_pod("p").node("n1").obj(), SUCCESS, id="named-node-fits"),
    pytest.param(make_pod("p").node("n2").obj(),
                 (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match the requested node name",)),
                 id="other-node-rejected"),
]


@pytest.mark.parametrize(("pod", "expected"), CASES)
def test_filter_matches_spec_node_name(pod: Pod, expected: tuple[Code, tuple[str, ...]]) -> None:
    """Filter on node n1: success unless the pod names another node (UnschedulableAndUnresolvable)."""
    node = node_info(make_node("n1").obj())
    assert verdict(plugin_instance(NodeName).filter(CycleState(), pod, node)) == expected
