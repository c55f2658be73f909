#!/usr/bin/env python3
"""A deliberately intolerant TLS front end for tests/integration/check_*.sh: the kind of
load balancer or middlebox that reads the first segment and expects the whole ClientHello
in it (the tldr.fail class of bugs).

    intolerant.py READY_FILE BACKEND_HOST:BACKEND_PORT [LISTEN_HOST:LISTEN_PORT]

Listens on LISTEN (default a free loopback port; written to READY_FILE as HOST:PORT once
listening: on a link's server address, a browser's ClientHello arrives at the link's MSS). For
each connection it reads until the first TLS record (the ClientHello) is complete, then
asks the kernel how many data segments carried it (TCP_INFO tcpi_data_segs_in): more than
one, and it closes the connection without a word; one, and it relays the connection to
the backend both ways, untouched. Deterministic: it counts segments, it does not race
the sender. Runs until killed.
"""
import os
import socket
import struct
import sys
import threading

# struct tcp_info (linux/tcp.h, append-only ABI): tcpi_data_segs_in is the u32 at 152.
TCPI_DATA_SEGS_IN = 152
TCP_INFO_LEN = 232


def data_segs_in(sock):
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    if len(info) < TCPI_DATA_SEGS_IN + 4:
        raise OSError("kernel TCP_INFO too short for tcpi_data_segs_in")
    return struct.unpack_from("I", info, TCPI_DATA_SEGS_IN)[0]


def read_record(sock):
    """The first TLS record's bytes, or None when the client closes first."""
    buf = b""
    while len(buf) < 5 or len(buf) < 5 + struct.unpack_from(">H", buf, 3)[0]:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf += chunk
    return buf


def pipe(src, dst):
    try:
        while True:
            chunk = src.recv(65536)
            if not chunk:
                break
            dst.sendall(chunk)
    except OSError:
        pass
    for s in (dst, src):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client, backend):
    try:
        first = read_record(client)
        if first is None or data_segs_in(client) > 1:
            client.close()  # the ClientHello did not come in one segment: drop it
            return
        up = socket.create_connection(backend)
        up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        up.sendall(first)
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(up, client), daemon=True).start()
    pipe(client, up)
    client.close()
    up.close()


def main():
    ready, backend = sys.argv[1], sys.argv[2]
    host, port = backend.rsplit(":", 1)
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lhost, lport = sys.argv[3].rsplit(":", 1) if len(sys.argv) > 3 else ("127.0.0.1", "0")
    lst.bind((lhost, int(lport)))
    lst.listen(64)
    with open(ready + ".tmp", "w") as f:
        f.write("%s:%d\n" % (lhost, lst.getsockname()[1]))
    os.rename(ready + ".tmp", ready)
    while True:
        client, _ = lst.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(client, (host, int(port))), daemon=True).start()


if __name__ == "__main__":
    main()
