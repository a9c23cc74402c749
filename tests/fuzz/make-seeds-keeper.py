#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed corpus of fuzz-keeper (corpus/keeper) and its regression
input (regress/keeper): the device process's notes (VfuKeep, x86-64
layout) followed by what the client sends once the keeper took over."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OWED_MAX = 24
READ, WRITE, MAP, UNMAP, VERSION = 9, 10, 2, 3, 1


def hdr(cmd, size, flags=0, mid=1):
    return struct.pack('<HHIII', mid, cmd, size, flags, 0)


def page(rx=0, msg_start=0, head=b'', tx=0, tx_end=0, nowed=0, owed=(),
         lost=0):
    o = list(owed) + [(0, 0)] * (OWED_MAX - len(owed))
    b = struct.pack('<QQ16sQQI', rx, msg_start, head.ljust(16, b'\0'), tx,
                    tx_end, nowed)
    b += b''.join(struct.pack('<HH', i, c) for i, c in o)
    b += b'\0' * 4 + struct.pack('<Q', lost)
    assert len(b) == 160
    return b


def rw(mid, cmd, count, data=b''):
    body = struct.pack('<QII', 0x100, 0, count) + data
    return hdr(cmd, 16 + len(body), mid=mid) + body


SESSION = (rw(2, READ, 4) + rw(3, WRITE, 4, b'\x01\x02\x03\x04') +
           hdr(VERSION, 16, mid=4) + hdr(UNMAP, 16 + 24, mid=5) + b'\0' * 24)

SEEDS = {
    'clean': page() + SESSION,
    'cut-reply': page(tx=100, tx_end=132) + SESSION,
    'half-header': page(rx=40, msg_start=34, head=hdr(READ, 32)[:6]) +
    hdr(READ, 32)[6:] + struct.pack('<QII', 0, 0, 4) + SESSION,
    'owed': page(nowed=3, owed=[(7, READ), (8, WRITE), (9, MAP)]) + SESSION,
    'body-left': page(rx=60, msg_start=20, head=hdr(WRITE, 16 + 16 + 64)) +
    b'\xAA' * 36 + SESSION,
}
REGRESS = {
    # issue 32: nowed far past the list, a header half read: the keeper
    # once appended an owed entry 4 GiB past the page.
    'nowed-past-list': page(nowed=0x40000000, rx=1004, msg_start=1000,
                            head=hdr(READ, 16, mid=900)[:4]) +
    hdr(READ, 16, mid=900)[4:] + SESSION,
}

for d, seeds in (('corpus', SEEDS), ('regress', REGRESS)):
    out = os.path.join(HERE, d, 'keeper')
    os.makedirs(out, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
