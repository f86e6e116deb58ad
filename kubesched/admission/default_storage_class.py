"""DefaultStorageClass, as the v1.32 API server admits a PersistentVolumeClaim: a claim that leaves
spec.storageClassName unset gets the default class (a claim asking for ``""`` keeps asking for no class)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

import attrs

from kubesched.api.storage import PersistentVolumeClaim, StorageClass

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def default_class(classes: Iterable[StorageClass]) -> StorageClass | None:
    """The default class (storageutil.GetDefaultClass): of the classes marked default, the newest, then the first
    by name."""
    marked = [c for c in classes if c.is_default]
    if not marked:
        return None

    def newest_first(c: StorageClass) -> tuple[float, str]:
        created: datetime = c.metadata.creation_timestamp or _EPOCH
        return -created.timestamp(), c.name

    return min(marked, key=newest_first)


def admit_claim(claim: PersistentVolumeClaim, classes: Iterable[StorageClass]) -> PersistentVolumeClaim:
    """``claim`` as admission stores it: with the default class when it sets none and one exists."""
    if claim.spec.storage_class_name is not None:
        return claim
    chosen = default_class(classes)
    if chosen is None:
        return claim
    return attrs.evolve(claim, spec=attrs.evolve(claim.spec, storage_class_name=chosen.name))
