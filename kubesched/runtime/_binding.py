"""The binding cycle's extension points as the Framework runs them: Reserve and Unreserve, Permit (which parks
pods as WaitingPods), PreBind, Bind and PostBind."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import MAX_PERMIT_TIMEOUT, WaitingPod
from kubesched.framework._status import Code, Status
from kubesched.runtime._failures import PLUGIN_FAILURES, Hook, _cause, _error, _returned
from kubesched.runtime._handle import FrameworkHandle

_SUCCESS = Code.SUCCESS


class BindingCycleRunners(FrameworkHandle):
    """The Framework's runners for the binding cycle; the Framework resolves the hooks and records failures."""

    _hooks: dict[str, list[tuple[str, Hook]]]

    if TYPE_CHECKING:
        def _failed(self, point: str, plugin: str, pod: Pod, node: str, message: str, detail: str,
                    cause: BaseException | None = None) -> Status: ...

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Reserve in order; stop at the first failure."""
        return self._run_until_failure("Reserve", "reserve", state, pod, node_name)

    def _run_until_failure(self, point: str, hook_name: str, state: CycleState, pod: Pod,
                           node_name: str) -> Status | None:
        """Run ``point``'s hooks in order; a rejection stops with that status, anything else not Success with an
        Error naming the plugin (Reserve and PreBind share these rules)."""
        for name, hook in self._hooks[hook_name]:
            try:
                status: Status | None = hook(state, pod, node_name)
            except PLUGIN_FAILURES as exc:
                return self._failed(point, name, pod, node_name, f'running {point} plugin "{name}": '
                                    f"{_cause(None, exc)}", _cause(None, exc), exc)
            if status is not None and not isinstance(status, Status):
                return self._failed(point, name, pod, node_name, f'running {point} plugin "{name}": '
                                    f"{_returned(status)}", _returned(status))
            if status is not None and status.code is not _SUCCESS:
                if status.is_rejected():
                    return status.with_plugin(name)
                return self._failed(point, name, pod, node_name, f'running {point} plugin "{name}": '
                                    f"{_cause(status)}", _cause(status), status.error)
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run every Reserve plugin's Unreserve in reverse order; exceptions are contained."""
        for name, hook in reversed(self._hooks["unreserve"]):
            try:
                hook(state, pod, node_name)
            except PLUGIN_FAILURES as exc:
                self._failed("Unreserve", name, pod, node_name, "", _cause(None, exc), exc)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Permit; Wait from any plugin parks the pod as a :class:`WaitingPod` unless another rejects."""
        deadlines: dict[str, float] = {}
        now = self._clock.now()
        for name, hook in self._hooks["permit"]:
            try:
                outcome: tuple[Status | None, float] = hook(state, pod, node_name)
                status, timeout = outcome
                timeout = float(timeout)
            except PLUGIN_FAILURES as exc:
                return self._failed("Permit", name, pod, node_name, f'running Permit plugin "{name}": '
                                    f"{_cause(None, exc)}", _cause(None, exc), exc)
            if status is not None and not isinstance(status, Status):
                detail = _returned(status, "(Status or None, timeout)")
                return self._failed("Permit", name, pod, node_name, f'running Permit plugin "{name}": {detail}',
                                    detail)
            if status is None or status.code is _SUCCESS:
                continue
            if status.is_rejected():
                return status.with_plugin(name)
            if status.code is Code.WAIT:
                deadlines[name] = now + max(0.0, min(timeout, MAX_PERMIT_TIMEOUT))
                continue
            return self._failed("Permit", name, pod, node_name, f'running Permit plugin "{name}": {_cause(status)}',
                                _cause(status), status.error)
        if deadlines:
            self._waiting[pod.uid] = WaitingPod(pod, deadlines, now)
            return Status(Code.WAIT, (f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"',))
        return None

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run PreBind in order; any failure aborts binding."""
        return self._run_until_failure("PreBind", "pre_bind", state, pod, node_name)

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Bind plugins until one does not Skip; if all skip, that is an error."""
        for name, hook in self._hooks["bind"]:
            try:
                status: Status | None = hook(state, pod, node_name)
            except PLUGIN_FAILURES as exc:
                return self._failed("Bind", name, pod, node_name, f'running Bind plugin "{name}": '
                                    f"{_cause(None, exc)}", _cause(None, exc), exc)
            if status is not None and not isinstance(status, Status):
                return self._failed("Bind", name, pod, node_name, f'running Bind plugin "{name}": '
                                    f"{_returned(status)}", _returned(status))
            if status is not None and status.code is Code.SKIP:
                continue
            if status is not None and status.code is not _SUCCESS:
                if status.is_rejected():
                    return status.with_plugin(name)
                return self._failed("Bind", name, pod, node_name, f'running Bind plugin "{name}": '
                                    f"{_cause(status)}", _cause(status), status.error)
            # Success must mean bound: otherwise the pod would stay assumed (its room reserved) but never run.
            current = self._client.get_pod(pod.namespace, pod.name)
            if current is None or current.uid != pod.uid or current.spec.node_name == node_name:
                return None
            detail = f'returned success but pod "{pod.key}" is not bound to node "{node_name}"'
            return self._failed("Bind", name, pod, node_name, f'running Bind plugin "{name}": {detail}', detail)
        return _error("no Bind plugin bound the pod (every Bind plugin returned Skip)", "")

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run PostBind; informational, exceptions are contained."""
        for name, hook in self._hooks["post_bind"]:
            try:
                hook(state, pod, node_name)
            except PLUGIN_FAILURES as exc:
                self._failed("PostBind", name, pod, node_name, "", _cause(None, exc), exc)
