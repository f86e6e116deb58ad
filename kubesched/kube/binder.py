"""Binding through the API server: POST pods/binding, and what a conflict means.

A 409 answers a bind of a pod that is already bound (by another scheduler, or by an earlier attempt whose answer
was lost): the pod is read back so the caller can see it bound and forget it instead of binding it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.api.pod import Pod
from kubesched.backend import BindingError
from kubesched.kube.rest import ApiError, KubeApi, Obj, pod_path


class Binder:
    """Binds pods; ``decode`` turns the pod read back after a 409 into the model (None if it cannot)."""

    def __init__(self, api: KubeApi, decode: Callable[[Obj], Any | None]) -> None:
        self.api = api
        self.decode = decode

    def bind(self, pod: Pod, node_name: str, timeout: float = 30.0) -> None:
        """POST the Binding with the pod's uid as a precondition (the request bounded by ``timeout`` seconds);
        raise :class:`BindConflictError` on 409 and :class:`~kubesched.backend.BindingError` on any other
        refusal."""
        body = {"apiVersion": "v1", "kind": "Binding",
                "metadata": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}}
        try:
            self.api.request("POST", pod_path(pod.namespace, pod.name, "binding"), body=body, timeout=timeout)
        except ApiError as error:
            if error.status == 409:
                raise BindConflictError(error.message or str(error), self._read_back(pod)) from None
            raise BindingError(error.message or str(error)) from None

    def _read_back(self, pod: Pod) -> Pod | None:
        try:
            current = self.decode({**self.api.get(pod_path(pod.namespace, pod.name)), "kind": "Pod"})
        except ApiError:
            return None
        return current if isinstance(current, Pod) and current.uid == pod.uid else None


class BindConflictError(BindingError):
    """The API server answered 409: ``current`` is the pod as it holds it now (None if it could not be read)."""

    def __init__(self, message: str, current: Pod | None) -> None:
        super().__init__(message)
        self.current = current
