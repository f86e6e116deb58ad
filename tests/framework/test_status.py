"""Status: what a plugin returns, and how an exception becomes an Error."""

from __future__ import annotations

import pytest

from kubesched.framework import Code, Status


class UnprintableError(Exception):
    """An exception whose str() raises."""

    def __str__(self) -> str:
        raise RuntimeError("no")


@pytest.mark.parametrize(("error", "message"), [
    pytest.param(RuntimeError("node lookup failed"), "node lookup failed", id="the exception's message"),
    pytest.param(KeyError("n1"), "'n1'", id="str() of the exception, as err.Error()"),
    pytest.param(ValueError(), "ValueError", id="no message: the type name"),
    pytest.param(UnprintableError(), "UnprintableError (str() raised RuntimeError)", id="str() raising: named"),
    pytest.param("plain text", "plain text", id="a message"),
])
def test_as_error_carries_the_message_as_kube_as_status_does(error: BaseException | str, message: str) -> None:
    """Status.as_error(err) is an Error whose reason is err's message (kube's AsStatus uses err.Error()), not
    ``Type: message``; the exception stays on the status for reports."""
    status = Status.as_error(error, plugin="P")
    assert (status.code, status.reasons, status.plugin) == (Code.ERROR, (message,), "P")
    assert status.error is (error if isinstance(error, BaseException) else None)
