"""Before anything starts: can the API server be reached, and does it accept these credentials?

``kubesched run`` probes the server (a one-item list of nodes, which its ClusterRole allows) until it answers,
for at most ``--api-timeout``; a server that cannot be reached, whose certificate does not verify against the
configured CA, or that rejects the token then ends the run with one line naming the server and what failed,
instead of retrying in silence for ever. ``--keep-trying`` keeps probing (for a control plane still coming up).
Outages after this first answer are ridden out as before: the informers resume and relist.
"""

from __future__ import annotations

import logging
import re
import threading
import time

from kubesched.errors import KubeschedError
from kubesched.kube.rest import ApiError, KubeApi

log = logging.getLogger(__name__)

PROBE_PATH = "/api/v1/nodes"
INITIAL_BACKOFF = 0.5
MAX_BACKOFF = 5.0
PROBE_TIMEOUT = 10.0
_VERIFY_DETAIL = re.compile(r"certificate verify failed: ([^()'\"]+)")


class UnreachableError(KubeschedError):
    """The API server could not be reached, or refused the credentials, within ``--api-timeout``."""


def describe(error: ApiError) -> str:
    """What failed, in one phrase a user can act on."""
    text = " ".join(error.message.split())
    lowered = text.lower()
    if error.status == 0:
        if "certificate_verify_failed" in lowered or "certificate verify failed" in lowered:
            found = _VERIFY_DETAIL.search(text)
            return "certificate verify failed" + (f" ({found.group(1).strip()})" if found else "") + \
                ": the server's certificate is not signed by the kubeconfig's certificate authority"
        if "refused" in lowered:
            return "could not reach it: connection refused"
        if "timed out" in lowered or "timeout" in lowered:
            return "could not reach it: no answer (timed out)"
        return f"could not reach it: {text}"
    if error.status == 401:
        return "Unauthorized: the token was rejected (check the kubeconfig's credentials)"
    if error.status == 403:
        return f"Forbidden: {text or 'the user may not list nodes'}"
    return f"{error.status} {error.reason}: {text}".rstrip(": ")


def wait_until_reachable(api: KubeApi, timeout: float, keep_trying: bool, stopping: threading.Event) -> bool:
    """Probe until the server answers (True), ``stopping`` is set (False), or ``timeout`` seconds pass without an
    answer (raises :class:`UnreachableError` with the last failure); with ``keep_trying``, probe for ever."""
    deadline = time.monotonic() + timeout
    backoff = INITIAL_BACKOFF
    while not stopping.is_set():
        left = deadline - time.monotonic()
        try:
            api.request("GET", PROBE_PATH, params={"limit": 1},
                        timeout=PROBE_TIMEOUT if keep_trying else max(0.1, min(PROBE_TIMEOUT, left)))
            return True
        except ApiError as error:
            problem = describe(error)
        left = deadline - time.monotonic()
        if not keep_trying and left <= 0:
            raise UnreachableError(
                f"API server {api.host}: {problem} (gave up after {timeout:g} s: --api-timeout sets how long to "
                "try, --keep-trying tries for ever)")
        log.warning("API server %s: %s; trying again in %.1f s", api.host, problem, backoff)
        stopping.wait(backoff if keep_trying else min(backoff, max(0.0, left)))
        backoff = min(backoff * 2, MAX_BACKOFF)
    return False
