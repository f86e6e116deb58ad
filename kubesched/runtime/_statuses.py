"""Filter statuses as the runtime records them: a :class:`~kubesched.framework.NodeToStatus` whose entries may be
recorded as deferred fills (the batch Filter path, the preemption accelerator) and built only when read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework._columns import IntArray
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis, NodeToStatus

#: Per node of a deferred fill, its name with its status code and rejecting plugin (known without messages).
CodeEntries = Iterable[tuple[str, tuple[Code, str]]]
#: A deferred fill's entry count and reason counts (as :meth:`NodeToStatus.reason_counts` counts its statuses).
ReasonTally = tuple[int, dict[str, int]]
#: A deferred fill's entries by node position in the snapshot's columns: (positions, codes, indexes into the
#: plugin names, the plugin names).
PositionalCodes = tuple[IntArray, "npt.NDArray[np.int8]", "npt.NDArray[np.int16]", Sequence[str]]
#: Every node's code and rejecting plugin by column position (see :meth:`NodeToStatus.code_columns`).
CodeColumns = tuple["npt.NDArray[np.int8]", "npt.NDArray[np.int16]", list[str]]


class DeferredNodeToStatus(NodeToStatus):
    """The runtime's :class:`~kubesched.framework.NodeToStatus`: the batch Filter path records rejections as a
    deferred fill (:meth:`defer`): the statuses are built the first time anything reads them, so a cycle that finds
    a node never pays for them. A fill that also knows its entries'
    codes lets :meth:`codes`, :meth:`code` and :meth:`nodes_for_status_code` answer without building messages; one
    that also knows its reason counts lets the FitError message (:meth:`reason_counts`, ``len``) skip the statuses.
    """

    __slots__ = ("_code_columns", "_codes", "_count", "_deferred", "_reason_counts")

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None) -> None:
        super().__init__(statuses, absent)
        self._deferred: list[tuple[Callable[[], Iterable[tuple[str, Status]]],
                                   Callable[[], CodeEntries] | None, Callable[[], ReasonTally] | None,
                                   Callable[[], PositionalCodes] | None]] = []
        self._code_columns: tuple[int, Status, CodeColumns | None] | None = None
        self._codes: dict[str, tuple[Code, str]] | None = None
        self._reason_counts: dict[str, int] | None = None
        self._count: int | None = None

    @property
    def statuses(self) -> dict[str, Status]:
        """Every explicit entry (deferred ones built first); read-only: record entries with :meth:`set`."""
        if self._deferred:
            self.materialise()
        return self._statuses

    def defer(self, fill: Callable[[], Iterable[tuple[str, Status]]],
              codes: Callable[[], CodeEntries] | None = None,
              reasons: Callable[[], ReasonTally] | None = None,
              positional: Callable[[], PositionalCodes] | None = None) -> None:
        """Record entries later: ``fill`` yields (node, status) pairs when something first reads the statuses. It
        must be called before the data it reads change (the runtime materialises within the cycle). ``codes``,
        if given, yields the same entries' (node, (code, plugin)) in the same order, cheaply; ``reasons``, if
        given, returns their number (distinct nodes) and how many times each reason occurs in their statuses;
        ``positional``, if given, returns their codes and plugins by node position in the snapshot's columns."""
        self._deferred.append((fill, codes, reasons, positional))
        self._codes = self._reason_counts = self._count = self._code_columns = None

    def materialise(self) -> None:
        """Build the deferred entries now, in the order they were recorded."""
        deferred, self._deferred = self._deferred, []
        self._codes = self._reason_counts = self._count = None
        for fill, _codes, _reasons, _positional in deferred:
            self._statuses.update(fill())

    def codes(self) -> dict[str, tuple[Code, str]]:
        """Every explicit entry's (code, rejecting plugin), without building the messages of deferred entries whose
        fill knows its codes (PostFilter plugins that only need the codes, as preemption, read this)."""
        if self._codes is not None:
            return self._codes
        if any(entry[1] is None for entry in self._deferred):
            self.materialise()
        out = {name: (status.code, status.plugin) for name, status in self._statuses.items()}
        for _fill, codes, _reasons, _positional in self._deferred:
            assert codes is not None
            out.update(codes())
        self._codes = out
        return out

    def code(self, name: str) -> Code:
        """The node's status code (its entry's, or the absent-nodes status's), as :meth:`codes` reads it."""
        entry = self.codes().get(name) if self._deferred else None
        if entry is not None:
            return entry[0]
        status = self._statuses.get(name)
        return (status or self.absent_nodes_status).code

    def code_columns(self, position: Mapping[str, int], size: int) -> CodeColumns | None:
        """Every node's code and rejecting plugin (an index into the returned names) by position, for nodes placed
        by ``position`` (the snapshot's columns, ``size`` nodes): the absent-nodes status's, then each entry's in
        the order recorded. None when a deferred fill does not give its entries by position or an entry names a
        node ``position`` lacks (read :meth:`codes` then). Read-only."""
        absent = self.absent_nodes_status
        cached = self._code_columns
        if cached is not None and cached[0] == size and cached[1] is absent:
            return cached[2]
        table: CodeColumns | None = None
        if all(entry[3] is not None for entry in self._deferred):
            codes = np.full(size, int(absent.code), dtype=np.int8)
            plugins = np.zeros(size, dtype=np.int16)
            names = [absent.plugin]
            index = {absent.plugin: 0}
            table = codes, plugins, names
            for name, status in self._statuses.items():
                at = position.get(name)
                if at is None:
                    table = None
                    break
                codes[at] = status.code
                plugins[at] = index.setdefault(status.plugin, len(index))
                if len(index) > len(names):
                    names.append(status.plugin)
            if table is not None:
                for entry in self._deferred:
                    assert entry[3] is not None
                    at_positions, entry_codes, entry_plugins, entry_names = entry[3]()
                    codes[at_positions] = entry_codes
                    plugins[at_positions] = entry_plugins + len(names)
                    names.extend(entry_names)
        self._code_columns = (size, absent, table)
        return table

    def _tally(self) -> bool:
        """Take the entry and reason counts from the one deferred fill's ``reasons`` when nothing else is recorded
        (no overlap to resolve); False when the statuses must be built instead."""
        if self._reason_counts is not None and self._count is not None:
            return True
        if len(self._deferred) != 1 or self._statuses:
            return False
        reasons = self._deferred[0][2]
        if reasons is None:
            return False
        self._count, self._reason_counts = reasons()
        return True

    def reason_counts(self) -> dict[str, int]:
        """How many explicit entries give each reason (a reason repeated within one status counts each time), as
        the FitError message counts them; statuses shared between nodes are read once. Read-only."""
        if self._deferred and self._tally():
            assert self._reason_counts is not None
            return self._reason_counts
        statuses = self.statuses.values()
        if self._reason_counts is None:
            tally = Counter(map(id, statuses))
            if len(tally) < len(statuses):
                unique = dict(zip(map(id, statuses), statuses, strict=True))
                pairs: Iterable[tuple[Status, int]] = ((unique[key], times) for key, times in tally.items())
            else:
                pairs = ((status, 1) for status in statuses)
            counts: dict[str, int] = {}
            for status, times in pairs:
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + times
            self._reason_counts = counts
        return self._reason_counts

    def recorded_names(self) -> list[str]:
        """The nodes with an entry so far, deferred entries not included (they are not built for this)."""
        return list(self._statuses)

    def get(self, name: str) -> Status:
        """The node's status (its explicit entry or the absent-nodes status)."""
        if not name and name not in self._statuses:
            return self.absent_nodes_status  # no node is named "" (a pod without a nominated node asks this)
        if self._deferred and all(entry[1] is not None for entry in self._deferred) \
                and name not in self._statuses and name not in self.codes():
            return self.absent_nodes_status
        return self.statuses.get(name) or self.absent_nodes_status

    def set(self, name: str, status: Status) -> None:
        """Record a node's status."""
        if self._deferred:
            self.materialise()
        self._statuses[name] = status
        self._codes = self._reason_counts = self._count = self._code_columns = None

    def __len__(self) -> int:
        if self._deferred and self._tally():
            assert self._count is not None
            return self._count
        return len(self.statuses)

    def __contains__(self, name: object) -> bool:
        return name in self.statuses


def new_diagnosis() -> Diagnosis:
    """A Diagnosis whose statuses may be recorded as deferred fills."""
    return Diagnosis(DeferredNodeToStatus())
