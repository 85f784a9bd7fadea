"""A TCP forwarder on loopback to a real server, to play a network outage.

Tests point a client (Django's database or cache) at the forwarder's port
instead of the server's, then ``cut()`` it — the port refuses and every
connection through it is reset, as when the server restarts or the network
fails — and ``open()`` it again.
"""

import contextlib
import socket
import threading

from scripts.support.servers import free_port


def service_answers(address: tuple[str, int]) -> bool:
    """Whether something accepts connections at ``address``."""
    try:
        socket.create_connection(address, timeout=1).close()
    except OSError:
        return False
    return True


class Forwarder:
    """Forward connections to ``127.0.0.1:port`` to ``target``, until cut."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.connections = 0  # accepted since the start

    def open(self) -> None:
        """Listen on the port and forward whatever connects."""
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(
            target=self._accept, args=(self._listener,), daemon=True
        ).start()

    def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        with self._lock:
            # A socket closed while another thread waits in accept() would
            # go on listening: shut it down first, which ends that wait.
            if self._listener is not None:
                self._sockets.append(self._listener)
                self._listener = None
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # cut
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self.connections += 1
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(
                    target=self._pipe, args=(source, sink), daemon=True
                ).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)
