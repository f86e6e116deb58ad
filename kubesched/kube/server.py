"""The health and metrics endpoints: ``/healthz``, ``/readyz`` and ``/metrics`` over plain HTTP."""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from kubesched.errors import KubeschedError


def parse_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) as a pair; a user error names the flag."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise KubeschedError(f'--metrics-bind-address: invalid value "{address}": want HOST:PORT')
    return host.strip("[]") or "0.0.0.0", int(port)


def exposure_warning(address: str) -> str | None:
    """The warning for a bind address other processes can reach (None for loopback): the endpoints have no
    authentication and no TLS."""
    host, _ = parse_address(address)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        if host == "localhost":
            return None
        where = f"on whatever interfaces {host} resolves to"
    else:
        if ip.is_loopback:
            return None
        where = "on every interface" if ip.is_unspecified else f"on {host}"
    return (f"--metrics-bind-address {address}: /metrics, /healthz and /readyz are served over plain HTTP without "
            f"authentication {where}; keep the loopback default and put an authenticating proxy in front "
            "(see docs/running-in-a-cluster.md, \"The endpoints\")")


class HealthServer:
    """Serves the endpoints from a thread; ``healthy`` and ``ready`` return "" when fine, else the reason."""

    def __init__(self, address: str, registry: CollectorRegistry, healthy: Callable[[], str],
                 ready: Callable[[], str]) -> None:
        host, port = parse_address(address)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    self._send(200, generate_latest(registry), CONTENT_TYPE_LATEST)
                elif path in ("/healthz", "/readyz", "/livez"):
                    problem = (ready if path == "/readyz" else healthy)()
                    self._send(500 if problem else 200, (problem or "ok").encode(), "text/plain; charset=utf-8")
                else:
                    self._send(404, b"404 page not found\n", "text/plain; charset=utf-8")

            def _send(self, code: int, body: bytes, content_type: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        try:
            self.httpd = ThreadingHTTPServer((host, port), Handler)
        except OSError as error:
            raise KubeschedError(f"--metrics-bind-address: cannot listen on {address}: {error.strerror}") from None
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="health-server", daemon=True)

    def start(self) -> None:
        """Start serving."""
        self.thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.httpd.shutdown()
        self.httpd.server_close()
