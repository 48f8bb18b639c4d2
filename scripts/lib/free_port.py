#!/usr/bin/env python3
"""Prints free loopback TCP ports for servers the tests start: free_port.py [OFFSET [COUNT]].

Prints COUNT ports (default 1) on one line, each free on 127.0.0.1 right now together with port+OFFSET
(default 0; SeaweedFS listens for gRPC on its HTTP port + 10000). Ports are chosen below the kernel's
ephemeral range (ip_local_port_range), so no outgoing connection is given one before its server binds
it, and never one (or its +OFFSET twin) handed out in the last 10 minutes by any caller on this machine:
a ledger under a lock ($TMPDIR/krabka-e2e-ports.ledger) is shared by every stage and scenario, so two
calls in a row, two scenarios at once or two stages at once never get the same port.
"""
import fcntl
import os
import random
import socket
import sys
import time

KEEP_SECONDS = 600


def ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = map(int, f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def recent_ports(ledger, now):
    recent = {}
    ledger.seek(0)
    for line in ledger:
        fields = line.split()
        if len(fields) != 2 or not fields[0].isdigit():
            continue
        try:
            at = float(fields[1])
        except ValueError:
            continue
        if now - at < KEEP_SECONDS:
            recent[int(fields[0])] = at
    return recent


def main():
    offset = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    low, high = ephemeral_range()
    first, last = (10000, low - 1) if low > 12000 else (high + 1, 65535)
    last -= offset
    if last <= first:
        sys.exit(f"no port range for an offset of {offset}")
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "krabka-e2e-ports.ledger")
    now = time.time()
    with open(path, "a+") as ledger:
        fcntl.flock(ledger, fcntl.LOCK_EX)
        taken = recent_ports(ledger, now)
        chosen = []
        for _ in range(20000):
            if len(chosen) == count:
                break
            port = random.randint(first, last)
            wanted = {port, port + offset}
            if any(p in taken for p in wanted) or not all(bindable(p) for p in wanted):
                continue
            for p in wanted:
                taken[p] = now
            chosen.append(port)
        if len(chosen) < count:
            sys.exit(f"no free port found between {first} and {last}")
        ledger.seek(0)
        ledger.truncate()
        ledger.writelines("%d %f\n" % item for item in taken.items())
    print(" ".join(map(str, chosen)))


if __name__ == "__main__":
    main()
