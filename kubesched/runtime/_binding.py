"""The binding cycle's extension points as the Framework runs them: Reserve and Unreserve, Permit (which parks
pods as WaitingPods on the Handle), PreBind, Bind and PostBind."""

from __future__ import annotations

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import MAX_PERMIT_TIMEOUT, WaitingPod
from kubesched.framework._status import Code, Status
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, Hook
from kubesched.runtime._handle import RuntimeHandle
from kubesched.runtime._invoke import BIND, PERMIT, POST_BIND, PRE_BIND, RESERVE, UNRESERVE, Guard, Point, error
from kubesched.runtime._plugin_set import PluginSet

_SUCCESS = Code.SUCCESS
#: One extension point's (plugin name, hook) pairs, in order.
HookList = list[tuple[str, Hook]]


class BindingRunners:
    """Runs the binding cycle's hooks of one profile's plugins through the guard."""

    def __init__(self, plugins: PluginSet, guard: Guard, handle: RuntimeHandle) -> None:
        self._plugins = plugins
        self._guard = guard
        self._handle = handle

    def _run_until_failure(self, point: Point, hooks: HookList, state: CycleState, pod: Pod,
                           node_name: str) -> Status | None:
        """Run ``point``'s ``hooks`` in order; a rejection stops with that status, anything else not Success with an
        Error naming the plugin."""
        for name, hook in hooks:
            status, failed = self._guard.status_of(point, name, hook, (state, pod, node_name), pod, node_name)
            if failed is not None:
                return failed
            if status is not None and status.code is not _SUCCESS:
                if status.is_rejected():
                    return status.with_plugin(name)
                return self._guard.failed(point, name, pod, node_name, status=status)
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Reserve in order; stop at the first failure."""
        hooks = self._plugins.hooks["reserve"]  # most profiles have none: no call then
        return self._run_until_failure(RESERVE, hooks, state, pod, node_name) if hooks else None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run every Reserve plugin's Unreserve in reverse order; failures are recorded, not returned."""
        for name, hook in reversed(self._plugins.hooks["unreserve"]):
            self._guard.run(UNRESERVE, name, hook, (state, pod, node_name), pod, node_name)

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Permit; Wait from any plugin parks the pod as a :class:`WaitingPod` unless another rejects."""
        hooks = self._plugins.hooks["permit"]
        if not hooks:
            return None
        deadlines: dict[str, float] = {}
        now = self._handle.clock.now()
        for name, hook in hooks:
            outcome, failed = self._guard.call(PERMIT, name, hook, (state, pod, node_name), pod, node_name)
            if failed is not None:
                return failed
            try:
                status, timeout = outcome
                timeout = float(timeout)
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:  # not a (status, timeout) pair
                return self._guard.failed(PERMIT, name, pod, node_name, exc=exc)
            if status is not None and not isinstance(status, Status):
                return self._guard.failed(PERMIT, name, pod, node_name, value=status,
                                          expected="(Status or None, timeout)")
            if status is None or status.code is _SUCCESS:
                continue
            if status.is_rejected():
                return status.with_plugin(name)
            if status.code is Code.WAIT:
                deadlines[name] = now + max(0.0, min(timeout, MAX_PERMIT_TIMEOUT))
                continue
            return self._guard.failed(PERMIT, name, pod, node_name, status=status)
        if deadlines:
            self._handle.add_waiting_pod(WaitingPod(pod, deadlines, now))
            return Status(Code.WAIT, (f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"',))
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run PreBind in order; any failure aborts binding, and a Wait is returned as it is (the caller polls)."""
        return self.pre_bind_from(state, pod, node_name, 0)[0]

    def pre_bind_from(self, state: CycleState, pod: Pod, node_name: str, start: int) -> tuple[Status | None, int]:
        """Run the PreBind plugins from the ``start``-th on, in order: (None, -1) when all succeed; a plugin's Wait
        as (that Wait, its index), to be polled from there; any other failure as (that status, -1), a rejection
        with its plugin, anything else an Error naming the plugin."""
        hooks = self._plugins.hooks["pre_bind"]
        for index in range(start, len(hooks)):
            name, hook = hooks[index]
            status, failed = self._guard.status_of(PRE_BIND, name, hook, (state, pod, node_name), pod, node_name)
            if failed is not None:
                return failed, -1
            if status is None or status.code is _SUCCESS:
                continue
            if status.code is Code.WAIT:
                return status.with_plugin(name), index
            if status.is_rejected():
                return status.with_plugin(name), -1
            return self._guard.failed(PRE_BIND, name, pod, node_name, status=status), -1
        return None, -1

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Bind plugins until one does not Skip; if all skip, that is an error."""
        for name, hook in self._plugins.hooks["bind"]:
            status, failed = self._guard.status_of(BIND, name, hook, (state, pod, node_name), pod, node_name)
            if failed is not None:
                return failed
            if status is not None and status.code is Code.SKIP:
                continue
            if status is not None and status.code is not _SUCCESS:
                if status.is_rejected():
                    return status.with_plugin(name)
                return self._guard.failed(BIND, name, pod, node_name, status=status)
            # Success must mean bound: otherwise the pod would stay assumed (its room reserved) but never run.
            current = self._handle.client.get_pod(pod.namespace, pod.name)
            if current is None or current.uid != pod.uid or current.spec.node_name == node_name:
                return None
            return self._guard.failed(BIND, name, pod, node_name, detail=f'returned success but pod "{pod.key}" is '
                                      f'not bound to node "{node_name}"')
        return error("no Bind plugin bound the pod (every Bind plugin returned Skip)")

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run PostBind; informational, failures are recorded, not returned."""
        for name, hook in self._plugins.hooks["post_bind"]:
            self._guard.run(POST_BIND, name, hook, (state, pod, node_name), pod, node_name)
