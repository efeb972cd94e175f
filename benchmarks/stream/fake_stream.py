#!/usr/bin/env python3
"""A fast fake of the platform's activity stream, for benchmarks/stream.sh.

Every connection to any path (the consumer asks GET /2/activity/stream, tweepy asks
/2/tweets/search/stream) gets a chunked 200 answer. The first connection receives EVENTS lines of
about 190 bytes, each a distinct event whose id is shaped like the platform's (IDS=padded: the
zero-padded ids of earlier runs), written as prepared chunks of CHUNK bytes; then it and every
later connection get only a keep-alive newline every 20 s, until the client hangs up. The
lines are built once, before the port is announced, so the fake writes them as fast as the
socket takes them: it measures the reader, not itself.

usage: fake_stream.py EVENTS [CHUNK]   prints "port <n>" once listening on 127.0.0.1
"""
import os
import socket
import sys
import threading
import time


# The platform's event_uuids are 19-digit decimals (PROTOCOL.md's sample: "1876..."); IDS=padded
# gives 12-digit zero-padded ones instead, which a consumer must keep as strings.
FIRST_ID = 1876000000000000000


def event_id(i, shape):
    return b"%012d" % i if shape == "padded" else b"%d" % (FIRST_ID + i)


def lines(n, shape):
    head = b'{"data":{"event_type":"post.mention.create","event_uuid":"'
    tail = (b'","filter":{"user_id":"2244994945"},"tag":"bench",'
            b'"payload":{"id":"1","text":"@hooks_demo hi","author_id":"42"}}}\n')
    for i in range(n):
        yield head + event_id(i, shape) + tail


def chunks(n, size, shape):
    out, buf, length = [], [], 0
    for line in lines(n, shape):
        buf.append(line)
        length += len(line)
        if length >= size:
            body = b"".join(buf)
            out.append(b"%x\r\n" % len(body) + body + b"\r\n")
            buf, length = [], 0
    if buf:
        body = b"".join(buf)
        out.append(b"%x\r\n" % len(body) + body + b"\r\n")
    return out


def serve(conn, prepared, first):
    try:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request = b""
        while b"\r\n\r\n" not in request:
            part = conn.recv(4096)
            if not part:
                return
            request += part
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        if first:
            started = time.monotonic()
            for chunk in prepared:
                conn.sendall(chunk)
            print("sent %.3f s" % (time.monotonic() - started), flush=True)
        while True:
            conn.sendall(b"1\r\n\n\r\n")
            time.sleep(20)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    events = int(sys.argv[1])
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 65536
    prepared = chunks(events, size, os.environ.get("IDS", "platform"))
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    print("port %d" % server.getsockname()[1], flush=True)
    first = True
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, prepared, first), daemon=True).start()
        first = False


if __name__ == "__main__":
    main()
