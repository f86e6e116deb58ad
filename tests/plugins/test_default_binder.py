"""DefaultBinder: binds through the backend client; a refused binding is an Error status."""

from __future__ import annotations

from kubesched.api.pod import Pod
from kubesched.backend import BindingError
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.status import Code
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.testing.builders import make_pod
from tests.plugins.helpers import fake_handle


class RecordingClient:
    """Records bind calls; raises ``refusal`` instead when it is set."""

    def __init__(self, refusal: Exception | None = None) -> None:
        self.bound: list[tuple[str, str]] = []
        self.refusal = refusal

    def bind(self, pod: Pod, node_name: str) -> None:
        """Record the binding or refuse it."""
        if self.refusal is not None:
            raise self.refusal
        self.bound.append((pod.key, node_name))


def test_bind_posts_binding_through_client() -> None:
    """Bind asks handle.client to bind the pod to the node and reports success."""
    client = RecordingClient()
    status = DefaultBinder(fake_handle(client), None).bind(CycleState(), make_pod("p").obj(), "n1")
    assert status is None or status.code is Code.SUCCESS
    assert client.bound == [("default/p", "n1")]


def test_refused_binding_is_an_error() -> None:
    """A BindingError from the client becomes an Error status carrying its message."""
    client = RecordingClient(BindingError("pod default/p is already assigned to node n2"))
    status = DefaultBinder(fake_handle(client), None).bind(CycleState(), make_pod("p").obj(), "n1")
    assert status is not None
    assert status.code is Code.ERROR
    assert "pod default/p is already assigned to node n2" in status.message()
