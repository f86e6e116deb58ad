"""Taints against tolerations, as component-helpers' TolerationsTolerateTaint and FindMatchingUntoleratedTaint."""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.api.node import NO_EXECUTE, NO_SCHEDULE, Taint
from kubesched.api.pod import Toleration


def tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    """Whether any of ``tolerations`` tolerates ``taint``."""
    return any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations)


def find_untolerated_taint(taints: Iterable[Taint], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule or NoExecute taint, in node order, that no toleration tolerates; None if there is none."""
    for taint in taints:
        if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerated(taint, tolerations):
            return taint
    return None
