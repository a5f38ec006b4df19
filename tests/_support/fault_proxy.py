"""A fault-injecting HTTP proxy on 127.0.0.1, in front of a local S3 server (moto), for tests.

Each request the client sends is read whole, then, by a seeded random draw (one
draw per request, under a lock, so a run with one client thread is repeatable),
either passed on untouched or given one fault:

=================  ===========================================================
``reset_before``   the connection is reset before the request reaches S3
``reset_after``    the request reaches S3; the reply's headers are sent, then a reset
``truncated``      the reply's headers and half its body, then the connection closes
``delay``          the reply is held back ``delay`` seconds (below the client's timeout)
``trickle``        the reply is sent a few bytes at a time, with short pauses
``http_500``       an S3 ``InternalError`` reply (500), S3 not asked
``http_503``       an S3 ``SlowDown`` reply (503), S3 not asked
=================  ===========================================================

Requests are forwarded on a new upstream connection each; the reply is read whole
(``http.client`` undoes a chunked transfer) and written back with a Content-Length.
The proxy keeps a count of every fault it injected (:attr:`FaultProxy.injected`).

:meth:`FaultProxy.fail_always` turns the random draw into a rule, so that the
client's retries run out: every request whose target contains a given key (or
every request after the first *after* ones) gets the same fault, every time.
"""

from __future__ import annotations

import http.client
import random
import socket
import struct
import threading
import time
from collections import Counter
from typing import Any, Callable, Sequence

__all__ = ["FAULTS", "FaultProxy"]

FAULTS = ("reset_before", "reset_after", "truncated", "delay", "trickle", "http_500", "http_503")

_ERRORS = {
    500: ("Internal Server Error", "InternalError", "We encountered an internal error. Please try again."),
    503: ("Slow Down", "SlowDown", "Please reduce your request rate."),
}


def _reset(sock: socket.socket) -> None:
    """Close *sock* with a TCP reset (SO_LINGER 0) instead of an orderly close."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class FaultProxy:
    """Listen on 127.0.0.1 (a free port); forward to *upstream* ``(host, port)``; inject a
    fault into a request with probability *rate*, chosen among *faults* by ``random.Random(seed)``."""

    def __init__(self, upstream: tuple[str, int], seed: int, rate: float = 0.3,
                 faults: Sequence[str] = FAULTS, delay: float = 0.3) -> None:
        if upstream[0] != "127.0.0.1":
            raise ValueError("the fault proxy only forwards to 127.0.0.1")
        self.upstream = upstream
        self.rng = random.Random(seed)
        self.rate = rate
        self.faults = tuple(faults)
        self.delay = delay
        self.enabled = True
        self.lock = threading.Lock()
        self.injected: Counter[str] = Counter()
        self.requests = 0
        self.always: tuple[str, str | None, int] | None = None
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="fault-proxy", daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.stopped.set()
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            pass
        self.listener.close()
        self.thread.join(5)

    def fail_always(self, fault: str | None, key: str | None = None, after: int = 0) -> None:
        """From now on give *fault* to every request whose target (the path in its request
        line) contains *key* (any request when None), once *after* further requests have
        passed untouched; ``fail_always(None)`` goes back to the random draw."""
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}")
        with self.lock:
            self.always = None if fault is None else (fault, key, self.requests + after)

    def _draw(self, target: str = "") -> str | None:
        with self.lock:
            self.requests += 1
            if self.always is not None:
                fault, key, start = self.always
                if self.requests > start and (key is None or key in target):
                    self.injected[fault] += 1
                    return fault
                return None
            if not self.enabled or self.rng.random() >= self.rate:
                return None
            fault = self.rng.choice(self.faults)
            self.injected[fault] += 1
            return fault

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.stopped.is_set():
                client.close()
                return
            threading.Thread(target=self._connection, args=(client,), daemon=True).start()

    # -- one client connection: requests one after another (keep-alive) ---------------------

    def _connection(self, client: socket.socket) -> None:
        client.settimeout(30)
        reader = client.makefile("rb")
        try:
            while True:
                request = _read_request(reader, lambda: client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n"))
                if request is None:
                    break
                head, body, method = request
                if not self._answer(client, head, body, method):
                    return
        except (OSError, ValueError, http.client.HTTPException):
            pass
        finally:
            try:
                reader.close()
                client.close()
            except OSError:
                pass

    def _answer(self, client: socket.socket, head: bytes, body: bytes, method: str) -> bool:
        """Answer one request; False when the connection was closed."""
        fault = self._draw(head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "")
        if fault == "reset_before":
            _reset(client)
            return False
        if fault in ("http_500", "http_503"):
            code = 500 if fault == "http_500" else 503
            reason, s3code, message = _ERRORS[code]
            xml = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{s3code}</Code>'
                   f"<Message>{message}</Message><RequestId>fault</RequestId></Error>").encode()
            client.sendall(f"HTTP/1.1 {code} {reason}\r\nContent-Type: application/xml\r\n"
                           f"Content-Length: {len(xml)}\r\n\r\n".encode() + (b"" if method == "HEAD" else xml))
            return True
        status, reply_head, reply_body = self._forward(head, body, method)
        if fault == "reset_after":
            client.sendall(reply_head)
            _reset(client)
            return False
        if fault == "truncated" and reply_body:
            client.sendall(reply_head + reply_body[:len(reply_body) // 2])
            client.shutdown(socket.SHUT_RDWR)
            client.close()
            return False
        if fault == "delay":
            time.sleep(self.delay)
        data = reply_head + reply_body
        if fault == "trickle":
            step = max(len(data) // 20, 64)
            for i in range(0, len(data), step):
                client.sendall(data[i:i + step])
                time.sleep(0.005)
        else:
            client.sendall(data)
        return True

    def _forward(self, head: bytes, body: bytes, method: str) -> tuple[int, bytes, bytes]:
        up = socket.create_connection(self.upstream, timeout=30)
        try:
            up.sendall(head + body)
            resp = http.client.HTTPResponse(up, method=method)
            resp.begin()
            data = resp.read()
            lines = [f"HTTP/1.1 {resp.status} {resp.reason}".encode()]
            for k, v in resp.getheaders():
                lk = k.lower()
                if lk in ("transfer-encoding", "connection") or (lk == "content-length" and method != "HEAD"):
                    continue
                lines.append(f"{k}: {v}".encode("latin-1"))
            if method != "HEAD":
                lines.append(f"Content-Length: {len(data)}".encode())
            return resp.status, b"\r\n".join(lines) + b"\r\n\r\n", data
        finally:
            up.close()


def _read_request(reader: Any, continue_: Callable[[], None] | None = None) -> tuple[bytes, bytes, str] | None:
    """One request from the client: its head (rewritten to close the upstream connection),
    its body, its method; None at the end of the connection."""
    first = reader.readline(65537)
    if not first:
        return None
    lines = [first]
    length = 0
    chunked = expect = False
    while True:
        line = reader.readline(65537)
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        lname = name.strip().lower()
        if lname == b"content-length":
            length = int(value.strip())
        elif lname == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        if lname == b"expect" and b"100-continue" in value.lower():
            expect = True
            continue
        if lname == b"connection":
            continue
        lines.append(line)
    if expect and continue_ is not None:
        continue_()      # the client waits for this before it sends the body
    if chunked:
        parts = []
        while True:
            size = int(reader.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while reader.readline() not in (b"\r\n", b"\n", b""):
                    pass
                break
            parts.append(reader.read(size))
            reader.readline()
        body = b"".join(parts)
        lines = [ln for ln in lines if not ln.lower().startswith(b"transfer-encoding")]
        lines.append(f"Content-Length: {len(body)}\r\n".encode())
    else:
        body = reader.read(length) if length else b""
    lines.append(b"Connection: close\r\n")
    method = first.split(b" ", 1)[0].decode("latin-1")
    return b"".join(lines) + b"\r\n", body, method
