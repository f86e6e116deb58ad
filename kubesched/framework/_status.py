"""Status: the result of running a plugin, with kube-scheduler's codes and meanings."""

from __future__ import annotations

import enum

import attrs


class Code(enum.IntEnum):
    """Status codes, in kube-scheduler's order."""

    SUCCESS = 0
    #: An unexpected failure; the pod is retried after backoff.
    ERROR = 1
    #: Rejected, but preemption might make room on this node.
    UNSCHEDULABLE = 2
    #: Rejected, and preemption cannot help on this node.
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    #: Permit only: hold the pod until allowed, rejected or timed out.
    WAIT = 4
    #: PreFilter/PreScore: skip this plugin's Filter/Score; Bind: let the next binder try.
    SKIP = 5
    #: Scheduling should stop for now without counting as unschedulable; retried without backoff.
    PENDING = 6

    @property
    def label(self) -> str:
        """The code's name as kube-scheduler spells it (``UnschedulableAndUnresolvable``)."""
        return _LABELS[self]


#: Each code's label, spelled once (metrics label every sampled plugin call with one).
_LABELS = {code: "".join(part.capitalize() for part in code.name.split("_")) for code in Code}
_REJECTED = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


@attrs.frozen(slots=True)
class Status:
    """A plugin's verdict: a code, human-readable reasons and the plugin that produced it.

    Plugins may return ``None`` instead of a success Status; the framework treats both alike.
    """

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    error: BaseException | None = None

    @classmethod
    def success(cls) -> Status:
        """A success status (one shared instance: statuses are immutable)."""
        return _SUCCESS_STATUS if cls is Status else cls(Code.SUCCESS)

    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        """Rejected; preemption may help."""
        return cls(Code.UNSCHEDULABLE, reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        """Rejected with UnschedulableAndUnresolvable; preemption cannot help."""
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)

    @classmethod
    def skip(cls) -> Status:
        """Skip the paired extension point (or, from Bind, let the next binder try); one shared instance."""
        return _SKIP_STATUS if cls is Status else cls(Code.SKIP)

    @classmethod
    def wait(cls, *reasons: str) -> Status:
        """Permit asks the pod to wait."""
        return cls(Code.WAIT, reasons)

    @classmethod
    def pending(cls, *reasons: str) -> Status:
        """Stop scheduling this pod for now; it is retried without backoff."""
        return cls(Code.PENDING, reasons)

    @classmethod
    def as_error(cls, error: BaseException | str, *, plugin: str = "") -> Status:
        """An Error status wrapping an exception (its message, as kube-scheduler's AsStatus uses ``err.Error()``; the
        exception's type name when it has no message) or a message."""
        if isinstance(error, BaseException):
            return cls(Code.ERROR, (_message(error),), plugin, error)
        return cls(Code.ERROR, (error,), plugin)

    def is_success(self) -> bool:
        """Success (a ``None`` status counts too, see :func:`is_success`)."""
        return self.code is Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in _REJECTED

    def is_skip(self) -> bool:
        """The Skip code."""
        return self.code is Code.SKIP

    def is_wait(self) -> bool:
        """The Wait code."""
        return self.code is Code.WAIT

    def message(self) -> str:
        """The reasons joined with ", "."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        """This status attributed to ``plugin`` (the framework records who rejected)."""
        return self if self.plugin == plugin else Status(self.code, self.reasons, plugin, self.error)

    def __str__(self) -> str:
        text = self.code.label
        if self.reasons:
            text += f": {self.message()}"
        return text


_SUCCESS_STATUS = Status(Code.SUCCESS)
_SKIP_STATUS = Status(Code.SKIP)


def _message(error: BaseException) -> str:
    """The exception's message; its type name when it has none, or when ``str()`` itself fails (named then)."""
    name = type(error).__name__
    try:
        text = str(error)
    except (Exception, SystemExit) as inner:
        return f"{name} (str() raised {type(inner).__name__})"
    return text or name


def is_success(status: Status | None) -> bool:
    """Whether a plugin result means success (``None`` does)."""
    return status is None or status.code is Code.SUCCESS
