#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check every RoCEv2 frame (UDP port 4791) of a pcap file.

  roce-check.py PCAP

The ICRC is recomputed here with zlib's CRC-32 (IBA annex A17.3.3: 8 bytes
of 0xFF for the masked LRH, the IP header with TOS/TTL/checksum or class/
flow/hop limit masked, UDP with its checksum masked, the BTH with byte 4
masked, the rest up to the ICRC), independently of the device's code.
Prints one line: frames, bad ICRCs, bad IPv4 checksums, then the count
of each BTH opcode ("op0x04=12 ..."); exits 1 if any frame is bad or
there is none.
"""
import struct
import sys
import zlib


def frames(path):
    d = open(path, 'rb').read()
    magic = struct.unpack('<I', d[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(d):
        _, _, incl, _ = struct.unpack(end + 'IIII', d[off:off + 16])
        off += 16
        yield d[off:off + incl]
        off += incl


def ip_csum_ok(h):
    s = sum(struct.unpack('>10H', h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def main():
    n = bad_icrc = bad_ip = 0
    ops = {}
    for f in frames(sys.argv[1]):
        off, et = 14, struct.unpack('>H', f[12:14])[0]
        if et == 0x8100:
            off, et = 18, struct.unpack('>H', f[16:18])[0]
        if et == 0x0800:
            ihl = (f[off] & 0xF) * 4
            if f[off + 9] != 17:
                continue
            ip_len = struct.unpack('>H', f[off + 2:off + 4])[0]
            hl = ihl
        elif et == 0x86DD:
            if f[off + 6] != 17:
                continue
            ip_len = 40 + struct.unpack('>H', f[off + 4:off + 6])[0]
            hl = 40
        else:
            continue
        udp = off + hl
        if struct.unpack('>H', f[udp + 2:udp + 4])[0] != 4791:
            continue
        n += 1
        pkt = bytearray(f[off:off + ip_len])
        if et == 0x0800:
            if not ip_csum_ok(bytes(pkt[:20])):
                bad_ip += 1
            pkt[1] = 0xFF
            pkt[8] = 0xFF
            pkt[10:12] = b'\xff\xff'
        else:
            pkt[0] |= 0x0F
            pkt[1:4] = b'\xff\xff\xff'
            pkt[7] = 0xFF
        pkt[hl + 6:hl + 8] = b'\xff\xff'
        pkt[hl + 8 + 4] = 0xFF
        want = zlib.crc32(b'\xff' * 8 + bytes(pkt[:-4])) & 0xFFFFFFFF
        if struct.unpack('<I', bytes(pkt[-4:]))[0] != want:
            bad_icrc += 1
        op = f[udp + 8]
        ops[op] = ops.get(op, 0) + 1
    print('frames %d bad_icrc %d bad_ipv4_csum %d %s' % (
        n, bad_icrc, bad_ip,
        ' '.join('op0x%02x=%d' % (k, ops[k]) for k in sorted(ops))))
    return 0 if n and not bad_icrc and not bad_ip else 1


if __name__ == '__main__':
    sys.exit(main())
