"""A TCP proxy on 127.0.0.1 whose :meth:`cut` blackholes every connection: bytes are read and dropped, nothing
is closed, so a client behind it waits for answers that never come (a network partition, not a refused port)."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

import yaml


class BlackholeProxy:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``target`` until cut; closed by :meth:`close`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self._cut = threading.Event()
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = [self.listener]
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def cut(self) -> None:
        """From now on drop every byte both ways, and connect new clients to nothing."""
        self._cut.set()

    def close(self) -> None:
        """Close every socket."""
        self._closed.set()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.close()

    def _keep(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self._keep(client)
            if self._cut.is_set():
                threading.Thread(target=self._pump, args=(client, None), daemon=True).start()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            self._keep(upstream)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket | None) -> None:
        while not self._closed.is_set():
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                if sink is not None and not self._cut.is_set():
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)
                return
            if sink is None or self._cut.is_set():
                continue
            try:
                sink.sendall(data)
            except OSError:
                return

    def kubeconfig(self, original: Path, path: Path) -> Path:
        """A copy of ``original`` whose server is this proxy (the certificate names 127.0.0.1, so TLS verifies)."""
        config = yaml.safe_load(original.read_text())
        for cluster in config["clusters"]:
            cluster["cluster"]["server"] = f"https://127.0.0.1:{self.port}"
        path.write_text(yaml.safe_dump(config))
        return path
