"""PodDisruptionBudget helpers for preemption: a PDB's disruption budget and filterPodsWithPDBViolation.

The scheduler only reads ``status.disruptionsAllowed`` and ``status.disruptedPods`` (facts §6.6, §9). When the
input has no ``disruptionsAllowed``, :func:`disruptions_allowed` works it out as the disruption controller
(pkg/controller/disruption/disruption.go) would:

- Matching pods: the pods in the PDB's namespace its selector selects, through ``LabelSelectorAsSelector``:
  a nil selector selects nothing, an empty selector ``{}`` selects every pod in the namespace (policy/v1).
- Expected and desired healthy (``getExpectedPodCount``): maxUnavailable, when set, wins:
  ``desired = max(0, expected - scaled(maxUnavailable, round up))``; integer minAvailable: ``desired = minAvailable``
  with ``expected`` = number of matching pods; percentage minAvailable: ``desired = ceil(pct * expected)``.
  With neither set (policy/v1 has no default and validation only forbids both), expected = desired = 0.
- Healthy (``countHealthyPods``): matching pods that are not terminating, not in ``status.disruptedPods`` and Ready.
- ``disruptionsAllowed = healthy - desired``, or 0 when that is negative or ``expected <= 0``.

Deliberate differences:

- For maxUnavailable and percentage minAvailable the controller's ``expected`` is the sum of the scales of the matching
  pods' controllers (pods without a controller are left out). Controller scale is not modelled, so ``expected`` is
  always the number of matching pods.
- Ready is not modelled: a pod counts as Ready when it is bound (spec.nodeName) and its phase is neither Succeeded nor
  Failed, since the simulator runs bound pods.
- There is no clock: every ``disruptedPods`` entry counts, while the controller drops entries older than 2 minutes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from kubesched.api.meta import LabelSelector
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget

_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def disruptions_allowed(pdb: PodDisruptionBudget, pods: Iterable[Pod]) -> int:
    """status.disruptionsAllowed when the input has it; otherwise computed as the disruption controller would
    from ``pods`` (every pod the scheduler knows: the ones running on nodes)."""
    if pdb.status.disruptions_allowed is not None:
        return pdb.status.disruptions_allowed
    matching = [pod for pod in pods if pod.namespace == pdb.namespace and _controller_selects(pdb.selector, pod)]
    expected, desired = _expected_and_desired(pdb, len(matching))
    healthy = sum(1 for pod in matching if _is_healthy(pod, pdb.status.disrupted_pods))
    allowed = healthy - desired
    return 0 if expected <= 0 or allowed <= 0 else allowed


def filter_pods_with_pdb_violation(pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget],
                                   allowed: Sequence[int]) -> tuple[list[Pod], list[Pod]]:
    """kube-scheduler's filterPodsWithPDBViolation: (violating, non_violating), each in the given order."""
    if len(allowed) != len(pdbs):
        raise ValueError(f"{len(allowed)} disruption budgets given for {len(pdbs)} PodDisruptionBudgets")
    budgets = list(allowed)
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if not _scheduler_selects(pdb, pod) or pod.name in pdb.status.disrupted_pods:
                    continue
                budgets[i] -= 1
                if budgets[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


def _scheduler_selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """The preemption check's matching: same namespace, and a nil or empty selector matches nothing."""
    selector = pdb.selector
    if pdb.namespace != pod.namespace or selector is None or selector.is_empty():
        return False
    return selector.matches(pod.labels)


def _controller_selects(selector: LabelSelector | None, pod: Pod) -> bool:
    """LabelSelectorAsSelector as the disruption controller uses it: nil selects nothing, empty selects all."""
    return selector is not None and selector.matches(pod.labels)


def _expected_and_desired(pdb: PodDisruptionBudget, matching: int) -> tuple[int, int]:
    """(expectedPods, desiredHealthy) as getExpectedPodCount, with the matching pod count standing in for scale."""
    if pdb.max_unavailable is not None:
        return matching, max(0, matching - pdb.max_unavailable.scaled(matching, round_up=True))
    if pdb.min_available is not None:
        return matching, pdb.min_available.scaled(matching, round_up=True)
    return 0, 0


def _is_healthy(pod: Pod, disrupted_pods: Mapping[str, str]) -> bool:
    """countHealthyPods: not terminating, not already disrupted, and Ready (bound and not finished here)."""
    if pod.metadata.deletion_timestamp is not None or pod.name in disrupted_pods:
        return False
    return bool(pod.spec.node_name) and pod.status.phase not in _TERMINAL_PHASES


@attrs.frozen
class DisruptionBudgets:
    """The PDBs and the disruptions each still allows, worked out once per preemption attempt."""

    pdbs: tuple[PodDisruptionBudget, ...] = ()
    allowed: tuple[int, ...] = ()

    @classmethod
    def of(cls, pdbs: Iterable[PodDisruptionBudget], pods: Sequence[Pod]) -> DisruptionBudgets:
        """Budgets from status.disruptionsAllowed, or computed from ``pods`` when the status lacks it."""
        pdbs = tuple(pdbs)
        return cls(pdbs, tuple(disruptions_allowed(pdb, pods) for pdb in pdbs))

    def split(self, pods: Sequence[Pod]) -> tuple[list[Pod], list[Pod]]:
        """(violating, non-violating) pods, each in the given order (filterPodsWithPDBViolation)."""
        return filter_pods_with_pdb_violation(pods, self.pdbs, self.allowed)
