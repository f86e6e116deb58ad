"""``kubesched run``'s duration flags: Go durations as kube-scheduler reads them, checked together."""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.api.timespec import TimeSpecError, parse_duration
from kubesched.errors import KubeschedError

#: client-go's leaderelection JitterFactor: the renew deadline must exceed the retry period times this.
JITTER_FACTOR = 1.2


def durations(flags: Mapping[str, str], problems: list[KubeschedError]) -> dict[str, float] | None:
    """Each flag's value in seconds, or None after adding every problem to ``problems``: a value that is not a
    positive duration, and leader-election timings client-go would refuse (lease duration > renew deadline >
    1.2 x retry period)."""
    seconds: dict[str, float] = {}
    found = len(problems)
    for flag, text in flags.items():
        try:
            value = parse_duration(text)
        except TimeSpecError as error:
            problems.append(KubeschedError(f'{flag}: invalid value "{text}": {error}'))
            continue
        if value <= 0:
            problems.append(KubeschedError(f'{flag}: invalid value "{text}": must be greater than zero'))
            continue
        seconds[flag] = value
    lease = seconds.get("--leader-elect-lease-duration")
    renew = seconds.get("--leader-elect-renew-deadline")
    retry = seconds.get("--leader-elect-retry-period")
    if lease is not None and renew is not None and not lease > renew:
        problems.append(KubeschedError("--leader-elect-lease-duration must be greater than "
                                       "--leader-elect-renew-deadline"))
    if renew is not None and retry is not None and not renew > JITTER_FACTOR * retry:
        problems.append(KubeschedError(f"--leader-elect-renew-deadline must be greater than {JITTER_FACTOR:g} x "
                                       "--leader-elect-retry-period"))
    return seconds if len(problems) == found else None
