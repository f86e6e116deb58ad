"""DefaultStorageClass: a claim created without spec.storageClassName gets the default class, as the v1.32 API
server stores it (checked on the binary: of two default classes created in the same second, the first by name)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import attrs
import pytest

from kubesched.admission.chain import CLAIM_PLUGINS, admit_claim
from kubesched.api.storage import BETA_DEFAULT_CLASS_ANNOTATION, PersistentVolumeClaim, StorageClass
from kubesched.io.load import load
from kubesched.testing import make_pvc, make_storage_class
from tests.io.test_errors import write


def _class(name: str, *, default: bool = True, created: int = 0, beta: bool = False) -> StorageClass:
    builder = make_storage_class(name).created(datetime.fromtimestamp(created, UTC))
    if default and beta:
        builder = builder.annotations({BETA_DEFAULT_CLASS_ANNOTATION: "true"})
    elif default:
        builder = builder.default()
    return builder.obj()


@pytest.mark.parametrize(("asked", "classes", "want"), [
    pytest.param(None, [_class("standard")], "standard", id="unset class gets the default"),
    pytest.param("", [_class("standard")], "", id="empty class stays empty (no class)"),
    pytest.param("fast", [_class("standard")], "fast", id="given class stays"),
    pytest.param(None, [_class("standard", default=False)], None, id="no default leaves it unset"),
    pytest.param(None, [], None, id="no class at all leaves it unset"),
    pytest.param(None, [_class("old", created=100), _class("new", created=200)], "new", id="newest default wins"),
    pytest.param(None, [_class("zeta", created=100), _class("alpha", created=100)], "alpha",
                 id="same creation time: first by name"),
    pytest.param(None, [_class("legacy", beta=True)], "legacy", id="beta annotation counts"),
])
def test_default_storage_class(asked: str | None, classes: list[StorageClass], want: str | None) -> None:
    """The class a created claim is stored with."""
    claim = make_pvc("data").storage_class(asked).obj()
    assert admit_claim(claim, classes).spec.storage_class_name == want


def test_default_storage_class_is_the_claim_plugin() -> None:
    """Claims go through DefaultStorageClass (the only claim plugin that changes what the scheduler sees)."""
    assert CLAIM_PLUGINS == ("DefaultStorageClass",)


INPUT = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: ebs.csi.aws.com
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: created}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: dumped, uid: 6b1e0c5e-1111-4c1e-9d7e-000000000001}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
status: {phase: Pending}
"""


def test_the_inputs_new_claims_are_admitted_and_a_dumps_are_not(tmp_path: Path) -> None:
    """A claim without a uid is created by the input and gets the default class; one an API server returned (it
    has a uid) was admitted already and is taken as it is."""
    loaded = load([write(tmp_path, "input.yaml", INPUT)])
    classes = {c.name: c.spec.storage_class_name for c in loaded.storage if isinstance(c, PersistentVolumeClaim)}
    assert classes == {"created": "standard", "dumped": None}


def test_a_claim_keeps_everything_else() -> None:
    """Admission changes the class alone."""
    claim = make_pvc("data").request("5Gi").obj()
    admitted = admit_claim(claim, [_class("standard")])
    assert attrs.evolve(admitted, spec=attrs.evolve(admitted.spec, storage_class_name=None)) == claim
