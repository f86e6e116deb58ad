"""DefaultBinder: binds through the backend client; a refused binding is an Error status."""

from __future__ import annotations

from kubesched.backend import BindingError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.testing import RecordingClient, plugin_instance
from kubesched.testing.builders import make_node, make_pod

POD = make_pod("p").obj()
NODE = make_node("n1").obj()


def test_bind_posts_binding_through_client() -> None:
    """Bind asks handle.client to bind the pod to the node and reports success."""
    client = RecordingClient()
    status = plugin_instance(DefaultBinder, nodes=[NODE], pods=[POD], client=client).bind(CycleState(), POD, "n1")
    assert status is None or status.code is Code.SUCCESS
    assert client.calls == [("bind", "default/p", "n1")]
    bound = client.cluster.get_pod("default", "p")
    assert bound is not None
    assert bound.spec.node_name == "n1"


def test_refused_binding_is_an_error() -> None:
    """A BindingError from the client becomes an Error status carrying its message."""
    client = RecordingClient(refuse_bindings=BindingError("pod default/p is already assigned to node n2"))
    status = plugin_instance(DefaultBinder, nodes=[NODE], pods=[POD], client=client).bind(CycleState(), POD, "n1")
    assert status is not None
    assert status.code is Code.ERROR
    assert "pod default/p is already assigned to node n2" in status.message()
