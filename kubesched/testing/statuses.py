"""Status matching for tests: kube-scheduler's tables compare a plugin's status by code and reasons, while a
status the framework returns also names the plugin that produced it (and may carry the exception behind an
Error). ``like(Status.unresolvable("..."))`` equals any Status with that code and those reasons."""

from __future__ import annotations

from kubesched.framework._status import Code, Status


class StatusMatcher:
    """Equal to a Status with the same code and reasons (and ``plugin``, when given); a Success matcher with no
    reasons also equals None, which means Success everywhere a status is returned."""

    __slots__ = ("code", "plugin", "reasons")

    def __init__(self, code: Code, reasons: tuple[str, ...], plugin: str | None = None) -> None:
        self.code = code
        self.reasons = reasons
        self.plugin = plugin

    def __eq__(self, other: object) -> bool:
        if other is None:
            return self.code is Code.SUCCESS and not self.reasons and not self.plugin
        if isinstance(other, StatusMatcher):
            return (self.code, self.reasons, self.plugin) == (other.code, other.reasons, other.plugin)
        if not isinstance(other, Status):
            return NotImplemented
        return other.code is self.code and other.reasons == self.reasons and \
            (self.plugin is None or other.plugin == self.plugin)

    def __hash__(self) -> int:
        return hash((self.code, self.reasons))

    def __repr__(self) -> str:
        plugin = f", plugin={self.plugin!r}" if self.plugin is not None else ""
        return f"like({self.code.label}{''.join(f', {r!r}' for r in self.reasons)}{plugin})"


def like(status: Status | None, *, plugin: str | None = None) -> StatusMatcher:
    """A matcher equal to any Status with ``status``'s code and reasons, whatever plugin it names (or exactly
    ``plugin``); ``like(None)`` matches Success and None."""
    if status is None:
        return StatusMatcher(Code.SUCCESS, (), plugin)
    return StatusMatcher(status.code, status.reasons, plugin)
