"""Sums per topology domain as arrays over the codes of :meth:`NodeColumns.label_values`, so the batch forms read
a node's domain sum with one indexing operation instead of a dictionary look-up per node."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from kubesched.framework import IntArray, NodeColumns

#: (topology key, topology value) -> number of matching (pod, term) pairs in that domain.
TopologyCounts = dict[tuple[str, str], int]
LabelCodes = npt.NDArray[np.int32]


class ValueCodes:
    """Per topology key, label value -> its code in ``columns.label_values(key)``, extended as values appear.

    ``label_values`` lists each value once and only appends, so the map catches up in O(new values)."""

    def __init__(self) -> None:
        self._maps: dict[str, tuple[list[str], dict[str, int]]] = {}

    def get(self, columns: NodeColumns, key: str) -> tuple[LabelCodes, list[str], dict[str, int]]:
        """(codes per node, values, value -> code) of node label ``key``."""
        codes, values = columns.label_values(key)
        entry = self._maps.get(key)
        if entry is None or entry[0] is not values:
            entry = self._maps[key] = (values, {})
        mapping = entry[1]
        for code in range(len(mapping), len(values)):
            mapping[values[code]] = code
        return codes, values, mapping


class Domains:
    """Counts per topology domain: per topology key, an int array over the codes of the key's label values
    (``values`` is the list the codes index). Immutable once built; CycleState clones share it."""

    #: Never changed after it is built (AddPod/RemovePod change the dictionary form instead), so clones of a
    #: PreFilter state may share it (conformance checks honour this marker).
    shared_across_clones: ClassVar[bool] = True

    __slots__ = ("by_key", "columns", "nonempty")

    def __init__(self, columns: NodeColumns, by_key: dict[str, tuple[IntArray, list[str]]], nonempty: bool) -> None:
        self.columns = columns
        self.by_key = by_key
        #: Whether the dictionary form has any entry (it may hold pairs no node of ``columns`` carries).
        self.nonempty = nonempty

    @classmethod
    def of_counts(cls, counts: TopologyCounts, columns: NodeColumns, value_codes: ValueCodes) -> Domains:
        """The array form of a dictionary of counts (pairs no node carries are left out of the arrays)."""
        by_key: dict[str, tuple[IntArray, list[str]]] = {}
        for (key, value), count in counts.items():
            entry = by_key.get(key)
            _codes, values, mapping = value_codes.get(columns, key)
            if entry is None:
                entry = by_key[key] = (np.zeros(len(values), dtype=np.int64), values)
            code = mapping.get(value)
            if code is not None:
                entry[0][code] += count
        return cls(columns, by_key, bool(counts))

    def to_counts(self) -> TopologyCounts:
        """The dictionary form: every non-zero domain."""
        counts: TopologyCounts = {}
        for key, (sums, values) in self.by_key.items():
            nonzero = np.flatnonzero(sums)
            counts.update(zip([(key, values[code]) for code in nonzero.tolist()], sums[nonzero].tolist(),
                              strict=True))
        return counts

    def topology_keys(self) -> list[str]:
        """The topology keys with a domain array."""
        return list(self.by_key)

    def per_node(self, key: str, value_codes: ValueCodes) -> IntArray:
        """Per node of the columns, the count of the node's domain for ``key`` (0 without the label)."""
        codes, values, mapping = value_codes.get(self.columns, key)
        padded = np.zeros(len(values) + 1, dtype=np.int64)  # the last entry serves code -1
        entry = self.by_key.get(key)
        if entry is not None:
            sums, own_values = entry
            if own_values is values:
                padded[:len(sums)] = sums
            else:  # the label index was rebuilt since: move the sums to the new codes
                for code in np.flatnonzero(sums).tolist():
                    new_code = mapping.get(own_values[code])
                    if new_code is not None:
                        padded[new_code] = sums[code]
        return padded[codes]


class DomainSums:
    """Accumulates per-node amounts per topology key, then sums them per domain of the key's label."""

    def __init__(self, columns: NodeColumns) -> None:
        self.columns = columns
        self.per_key: dict[str, IntArray] = {}

    def add(self, key: str, per_node: IntArray) -> None:
        """Add an amount per node (never modified in place: it may be a column's own array)."""
        current = self.per_key.get(key)
        self.per_key[key] = per_node if current is None else current + per_node

    def sums(self, key: str, where: npt.NDArray[np.bool_] | None = None) -> tuple[IntArray, list[str], Any]:
        """(per-domain sums, values, mask of counted nodes) for ``key``; nodes without the label are left out, and
        so are nodes outside ``where`` when given."""
        codes, values = self.columns.label_values(key)
        amounts = self.per_key[key]
        mask = codes >= 0
        if where is not None:
            mask &= where
        # float64 sums are exact: the amounts are integers far below 2**53.
        sums = np.bincount(codes[mask], weights=amounts[mask], minlength=len(values)).astype(np.int64)
        return sums, values, mask

    def domains(self) -> Domains:
        """Every key's non-zero domain sums."""
        by_key: dict[str, tuple[IntArray, list[str]]] = {}
        for key in self.per_key:
            sums, values, _mask = self.sums(key)
            if sums.any():
                by_key[key] = (sums, values)
        return Domains(self.columns, by_key, bool(by_key))
