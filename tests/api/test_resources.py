"""A pod's effective request (PodRequests), resource name classes, and Resource rounding."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.api.quantity import Quantity
from kubesched.api.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    NON_ZERO_DEFAULTS,
    is_extended_resource_name,
    is_scalar_resource_name,
    pod_requests,
)
from kubesched.framework._resource import Resource
from kubesched.testing.builders import PodBuilder, make_pod

GI = 2**30
MI = 2**20


def m(milli: int) -> Fraction:
    """An amount given in thousandths (millicores)."""
    return Fraction(milli, 1000)


@pytest.mark.parametrize(
    ("builder", "expected"),
    [
        pytest.param(make_pod("p"), {}, id="no-requests"),
        pytest.param(make_pod("p").req(cpu="1", memory="1Gi"), {"cpu": m(1000), "memory": Fraction(GI)},
                     id="one-container"),
        pytest.param(make_pod("p").req(cpu="1", memory="1Gi").req(cpu="250m", memory="512Mi"),
                     {"cpu": m(1250), "memory": Fraction(GI + 512 * MI)}, id="containers-are-summed"),
        pytest.param(make_pod("p").req(cpu="1").init_req(cpu="2"), {"cpu": m(2000)},
                     id="larger-init-container-wins"),
        pytest.param(make_pod("p").req(cpu="3").init_req(cpu="2"), {"cpu": m(3000)},
                     id="smaller-init-container-is-ignored"),
        pytest.param(make_pod("p").req(cpu="1").init_req(cpu="2").init_req(cpu="3"), {"cpu": m(3000)},
                     id="init-containers-run-one-at-a-time"),
        pytest.param(make_pod("p").req(cpu="2", memory="1Gi").init_req(cpu="1", memory="2Gi"),
                     {"cpu": m(2000), "memory": Fraction(2 * GI)}, id="max-is-taken-per-resource"),
        pytest.param(make_pod("p").req(cpu="1").init_req(memory="1Gi"), {"cpu": m(1000), "memory": Fraction(GI)},
                     id="resource-only-in-init-container"),
        pytest.param(make_pod("p").req(cpu="1").init_req(sidecar=True, cpu="500m"), {"cpu": m(1500)},
                     id="sidecar-adds-to-containers"),
        pytest.param(make_pod("p").req(cpu="1").init_req(sidecar=True, cpu="500m").init_req(cpu="2"),
                     {"cpu": m(2500)}, id="sidecar-runs-alongside-later-init-container"),
        pytest.param(make_pod("p").req(cpu="1").init_req(cpu="2").init_req(sidecar=True, cpu="500m"),
                     {"cpu": m(2000)}, id="sidecar-does-not-run-alongside-earlier-init-container"),
        pytest.param(make_pod("p").req(cpu="1").init_req(sidecar=True, cpu="1").init_req(sidecar=True, cpu="1")
                     .init_req(cpu="1500m"), {"cpu": m(3500)}, id="sidecars-accumulate"),
        pytest.param(make_pod("p").req(cpu="1").overhead(cpu="100m", memory="10Mi"),
                     {"cpu": m(1100), "memory": Fraction(10 * MI)}, id="overhead-is-added"),
        pytest.param(make_pod("p").req(cpu="1").init_req(cpu="2").overhead(cpu="100m"), {"cpu": m(2100)},
                     id="overhead-is-added-after-the-init-max"),
        pytest.param(make_pod("p").req(cpu="1", memory="1Gi").init_req(cpu="2").init_req(sidecar=True, cpu="500m")
                     .overhead(cpu="100m"), {"cpu": m(2100), "memory": Fraction(GI)}, id="everything-together"),
        pytest.param(make_pod("p").req(**{"nvidia.com/gpu": 1}).req(**{"nvidia.com/gpu": 2}),
                     {"nvidia.com/gpu": Fraction(3)}, id="extended-resources-are-summed"),
    ],
)
def test_pod_requests(builder: PodBuilder, expected: dict[str, Fraction]) -> None:
    """Containers and sidecars are summed, regular init containers max'd against them, overhead added."""
    assert pod_requests(builder.obj()) == expected


def test_non_zero_defaults_are_100m_cpu_and_200mi_memory() -> None:
    """The scheduler's non-zero defaults are 100 millicores and 200 MiB."""
    assert (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST) == (100, 200 * MI)
    assert dict(NON_ZERO_DEFAULTS) == {"cpu": m(100), "memory": Fraction(200 * MI)}


@pytest.mark.parametrize(
    ("builder", "expected"),
    [
        pytest.param(make_pod("p"), {"cpu": m(100), "memory": Fraction(200 * MI)}, id="unset-gets-defaults"),
        pytest.param(make_pod("p").req().req(), {"cpu": m(200), "memory": Fraction(400 * MI)},
                     id="defaults-apply-per-container"),
        pytest.param(make_pod("p").req(cpu="0", memory="0"), {"cpu": m(0), "memory": Fraction(0)},
                     id="explicit-zero-stays-zero"),
        pytest.param(make_pod("p").req(cpu="1"), {"cpu": m(1000), "memory": Fraction(200 * MI)},
                     id="only-the-unset-resource-is-defaulted"),
        pytest.param(make_pod("p").req(cpu="50m", memory="1Gi").init_req(),
                     {"cpu": m(100), "memory": Fraction(GI)}, id="init-container-gets-defaults"),
        pytest.param(make_pod("p").req(cpu="50m", memory="10Mi").init_req(sidecar=True),
                     {"cpu": m(150), "memory": Fraction(210 * MI)}, id="sidecar-gets-defaults"),
        pytest.param(make_pod("p").req(**{"nvidia.com/gpu": 1}),
                     {"cpu": m(100), "memory": Fraction(200 * MI), "nvidia.com/gpu": Fraction(1)},
                     id="other-resources-are-not-defaulted"),
        pytest.param(make_pod("p").overhead(cpu="10m"), {"cpu": m(110), "memory": Fraction(200 * MI)},
                     id="overhead-is-not-defaulted"),
    ],
)
def test_pod_requests_with_non_missing_defaults(builder: PodBuilder, expected: dict[str, Fraction]) -> None:
    """non_missing fills in unset cpu/memory per container (init containers too); explicit values are kept."""
    assert pod_requests(builder.obj(), non_missing=NON_ZERO_DEFAULTS) == expected


def test_pod_requests_without_non_missing_leaves_unset_resources_out() -> None:
    """Without non_missing, a container with no requests contributes nothing."""
    pod = make_pod("p").req().req(cpu="1").obj()
    assert pod_requests(pod) == {"cpu": m(1000)}


@pytest.mark.parametrize(
    ("name", "extended", "scalar"),
    [
        ("cpu", False, False),
        ("memory", False, False),
        ("ephemeral-storage", False, False),
        ("pods", False, False),
        ("foo", False, False),
        ("nvidia.com/gpu", True, True),
        ("example.com/dongle", True, True),
        ("hugepages-2Mi", False, True),
        ("hugepages-1Gi", False, True),
        ("attachable-volumes-aws-ebs", False, True),
        ("kubernetes.io/batteries", False, True),
        ("node.kubernetes.io/thing", False, True),
        ("requests.nvidia.com/gpu", False, False),
        ("example.com/a/b", False, False),  # not a qualified name once prefixed with "requests."
        ("example.com/", False, False),  # empty name part
    ],
)
def test_resource_name_classes(name: str, extended: bool, scalar: bool) -> None:
    """Extended = domain-prefixed, non-native, qualified; scalar = extended, hugepages, prefixed native, volumes."""
    assert (is_extended_resource_name(name), is_scalar_resource_name(name)) == (extended, scalar)


@pytest.mark.parametrize(
    ("amounts", "expected"),
    [
        ({"cpu": Fraction(1, 10**9)}, Resource(milli_cpu=1)),
        ({"cpu": Fraction(3, 2)}, Resource(milli_cpu=1500)),
        ({"cpu": Fraction(10001, 10**7)}, Resource(milli_cpu=2)),
        ({"memory": Fraction(1, 2)}, Resource(memory=1)),
        ({"memory": Fraction(GI)}, Resource(memory=GI)),
        ({"ephemeral-storage": Fraction(5, 2)}, Resource(ephemeral_storage=3)),
        ({"pods": Fraction(110)}, Resource(allowed_pod_number=110)),
        ({"nvidia.com/gpu": Fraction(2)}, Resource(scalar_resources={"nvidia.com/gpu": 2})),
        ({"nvidia.com/gpu": Fraction(1, 1000)}, Resource(scalar_resources={"nvidia.com/gpu": 1})),
        ({"hugepages-2Mi": Fraction(4 * MI)}, Resource(scalar_resources={"hugepages-2Mi": 4 * MI})),
        ({"foo": Fraction(7)}, Resource()),
        ({"cpu": Fraction(0), "memory": Fraction(0)}, Resource()),
    ],
)
def test_from_amounts_rounds_like_kube(amounts: dict[str, Fraction], expected: Resource) -> None:
    """cpu becomes millicores rounded up, everything else whole units rounded up; unknown names are ignored."""
    assert Resource.from_amounts(amounts) == expected


def test_from_amounts_accepts_quantities() -> None:
    """Quantities convert like their exact amounts."""
    amounts = {"cpu": Quantity.parse("250m"), "memory": Quantity.parse("1Gi"), "pods": Quantity.parse("10")}
    assert Resource.from_amounts(amounts) == Resource(milli_cpu=250, memory=GI, allowed_pod_number=10)


def test_from_amounts_of_pod_requests() -> None:
    """A pod's requests convert into one Resource with scalars tracked by name."""
    pod = make_pod("p").req(cpu="1", memory="1Gi", **{"nvidia.com/gpu": 1}).init_req(cpu="1500m").obj()
    resource = Resource.from_amounts(pod_requests(pod))
    assert resource == Resource(milli_cpu=1500, memory=GI, scalar_resources={"nvidia.com/gpu": 1})


@pytest.mark.parametrize(
    ("name", "value"),
    [("cpu", 1500), ("memory", GI), ("ephemeral-storage", 7), ("pods", 3), ("nvidia.com/gpu", 2), ("other/x", 0)],
)
def test_get_reads_a_resource_by_kubernetes_name(name: str, value: int) -> None:
    """get(name) returns the amount in scheduler units, 0 when absent."""
    resource = Resource(milli_cpu=1500, memory=GI, ephemeral_storage=7, allowed_pod_number=3,
                        scalar_resources={"nvidia.com/gpu": 2})
    assert resource.get(name) == value


@given(st.dictionaries(st.sampled_from(["cpu", "memory", "ephemeral-storage", "pods", "nvidia.com/gpu"]),
                       st.fractions(min_value=0, max_value=10**12, max_denominator=10**6), max_size=5))
def test_from_amounts_rounds_up_exactly_as_ceil(amounts: dict[str, Fraction]) -> None:
    """The integer rounding equals math.ceil of the exact amount (millicores for cpu) for every amount."""
    scale = {"cpu": 1000}
    expected = {name: math.ceil(amount * scale.get(name, 1)) for name, amount in amounts.items()}
    resource = Resource.from_amounts(amounts)
    assert {name: resource.get(name) for name in amounts} == expected
