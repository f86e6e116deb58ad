"""Which pods ``kubesched simulate --explain`` records, checked against the input before the run."""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.errors import KubeschedError
from kubesched.io.load import ClusterInput
from kubesched.runtime import Explainer

DEFAULT_NAMESPACE = "default"


class ExplainError(KubeschedError):
    """An ``--explain`` argument names no pod of the input (one line per such argument)."""


def pod_key(argument: str) -> str:
    """``NAMESPACE/NAME`` as given, or ``default/NAME`` for a bare name (as kubectl's default namespace)."""
    return argument if "/" in argument else f"{DEFAULT_NAMESPACE}/{argument}"


def malformed(argument: str, key: str) -> str | None:
    """The problem with an argument whose ``key`` is not NAMESPACE/NAME, else None."""
    parts = key.split("/")
    if len(parts) == 2 and all(parts):
        return None
    return f'--explain "{argument}": expected NAMESPACE/NAME (or NAME in namespace "default")'


def explainer_for_names(pods: Sequence[str], every_pod: bool) -> Explainer | None:
    """The explainer for a scenario's ``--explain``/``--explain-all``: its pods do not exist before the run, so an
    argument is only checked to be NAMESPACE/NAME (a pod never created has no attempts)."""
    if not pods and not every_pod:
        return None
    keys: list[str] = []
    problems = []
    for argument in pods:
        key = pod_key(argument)
        problem = malformed(argument, key)
        if problem is not None:
            problems.append(problem)
        elif key not in keys:
            keys.append(key)
    if problems:
        raise ExplainError("\n".join(problems))
    return Explainer(None if every_pod else keys)


def explainer_for(cluster_input: ClusterInput, pods: Sequence[str], every_pod: bool) -> tuple[Explainer | None,
                                                                                             list[str]]:
    """The explainer for ``--explain`` (``pods``) and ``--explain-all`` (``every_pod``), and warnings for pods that
    are never attempted; an argument naming no pod of the input is an :class:`ExplainError` (all of them at once)."""
    if not pods and not every_pod:
        return None, []
    by_key = {p.key: p for p in cluster_input.pods}
    problems = []
    warnings = []
    keys: list[str] = []
    for argument in pods:
        key = pod_key(argument)
        problem = malformed(argument, key)
        if problem is not None:
            problems.append(problem)
            continue
        pod = by_key.get(key)
        if pod is None:
            namespace, name = key.split("/")
            problems.append(f'--explain "{argument}": no pod "{name}" in namespace "{namespace}" in the input')
            continue
        if key not in keys:
            keys.append(key)
        if pod.status.phase in ("Succeeded", "Failed"):
            warnings.append(f"--explain {key}: the pod has finished (phase {pod.status.phase}): it is not scheduled")
        elif pod.spec.node_name:
            warnings.append(f'--explain {key}: the pod is already on node "{pod.spec.node_name}": it is not '
                            "scheduled")
    if problems:
        raise ExplainError("\n".join(problems))
    return Explainer(None if every_pod else keys), warnings
