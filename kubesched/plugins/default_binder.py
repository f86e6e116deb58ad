"""DefaultBinder (Bind): binds the pod through the cluster backend (POST pods/binding)."""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.framework import BindingError, CycleState, Plugin, Status, hookimpl


class DefaultBinder(Plugin):
    """Asks the backend to bind; a refusal is an Error so the pod is retried after backoff."""

    name = "DefaultBinder"

    @hookimpl
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Bind ``pod`` to ``node_name``."""
        try:
            self.handle.client.bind(pod, node_name)
        except BindingError as exc:
            return Status.as_error(str(exc))
        return None
