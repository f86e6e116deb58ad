"""How the API server refuses a pod: 403 Forbidden from an admission plugin, 422 Invalid from the validation that
runs after the mutating plugins, each worded as the v1.32 API server words it, and as the loader's located lines."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from kubesched.errors import InputError, KubeschedError
from kubesched.validation import quote

FORBIDDEN = "Forbidden"
INVALID = "Invalid"


def aggregate(messages: Sequence[str]) -> str:
    """utilerrors.Aggregate's text: one message alone, several deduplicated in brackets, comma-separated."""
    seen = list(dict.fromkeys(messages))
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


@attrs.frozen
class Cause:
    """One reason a pod is refused: the field it concerns (empty for the pod as a whole) and the reason."""

    field: str
    detail: str


class AdmissionError(KubeschedError):
    """A pod the API server refuses at creation: ``reason`` FORBIDDEN (an admission plugin, HTTP 403) or INVALID
    (validation after the mutating plugins, HTTP 422), with every cause in the API server's order."""

    def __init__(self, reason: str, pod_name: str, causes: Sequence[Cause]) -> None:
        self.reason = reason
        self.pod_name = pod_name
        self.causes = tuple(causes)
        super().__init__(self.api_message())

    def api_message(self) -> str:
        """The API server's message: ``pods "web" is forbidden: ...`` or ``Pod "web" is invalid: ...``."""
        if self.reason == FORBIDDEN:
            return f"pods {quote(self.pod_name)} is forbidden: {aggregate([c.detail for c in self.causes])}"
        details = [f"{c.field}: {c.detail}" if c.field else c.detail for c in self.causes]
        return f"Pod {quote(self.pod_name)} is invalid: {aggregate(details)}"

    def input_errors(self, obj: str, *, field_prefix: str = "") -> list[InputError]:
        """The loader's lines, one per cause located at its field: a forbidden cause keeps the API server's
        ``pods "web" is forbidden:`` start, an invalid one reads as every other validation problem."""
        errors = []
        for cause in dict.fromkeys(self.causes):
            message = (f"pods {quote(self.pod_name)} is forbidden: {cause.detail}" if self.reason == FORBIDDEN
                       else cause.detail)
            field = field_prefix + cause.field if cause.field else (field_prefix.rstrip(".") or None)
            errors.append(InputError(message, obj=obj, field=field))
        return errors


def forbidden(pod_name: str, detail: str, field: str = "") -> AdmissionError:
    """One admission plugin's refusal (admission.NewForbidden)."""
    return AdmissionError(FORBIDDEN, pod_name, [Cause(field, detail)])
