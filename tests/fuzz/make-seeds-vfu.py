#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed corpus of fuzz-vfu (corpus/vfu): client sessions in the
target's encoding (fuzz-vfu.c: u8 ctl, u16 len, message), as QEMU's
vfio-user-pci opens a device, plus a few malformed requests."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'corpus', 'vfu')


def hdr(cmd, size, flags=0, mid=1):
    return struct.pack('<HHIII', mid, cmd, size, flags, 0)


def m(cmd, payload=b'', ctl=0, flags=0):
    body = hdr(cmd, 16 + len(payload), flags) + payload
    return struct.pack('<BH', ctl, len(body)) + body


def rr(region, off, count):
    return m(9, struct.pack('<QII', off, region, count))


def rw(region, off, data, posted=False):
    return m(10, struct.pack('<QII', off, region, len(data)) + data,
             flags=0x10 if posted else 0)


def irqs(flags, index, start, count, ctl=0, extra=b''):
    return m(8, struct.pack('<IIIII', 20, flags, index, start, count) + extra,
             ctl=ctl)


def dma_map(iova, size, off=0, fd=True):
    return m(2, struct.pack('<IIQQQ', 32, 3, off, iova, size), ctl=1 if fd else 0)


probe = (m(4, struct.pack('<IIII', 16, 0, 0, 0)) +
         b''.join(m(5, struct.pack('<IIIIQQ', 32, 0, i, 0, 0, 0)) for i in range(9)) +
         b''.join(m(7, struct.pack('<IIII', 16, 0, i, 0)) for i in range(4)) +
         rr(7, 0, 256) + rr(7, 0x100, 16))
enable = (rw(7, 4, struct.pack('<H', 6)) + rw(7, 0x72, struct.pack('<H', 0x803F)) +
          irqs(0x24, 2, 0, 2, ctl=4))
seeds = {
    'probe': probe,
    'bar0': probe + rr(0, 0xB6008, 4) + rw(0, 0x80200, struct.pack('<I', 0x800000C0)) +
            rw(0, 0x80200, struct.pack('<I', 0x80000040), posted=True) + rr(0, 0x80200, 4),
    'dma': dma_map(0x100000, 0x10000) + dma_map(0x110000, 0x1000, fd=False) + enable +
           m(3, struct.pack('<IIQQ', 24, 0, 0x100000, 0x10000)) + m(3, struct.pack('<IIQQ', 24, 2, 0, 0)),
    'irqs': enable + irqs(0x21, 2, 1, 1) + irqs(0x08 | 1, 2, 0, 1) + irqs(0x10 | 1, 2, 0, 1) +
            irqs(0x22, 2, 0, 2, extra=b'\1\1') + rr(3, 0x8000, 8) + rw(3, 12, struct.pack('<I', 1)) +
            irqs(0x21, 2, 0, 0) + m(13),
    'multi': m(15, struct.pack('<Q', 2) + struct.pack('<QII8s', 0x80200, 0, 4, b'\xc0\0\0\x80') +
               struct.pack('<QII8s', 4, 7, 2, b'\x06'), flags=0x10),
    'malformed': (struct.pack('<BH', 0, 8) + hdr(4, 8)[:8] + rr(7, 0xFFFFFFFFFFFFFFF0, 32) +
                  rr(9, 0, 4) + rr(7, 4090, 8) + m(99) + irqs(0x24, 2, 0xFFFFFFFF, 2) +
                  irqs(0x24, 2, 0, 9, ctl=6) + dma_map(0x1001, 0x1000) +
                  dma_map(0xFFFFFFFFFFFFF000, 0x2000) + m(4, ctl=1)),
}
os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)
