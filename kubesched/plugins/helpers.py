"""Score helpers shared by built-in plugins, usable by third-party plugins too."""

from __future__ import annotations

from kubesched.framework.types import MAX_NODE_SCORE, NodeScore


def default_normalize_score(scores: list[NodeScore], *, reverse: bool = False,
                            max_priority: int = MAX_NODE_SCORE) -> None:
    """Scale scores so the highest becomes ``max_priority``; ``reverse`` flips them (fewer is better).

    When every score is 0 they stay 0, or all become ``max_priority`` when reversed.
    """
    highest = max((ns.score for ns in scores), default=0)
    if highest == 0:
        if reverse:
            for ns in scores:
                ns.score = max_priority
        return
    for ns in scores:
        score = max_priority * ns.score // highest
        ns.score = max_priority - score if reverse else score
