"""kube-scheduler v1.32's NodeName table (pkg/scheduler/framework/plugins/nodename/node_name_test.go: TestNodeName),
case by case with kube's names and expected values, written with the public testing kit only.

v1.32 has no queueing-hint table for NodeName (it registers Node/Add without a hint function). Later versions add
TestNodeName_PreFilter, for the InPlacePodVerticalScalingSchedulerPreemption gate that v1.32 does not have.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import Status
from kubesched.testing import PATHS, like, make_node, make_pod, plugin_framework

NAME = "NodeName"


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "want"), [
    pytest.param(make_pod("p"), like(None), id="no host specified"),
    pytest.param(make_pod("p").node("foo"), like(None), id="host matches"),
    pytest.param(make_pod("p").node("bar"), like(Status.unresolvable("node(s) didn't match the requested node name")),
                 id="host doesn't match"),
])
def test_filter(path: Any, pod: Any, want: Any) -> None:
    """Filter rejects every node but the one spec.nodeName names, on both paths."""
    assert plugin_framework(NAME, path=path, nodes=[make_node("foo").obj()]).run_filter(pod) == {"foo": want}
