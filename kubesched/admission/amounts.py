"""Resource lists as admission adds them up: exact amounts that keep the notation apimachinery keeps (the left
operand's, or the right one's when the left is zero), so that sums print as the API server prints them; a pod's
requests and limits as ``resourcehelper.PodRequests`` and ``PodLimits`` compute them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from kubesched.api.pod import Container, Pod
from kubesched.api.quantity import Quantity
from kubesched.api.validation import canonical_quantity

ResourceAmounts = dict[str, Quantity]
ZERO = Quantity(Fraction(0), "0")


def show(quantity: Quantity) -> str:
    """The quantity as the API server prints it (Quantity.String())."""
    return canonical_quantity(quantity)


def stored(quantity: Quantity) -> Quantity:
    """The quantity as the API server stores a resource list's value: rounded up to thousandths."""
    milli = quantity.milli_value()
    if quantity.amount * 1000 == milli:
        return quantity
    return Quantity(Fraction(milli, 1000), quantity.text)


def _with_amount(like: Quantity, amount: Fraction) -> Quantity:
    """A quantity of ``amount`` in the notation of ``like``, its text the canonical one."""
    value = Quantity(amount, like.text)
    return Quantity(amount, canonical_quantity(value))


def add(left: Quantity | None, right: Quantity) -> Quantity:
    """``left + right`` (Quantity.Add): the notation of ``left``, or of ``right`` when ``left`` is absent or zero."""
    if left is None:
        return right
    like = right if left.amount == 0 else left
    return _with_amount(like, left.amount + right.amount)


def subtract(left: Quantity, right: Quantity) -> Quantity:
    """``left - right`` (Quantity.Sub), in the notation of ``left`` (of ``right`` when ``left`` is zero)."""
    like = right if left.amount == 0 else left
    return _with_amount(like, left.amount - right.amount)


def add_into(total: ResourceAmounts, extra: Mapping[str, Quantity]) -> None:
    """addResourceList: every amount of ``extra`` added to ``total``."""
    for name, quantity in extra.items():
        total[name] = add(total.get(name), quantity)


def max_into(total: ResourceAmounts, other: Mapping[str, Quantity]) -> None:
    """maxResourceList: each amount of ``other`` replaces a smaller (or missing) one of ``total``."""
    for name, quantity in other.items():
        current = total.get(name)
        if current is None or quantity.amount > current.amount:
            total[name] = quantity


def _stored_list(values: Mapping[str, Quantity]) -> ResourceAmounts:
    return {name: stored(q) for name, q in values.items()}


def _aggregate(containers: Iterable[Container], init_containers: Iterable[Container], *,
               limits: bool) -> ResourceAmounts:
    """The containers' requests (or limits) as a pod needs them: regular containers and sidecars summed, each
    regular init container with the sidecars started before it, the larger of the two phases."""
    total: ResourceAmounts = {}
    for container in containers:
        add_into(total, _stored_list(container.limits if limits else container.requests))
    sidecars: ResourceAmounts = {}
    init_peak: ResourceAmounts = {}
    for container in init_containers:
        own = _stored_list(container.limits if limits else container.requests)
        if container.restart_policy == "Always":
            add_into(total, own)
            add_into(sidecars, own)
            phase = dict(sidecars)
        else:
            phase = dict(own)
            add_into(phase, sidecars)
        max_into(init_peak, phase)
    max_into(total, init_peak)
    return total


def pod_requests(pod: Pod, *, overhead: bool = True) -> ResourceAmounts:
    """The pod's requests (PodRequests): its containers' with ``spec.overhead`` added when ``overhead``."""
    total = _aggregate(pod.spec.containers, pod.spec.init_containers, limits=False)
    if overhead:
        add_into(total, _stored_list(pod.spec.overhead))
    return total


def pod_limits(pod: Pod, *, overhead: bool = True) -> ResourceAmounts:
    """The pod's limits (PodLimits): its containers'; with ``overhead``, the overhead of each resource limited."""
    total = _aggregate(pod.spec.containers, pod.spec.init_containers, limits=True)
    if overhead:
        for name, quantity in pod.spec.overhead.items():
            if name in total:
                total[name] = add(total[name], stored(quantity))
    return total
