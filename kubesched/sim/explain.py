"""Which pods ``kubesched simulate`` explains: what ``--explain``, ``--explain-selector``, ``--explain-pending`` and
``--explain-all`` ask for, refused before the run where the flags or the input already settle it, and resolved
against every pod of the run when it ends (controllers and scenario steps create pods the input does not hold)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from kubesched.api.pod import Pod
from kubesched.api.selector_parse import Selector, SelectorParseError, parse_selector
from kubesched.errors import KubeschedError
from kubesched.io.load import ClusterInput
from kubesched.runtime import Attempt, Explainer
from kubesched.sim.result import PHASE_PENDING, PodResult

DEFAULT_NAMESPACE = "default"
FINISHED_PHASES = ("Succeeded", "Failed")


class ExplainError(KubeschedError):
    """An explain flag that is malformed or names no pod of the run (one line per problem)."""


def pod_key(argument: str) -> str:
    """``NAMESPACE/NAME`` as given, or ``default/NAME`` for a bare name (as kubectl's default namespace)."""
    return argument if "/" in argument else f"{DEFAULT_NAMESPACE}/{argument}"


def malformed(argument: str, key: str) -> str | None:
    """The problem with an argument whose ``key`` is not NAMESPACE/NAME, else None."""
    parts = key.split("/")
    if len(parts) == 2 and all(parts):
        return None
    return f'--explain "{argument}": expected NAMESPACE/NAME (or NAME in namespace "default")'


@attrs.frozen
class ExplainRequest:
    """The pods to explain: by name, by label selector, every pod pending at the end, or every pod."""

    #: (argument as given, ``namespace/name``) per distinct pod named, in the order given.
    names: tuple[tuple[str, str], ...] = ()
    selector: Selector | None = None
    pending: bool = False
    every_pod: bool = False

    @property
    def keys(self) -> frozenset[str]:
        """The pods named."""
        return frozenset(key for _, key in self.names)

    def wants(self, pod: Pod) -> bool:
        """Whether ``pod``'s attempts are recorded as they happen (pending pods are known only at the end)."""
        return (self.every_pod or pod.key in self.keys
                or (self.selector is not None and self.selector.matches(pod.metadata.labels)))


def explain_request(names: Sequence[str], selector: str | None, pending: bool, every_pod: bool,
                    cluster_input: ClusterInput | None = None) -> ExplainRequest | None:
    """What the flags ask for (None when no pod is to be explained). Every malformed name, every name no pod of
    ``cluster_input`` has when it has no workloads (nothing could create that pod) and an invalid selector are one
    :class:`ExplainError`, a line each, names in the order given."""
    if not names and selector is None and not pending and not every_pod:
        return None
    known = None if cluster_input is None or cluster_input.workloads else {p.key for p in cluster_input.pods}
    problems = []
    named: dict[str, str] = {}
    for argument in names:
        key = pod_key(argument)
        problem = malformed(argument, key)
        if problem is None and known is not None and key not in known:
            problem = _never_existed(argument, key)
        if problem is not None:
            problems.append(problem)
        else:
            named.setdefault(key, argument)
    parsed = None
    if selector is not None:
        try:
            parsed = parse_selector(selector)
        except SelectorParseError as error:
            problems.append(f'--explain-selector "{selector}": {error}')
    if problems:
        raise ExplainError("\n".join(problems))
    return ExplainRequest(tuple((argument, key) for key, argument in named.items()), parsed, pending, every_pod)


def _never_existed(argument: str, key: str) -> str:
    namespace, name = key.split("/")
    return f'--explain "{argument}": no pod "{name}" in namespace "{namespace}" existed during the run'


class RequestExplainer(Explainer):
    """Records, as they happen, the attempts of the pods a request names or selects (or of every pod)."""

    def __init__(self, request: ExplainRequest) -> None:
        super().__init__(None if request.every_pod else ())
        self.request = request

    def wants(self, pod: Pod) -> bool:
        """Whether the request names or selects ``pod``."""
        return self.request.wants(pod)


@attrs.frozen
class Resolution:
    """The pods explained, in the order shown, and warnings about them."""

    keys: tuple[str, ...]
    warnings: tuple[str, ...] = ()


def resolve(request: ExplainRequest, pods: Sequence[Pod], results: Sequence[PodResult],
            recorded: Mapping[str, Sequence[Attempt]], input_pods: Iterable[Pod] = ()) -> Resolution:
    """The pods to explain once the run has ended: those named, in the order given, then those the selector
    matches or pending at the end, in the order the run created them, then (``--explain-all``) every other pod
    attempted. ``pods`` are every pod of the run as created and ``results`` where each ended; ``input_pods``
    are the input's, with those the run skipped (Succeeded or Failed), which may be named too. A name no pod of
    the run ever had is an :class:`ExplainError` (every one, a line each)."""
    latest = {p.key: p for p in [*input_pods, *pods]}
    problems = [_never_existed(argument, key) for argument, key in request.names if key not in latest]
    if problems:
        raise ExplainError("\n".join(problems))
    selector = request.selector
    selected = {p.key for p in pods if selector is not None and selector.matches(p.metadata.labels)}
    pending = {p.key for p, r in zip(pods, results, strict=True) if request.pending and r.phase == PHASE_PENDING}
    ordered = {key: None for _, key in request.names}
    ordered.update((p.key, None) for p in pods if p.key in selected or p.key in pending)
    if request.every_pod:
        ordered.update((key, None) for key in recorded)
    warnings = [w for _, key in request.names if not recorded.get(key) and (w := _not_scheduled(latest[key]))]
    if selector is not None and not selected:
        warnings.append(f'--explain-selector "{selector.text}": no pod of the run matches it')
    if request.pending and not pending:
        warnings.append("--explain-pending: no pod is pending at the end of the run")
    return Resolution(tuple(ordered), tuple(warnings))


def _not_scheduled(pod: Pod) -> str:
    """Why a pod named but never attempted was not scheduled, when the way it was created says so."""
    if pod.status.phase in FINISHED_PHASES:
        return f"--explain {pod.key}: the pod has finished (phase {pod.status.phase}): it is not scheduled"
    if pod.spec.node_name:
        return f'--explain {pod.key}: the pod is already on node "{pod.spec.node_name}": it is not scheduled'
    return ""
