"""like(status): matching statuses by code and reasons, as kube-scheduler's plugin tests compare them."""

from __future__ import annotations

from kubesched.framework import Code, Status
from kubesched.testing import like


def test_a_matcher_ignores_the_plugin_name() -> None:
    """A status the framework attributed to its plugin equals the bare status kube's table expects."""
    assert Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit") == like(
        Status.unschedulable("Insufficient cpu"))


def test_a_matcher_names_the_plugin_when_asked() -> None:
    """``plugin=`` makes the plugin part of the match."""
    got = Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")
    assert got == like(Status.unschedulable("Insufficient cpu"), plugin="NodeResourcesFit")
    assert got != like(Status.unschedulable("Insufficient cpu"), plugin="Other")


def test_a_matcher_tells_codes_and_reasons_apart() -> None:
    """Another code or another reason is another status."""
    assert Status.unresolvable("x") != like(Status.unschedulable("x"))
    assert Status.unschedulable("x") != like(Status.unschedulable("y"))


def test_success_matches_none() -> None:
    """like(None) and like(Status.success()) equal None and a Success status, as a hook's None means Success."""
    assert like(None) == None  # noqa: E711 - the matcher's == is the point
    assert like(None) == Status.success()
    assert like(Status.success()) == Status.success()
    assert like(Status.unschedulable("x")) != None  # noqa: E711


def test_matchers_compare_inside_dicts() -> None:
    """A whole run_filter result compares against a table row."""
    got = {"n1": None, "n2": Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")}
    assert got == {"n1": None, "n2": like(Status.unschedulable("Insufficient cpu"))}
