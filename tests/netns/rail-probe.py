#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# The rails test's probes, in the calling network namespace (root):
#   rail-probe.py ping DST COUNT      ICMP echoes; prints how many were answered
#   rail-probe.py arp IFNAME SRC DST  one ARP request for DST from SRC on IFNAME;
#                                     prints the MAC that answered, or "none"
# Exit 0 when everything was answered, 1 when not.
import os
import select
import socket
import struct
import sys
import time


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def wait(sock, deadline, match):
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return None
        got = match(sock.recv(2048))
        if got:
            return got


def ping(dst, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    ident = os.getpid() & 0xFFFF
    answered = 0
    for seq in range(1, count + 1):
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"rails"
        pkt = struct.pack("!BBHHH", 8, 0, csum(hdr), ident, seq) + b"rails"
        s.sendto(pkt, (dst, 0))

        def reply(data, seq=seq):
            ihl = (data[0] & 0xF) * 4
            t, _, _, i, q = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            return t == 0 and i == ident and q == seq and socket.inet_ntoa(data[12:16]) == dst

        if wait(s, time.monotonic() + 1.0, reply):
            answered += 1
    print(answered)
    return answered == count


def arp(ifname, src, dst):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806))
    s.bind((ifname, 0x0806))
    mac = s.getsockname()[4][:6]
    spa, tpa = socket.inet_aton(src), socket.inet_aton(dst)
    req = (b"\xff" * 6 + mac + b"\x08\x06" +
           struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + mac + spa + b"\0" * 6 + tpa)
    s.send(req)

    def reply(data):
        if len(data) < 42 or data[12:14] != b"\x08\x06":
            return None
        if struct.unpack("!H", data[20:22])[0] == 2 and data[28:32] == tpa:
            return data[22:28]
        return None

    got = wait(s, time.monotonic() + 1.0, reply)
    print(":".join("%02x" % b for b in got) if got else "none")
    return bool(got)


if __name__ == "__main__":
    if sys.argv[1:2] == ["ping"] and len(sys.argv) == 4:
        sys.exit(0 if ping(sys.argv[2], int(sys.argv[3])) else 1)
    if sys.argv[1:2] == ["arp"] and len(sys.argv) == 5:
        sys.exit(0 if arp(*sys.argv[2:5]) else 1)
    sys.stderr.write(__doc__ or "usage: rail-probe.py ping DST COUNT | arp IFNAME SRC DST\n")
    sys.exit(2)
