"""Preemption candidates and the choice among them: kube-scheduler's Candidate, the default criteria of
pickOneNodeForPreemption in their order, and why each losing candidate lost (for explain)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

import attrs

from kubesched.api.pod import Pod

#: A node score for picking among candidates: the highest wins, ties go to the next function.
ScoreFunc = Callable[[str], int]
# pickOneNodeForPreemption adds MaxInt32+1 to each priority so that sums of negative priorities compare sanely.
PRIORITY_OFFSET = 2**31
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@attrs.frozen
class Candidate:
    """A node where the preemptor fits once ``victims`` are gone; ``num_pdb_violations`` of them break a PDB."""

    name: str
    victims: tuple[Pod, ...]
    num_pdb_violations: int = 0


class CandidateChoice:
    """The candidates a preemption considered, the one it chose, and why each other one lost (for explain). ``lost``
    may be given as a function: it is then worked out when first read, so a preemption nobody records pays
    nothing for it."""

    __slots__ = ("_lost", "_lost_of", "candidates", "chosen")

    def __init__(self, candidates: Sequence[Candidate], chosen: Candidate | None,
                 lost: Mapping[str, str] | Callable[[], Mapping[str, str]]) -> None:
        self.candidates = tuple(candidates)
        self.chosen = chosen
        self._lost: Mapping[str, str] | None = None if callable(lost) else lost
        self._lost_of = lost if callable(lost) else None

    @property
    def lost(self) -> Mapping[str, str]:
        """Per losing candidate's node, the tie-break criterion it lost on."""
        if self._lost is None:
            assert self._lost_of is not None
            self._lost = self._lost_of()
        return self._lost

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CandidateChoice):
            return NotImplemented
        return (self.candidates, self.chosen, dict(self.lost)) == (other.candidates, other.chosen, dict(other.lost))

    def __hash__(self) -> int:
        return hash((self.candidates, self.chosen))

    def __repr__(self) -> str:
        return f"CandidateChoice(candidates={self.candidates!r}, chosen={self.chosen!r}, lost={dict(self.lost)!r})"


#: Why a candidate lost at each of kube-scheduler's default criteria (see :meth:`Evaluator.default_score_funcs`).
_LOST_AT = {
    "fewest_violations": "more PDB violations",
    "lowest_top_priority": "higher highest victim priority",
    "smallest_priority_sum": "larger sum of victim priorities",
    "fewest_victims": "more victims",
    "latest_start": "earlier start of its highest-priority victims",
}
TIED_ON_EVERY_CRITERION = "tied on every criterion; the first candidate in dry-run order wins"


def unix_nanos(when: datetime) -> int:
    """A time as integer nanoseconds since the Unix epoch (naive times count as UTC), like Go's UnixNano."""
    aware = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return ((aware - _EPOCH) // timedelta(microseconds=1)) * 1000


_NANOS: dict[datetime, int] = {}


def nanos(when: datetime) -> int:
    """:func:`unix_nanos`, remembered per instant (start times repeat across many comparisons)."""
    value = _NANOS.get(when)
    if value is None:
        if len(_NANOS) >= 1 << 16:
            _NANOS.clear()
        value = _NANOS[when] = unix_nanos(when)
    return value


def default_score_funcs(victims_map: Mapping[str, Candidate], now: datetime) -> list[ScoreFunc]:
    """Fewest PDB violations, lowest top victim priority, smallest priority sum (each + 2^31), fewest victims,
    latest start among the top-priority victims (no start time counts as ``now``): kube's order."""

    def fewest_violations(node: str) -> int:
        return -victims_map[node].num_pdb_violations

    def lowest_top_priority(node: str) -> int:
        return -victims_map[node].victims[0].priority

    def smallest_priority_sum(node: str) -> int:
        return -sum(v.priority + PRIORITY_OFFSET for v in victims_map[node].victims)

    def fewest_victims(node: str) -> int:
        return -len(victims_map[node].victims)

    def latest_start(node: str) -> int:
        return nanos(earliest_start_of_top_priority(victims_map[node].victims, now))

    return [fewest_violations, lowest_top_priority, smallest_priority_sum, fewest_victims, latest_start]


def tie_break_reasons(candidates: Sequence[Candidate], chosen: Candidate | None, score_funcs: Sequence[ScoreFunc],
                      chooser: str) -> dict[str, str]:
    """For each candidate but ``chosen``, the criterion of ``score_funcs`` it lost on, with its score and the best
    score there (the same functions, applied in the same order as the choice). When ``chosen`` is not what those
    functions pick (``chooser``, a subclass's select_candidate, chose otherwise), each other candidate just says it
    was not chosen, rather than naming criteria that did not decide."""
    if chosen is None or len(candidates) < 2:
        return {}
    names = list(dict.fromkeys(c.name for c in candidates))
    lost: dict[str, str] = {}
    remaining = names
    for score in score_funcs:
        scores = {node: score(node) for node in remaining}
        best = max(scores.values())
        name = getattr(score, "__name__", "score")
        for node in remaining:
            if scores[node] != best:
                what = _LOST_AT.get(name, f"lower {name} score")
                lost[node] = f"{what} ({_shown(name, scores[node])} against {_shown(name, best)})"
        remaining = [node for node in remaining if scores[node] == best]
        if len(remaining) == 1:
            break
    if remaining[0] != chosen.name:
        reason = f"not chosen by {chooser}"
        return {c.name: reason for c in candidates if c.name != chosen.name}
    for node in remaining:
        if node != chosen.name:
            lost[node] = TIED_ON_EVERY_CRITERION
    return lost


def _shown(criterion: str, score: int) -> str:
    """A default criterion's score as the quantity it stands for (violations, priorities, a count, a time)."""
    if criterion in ("fewest_violations", "lowest_top_priority", "smallest_priority_sum", "fewest_victims"):
        return str(-score)  # the sum of priorities has 2^31 added to each, as kube-scheduler compares it
    if criterion == "latest_start":
        return datetime.fromtimestamp(score / 1e9, UTC).isoformat().replace("+00:00", "Z")
    return str(score)


def earliest_start_of_top_priority(victims: Sequence[Pod], now: datetime) -> datetime:
    """The earliest start time among the highest-priority victims (no start time counts as ``now``)."""
    top = max(v.priority for v in victims)
    return min((v.status.start_time or now for v in victims if v.priority == top), key=nanos)


def pick_one_node_for_preemption(nodes: Sequence[str], score_funcs: Sequence[ScoreFunc]) -> str:
    """Narrow ``nodes`` to the highest scorers of each function in turn; the first remaining node wins."""
    if not nodes:
        return ""
    remaining = list(nodes)
    for score in score_funcs:
        scores = [score(node) for node in remaining]
        best = max(scores)
        remaining = [node for node, s in zip(remaining, scores, strict=True) if s == best]
        if len(remaining) == 1:
            break
    return remaining[0]
