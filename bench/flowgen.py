#!/usr/bin/env python3
"""Load for bench/flows.sh: TCP flows on loopback in the current namespace.

  flowgen.py churn RATE SECONDS   open, send 1 KB, close RATE flows a second
                                  (RATE 0: as fast as it can); prints the
                                  flows made and their rate
  flowgen.py hold N SECONDS       hold N connections (2N sockets) open
"""
import selectors
import socket
import sys
import threading
import time


def server():
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(4096)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ)

    def loop():
        while True:
            for key, _ in sel.select():
                s = key.fileobj
                if s is ls:
                    c, _ = ls.accept()
                    c.setblocking(False)
                    sel.register(c, selectors.EVENT_READ)
                    continue
                try:
                    b = s.recv(65536)
                except (BlockingIOError, ConnectionError):
                    b = b""
                if not b:
                    sel.unregister(s)
                    s.close()

    threading.Thread(target=loop, daemon=True).start()
    return ls.getsockname()


def churn(rate, secs):
    addr = server()
    payload = b"x" * 1024
    n, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < secs:
        c = socket.create_connection(addr)
        c.sendall(payload)
        c.close()
        n += 1
        if rate > 0:
            ahead = n / rate - (time.monotonic() - t0)
            if ahead > 0:
                time.sleep(ahead)
    dt = time.monotonic() - t0
    time.sleep(0.5)  # let the server close its ends
    print(f"{n} {n / dt:.0f}")


def hold(n, secs):
    addr = server()
    conns = [socket.create_connection(addr) for _ in range(n)]
    print(len(conns), flush=True)
    time.sleep(secs)


if __name__ == "__main__":
    mode, a, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    churn(a, secs) if mode == "churn" else hold(a, secs)
