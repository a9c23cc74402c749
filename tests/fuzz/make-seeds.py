#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed corpora (corpus/mmio, corpus/wire, the remote-peer seeds
of corpus/roce) from the traffic the unit tests drive (test-iwarp-qp.c), and
the regression inputs of the resource oracles (regress/<target>/): inputs
in the targets' encoding (fuzz-common.h, fuzz-mmio.c, fuzz-wire.c,
fuzz-roce.c).  Run it after changing an encoding; the inputs are small and
kept in the repository."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MEM = 0x10000000
def M(off): return MEM + 0x800000 + off
def BUF(i): return M(0x10000 + 0x10000 * i)
def STAG(i): return (0x10 + i) << 8 | 0x5A
BAR0 = MEM + (16 << 20)
PFGEN_CTRL = 0x91000

u8 = lambda v: struct.pack('<B', v & 0xFF)
u16 = lambda v: struct.pack('<H', v & 0xFFFF)
u32 = lambda v: struct.pack('<I', v & 0xFFFFFFFF)
u64 = lambda v: struct.pack('<Q', v & 0xFFFFFFFFFFFFFFFF)
be16 = lambda v: struct.pack('>H', v)
be32 = lambda v: struct.pack('>I', v)
be64 = lambda v: struct.pack('>Q', v)

# fuzz-mmio ops
def sq(i, q0, q1, q2, hdr, own=True):
    return u8(5) + u8(i | (0x10 if own else 0)) + u64(q0) + u64(q1) + u64(q2) + u64(hdr)
def rq(i, off, ln):
    return u8(6) + u8(i) + u16(ln) + u16(off)
def adv(ms): return u8(7) + u8(ms)
def cqp(q):
    return u8(4) + b''.join(u64(x) for x in q)
def wr(k, val): return u8(0) + u8(k) + u32(val)
def aq(desc, buf=b''):
    return u8(8) + desc.ljust(32, b'\0') + buf

mmio = {
    'send': u8(1) + rq(1, 0x100, 4096) + sq(0, 0, 3000 << 32 | STAG(0), 0, 0x03 << 32 | 1 << 62) + adv(200),
    'write-send-se': u8(1) + rq(1, 0x8000, 100) +
        sq(0, 0x1000, 20000 << 32 | STAG(0), BUF(1) + 0x2000, STAG(1)) +
        sq(0, 0, 50 << 32 | STAG(0), 0, 0x05 << 32 | 1 << 62) + adv(200),
    'read': u8(1) + sq(0, 0x8000, 4000 << 32 | STAG(0), BUF(1) + 0x6000,
                       0x01 << 32 | 1 << 62 | STAG(1)) + adv(200),
    # The re-entrancy route: CQ 3 resized onto BAR0 + PFGEN_CTRL, then a
    # 1-byte Send (its Receive CQE is a PF reset request).
    'cq-on-bar0': u8(1 | 4) + cqp([16, 0, 0, 0x04 << 32 | 3 | 1 << 43, BAR0 + PFGEN_CTRL, 0, 0, 0]) +
        rq(1, 0, 64) + sq(0, 0, 1 << 32 | STAG(0), 0, 0x03 << 32 | 1 << 62) + adv(200),
    'close': u8(1) + cqp([0, 0, M(0x9100), 0x01 << 32 | 3 | 1 << 48 | 3 << 60, 0, 0, 0, 0]) + adv(200),
    'user-flush': u8(2) + rq(1, 0, 100) + cqp([0, 0, 5, 0x22 << 32 | 4 | 1 << 62 | 1 << 60, 0, 0, 0, 0]),
    'aq-version': u8(0) + aq(u16(0) + u16(0x0001)),
    'intr': u8(0) + wr(12, 0x3) + wr(13, 0x1 | 0x8 | 0x10 << 5) + wr(16, 50) + adv(5) + wr(13, 0x1 | 1 << 2),
    # LAN: a 60-byte frame sent from Tx queue 5 (data descriptor, EOP|RS),
    # a frame for us received into Rx queue 4, descriptors given back.
    'lan-tx': u8(3) + u8(2) + u32(0xC10000) + u8(60) + (b'\xff' * 6 + b'\x52\x54\x00\x12\x34\x56' + b'\x08\x06').ljust(60, b'\0') +
        u8(13) + u8(0x80) + u64(0) + u64(0x3 << 4 | 60 << 34 | 7 << 16) + adv(5),
    'lan-rx': u8(3) + u8(9) + u16(128) + (b'\x52\x54\x00\x12\x34\x56' * 2 + b'\x08\x00').ljust(128, b'E') +
        u8(14) + u8(3) + adv(5),
    'pf-reset': u8(1) + u8(11) + sq(0, 0, 100 << 32 | STAG(0), 0, 0x03 << 32) + adv(10),
}

# fuzz-wire ops
def fpdu_seg(ulpdus, mode=0, bad=False):
    m = (len(ulpdus) - 1) << 5 | (4 if bad else 0) | mode
    out = u8(0) + u8(m)
    for u in ulpdus:
        out += u16(len(u)) + u
    return out
def send_hdr(msn, mo, last=True, inv=0):
    return u8(0x41 if last else 0x01) + u8(0x43 if not inv else 0x44) + be32(inv) + be32(0) + be32(msn) + be32(mo)
def write_hdr(stag, to, last=True):
    return u8(0xC1 if last else 0x81) + u8(0x40) + be32(stag) + be64(to)
def readreq(msn, sink_stag, sink_to, ln, src_stag, src_to):
    return (u8(0x41) + u8(0x41) + be32(0) + be32(1) + be32(msn) + be32(0) +
            be32(sink_stag) + be64(sink_to) + be32(ln) + be32(src_stag) + be64(src_to))
def wrq(off, ln): return u8(6) + u8(1) + u16(ln) + u16(off)

wire = {
    'send': u8(0) + wrq(0x100, 4096) + fpdu_seg([send_hdr(1, 0) + bytes(range(200))]) + u8(9) + u8(50),
    'send-2seg': u8(0) + wrq(0, 8192) + fpdu_seg([send_hdr(1, 0, False) + b'A' * 1000,
                                                  send_hdr(1, 1000) + b'B' * 500]) + u8(9) + u8(50),
    'write': u8(0) + fpdu_seg([write_hdr(STAG(1), BUF(1) + 0x100) + b'W' * 1400]) + u8(9) + u8(50),
    'read-req': u8(0) + fpdu_seg([readreq(1, 0x1234, 0, 2048, STAG(1), BUF(1))]) + u8(9) + u8(100),
    'terminate': u8(0) + fpdu_seg([u8(0x41) + u8(0x47) + be32(0) + be32(2) + be32(1) + be32(0) + be32(0x11000000)]) + u8(9) + u8(50),
    'bad-crc': u8(0) + wrq(0, 100) + fpdu_seg([send_hdr(1, 0) + b'x' * 10], bad=True) + u8(9) + u8(50),
    'bad-stag-write': u8(0) + fpdu_seg([write_hdr(0x777777, 0) + b'z' * 64]) + u8(9) + u8(50),
    'fin': u8(0) + u8(3) + u8(0x11) + u16(0) + u8(0) + u8(9) + u8(250),
    'close-reentry': u8(4) + u8(8) + u8(0) + u8(9) + u8(200),
    # A SYN and an MPA request to the listener (the CM's ILQ path).
    'ilq-syn': u8(0) + u8(10) + u8(0x02) + u16(0) + u16(33000) + u16(0) + u8(9) + u8(10),
    'ilq-mpa': u8(0) + u8(10) + u8(0x18) + u16(24) + b'MPA ID Req Frame' + u8(0x80) + u8(2) + u16(0) + b'\0' * 4 +
        u16(33001) + u16(5) + u8(9) + u8(10),
}

# Ops of every target (fuzz_common_op): the backend holds frames / takes
# them again, hands on N held frames, reset, unplug.
HOLD, UNHOLD, UNPLUG = u8(0xF8), u8(0xFA), u8(0xFE)
def release(n): return u8(0xFB) + u8(n)

# fuzz-mmio: ILQ sends (0xF0): @n WQEs of TCP segments (20-byte header)
# through AH 0 to the remote MAC.
def tcp_hdr(sport, dport, flags=0x10):
    return be16(sport) + be16(dport) + be32(1000) + be32(2000) + u8(5 << 4) + u8(flags) + be16(0xFFFF) + be32(0)
def ilq(n, payload=0):
    out = u8(0xF0) + u8(n - 1)
    for _ in range(n):
        out += u8(payload) + tcp_hdr(ILQ_PORT, 33000).ljust(64, b'\0')
    return out
ILQ_PORT = 4420

mmio.update({
    'ilq-send': u8(1) + ilq(2, 10) + adv(5),
    'ilq-held': u8(1) + HOLD + ilq(4) + release(2) + UNHOLD + release(0xFF) + adv(5),
    'unplug-held': u8(1) + HOLD + ilq(3) + UNPLUG,
})

# fuzz-roce: first byte 2|user: the remote peer.  send_read (0xF0): m (QP,
# duplicate, ACK request, length kind), k (length index / duplicate
# distance).  send_roce (0): m, opcode, PSN (delta), length, ICRC byte.
def rread(qp, k, dup=False, ackreq=False, kind=0):
    return u8(0xF0) + u8(qp | (2 if dup else 0) | (4 if ackreq else 0) | kind << 5) + u8(k)
def rsend_dup(qp):
    # SEND ONLY (0x04) one PSN below the expected one, ACK requested
    return u8(0) + u8(qp | 0x80) + u8(0x04) + u32(0xFFFFFFFF) + u16(0) + u8(0)
roce = {
    'remote-read': u8(2) + rread(1, 3) + adv(5),
    'remote-read-dup': u8(2) + rread(1, 3) + rread(1, 0, dup=True, kind=3) + adv(5),
    'remote-held-ack': u8(2) + HOLD + rsend_dup(1) * 4 + release(0xFF) + adv(5),
    'remote-unplug': u8(2) + HOLD + rread(1, 3) + rsend_dup(1) + UNPLUG,
}

# fuzz-roce multicast ops (0xE8-0xEB): a group op (m: group 1:0, IPv6 3,
# opcode 5:4 = create/modify/destroy; e: entries - 1 in 2:0, the first of
# QPs 5, 6, 3, 4, ... in 7:3; x: IPv4 group offset in 3:1); a datagram
# from the peer to a group (m: IPv6 0, with immediate 7); a UD SEND from
# QP 5 to the group's AH (m: IPv6 AH 1); receive WQEs.
def mc_grp(op, idx, nqp, first=0, v6=False, off=0):
    return u8(0xE8) + u8(idx | (8 if v6 else 0) | op << 4) + u8((nqp - 1) | first << 3) + u8(off << 1)
def mc_rx(n, v6=False, imm=False):
    return u8(0xE9) + u8((1 if v6 else 0) | (0x80 if imm else 0)) + u16(n) + bytes((0xA0 + i) & 0xFF for i in range(n))
def mc_tx(n, v6=False):
    return u8(0xEA) + u8(2 if v6 else 0) + u16(n)
def mc_rq(qp, n):
    return u8(0xEB) + u8(qp | (n - 1) << 1)
CREATE, MODIFY, DESTROY = 0, 1, 2
roce.update({
    # Group 1 (QPs 5 and 6, the set-up's) gets a datagram from the wire,
    # then QP 5 sends to it: on the wire and looped back to both.
    'mcast-rx': u8(0) + mc_rx(100, imm=True) + adv(5),
    'mcast-send': u8(0) + mc_tx(64) + adv(5) + mc_rq(0, 2) + mc_tx(900) + adv(5),
    # The ops as irdma issues them: group 2 created, group 1 down to QP 6,
    # an IPv6 group, their datagrams, group 2 destroyed, a group number
    # past the committed ones and a destroy of one that is not there.
    'mcast-ops': u8(0) + mc_grp(CREATE, 2, 2, off=1) + mc_grp(MODIFY, 1, 1, first=1) +
        mc_rx(20) + mc_grp(CREATE, 3, 2, v6=True) + mc_rx(30, v6=True) + mc_tx(40, v6=True) +
        mc_grp(DESTROY, 2, 1, off=1) + u8(0xE8) + u8(0x80) + u8(0) + u8(0) + u16(0x1FFF) +
        mc_grp(DESTROY, 2, 1) + adv(5),
})

# fuzz-migrate (op % 10 below 4: a migration; k, then per patch a record,
# an offset and a byte): each set-up migrated as it is, then with a patch
# in each of the first records, cut inside a record, and between traffic.
def mig(k=0, patches=(), cut=None):
    b = u8(0) + u8(k | len(patches) | (8 if cut else 0))
    for rec, off, val in patches:
        b += u8(rec) + u16(off) + u8(val)
    if cut:
        b += u8(cut[0]) + u16(cut[1])
    return b
migrate = {}
for scen, name in enumerate(('lan', 'iwarp', 'roce', 'bare')):
    migrate[name] = u8(scen) + mig()
    migrate[name + '-twice'] = u8(scen) + mig() + u8(4) + u8(3) + mig()
    for rec in range(16):
        migrate[f'{name}-patch-{rec}'] = u8(scen) + mig(0x10, [(rec, 8 + rec, 0x80)]) + u8(4) + u8(5)
    migrate[name + '-cut'] = u8(scen) + mig(cut=(5, 3))
migrate['lan-traffic'] = u8(0) + u8(6) + u8(1) + bytes(16) + mig() + u8(7) + u8(2) + mig()
migrate['roce-wqe'] = u8(2) + u8(7) + bytes(40) + mig() + u8(4) + u8(10)

# Regression inputs: each trips a resource oracle on a core whose engine
# paths do not ask the transmit gate (abort until the core is fixed).
regress = {
    # One READ of 0x7FFFFFFF bytes (the large region, expected PSN): the
    # responder builds every response in one e810_receive (capped_entry).
    'roce': {'read-huge-one-entry': u8(2) + rread(1, 0)},
    # Backend held: ILQ SQ doorbells (16 segments each) keep handing
    # frames to the host (capped_queued).
    'mmio': {'ilq-held-doorbells': u8(1) + HOLD + ilq(16) * 9},
}
# Backend held: duplicate requests with the ACK-request bit keep making
# the responder send ACKs (capped_queued).
regress['roce']['ack-held'] = u8(2) + HOLD + rsend_dup(1) * 140

for name, seeds in (('mmio', mmio), ('wire', wire), ('roce', roce), ('migrate', migrate)):
    d = os.path.join(HERE, 'corpus', name)
    os.makedirs(d, exist_ok=True)
    for k, v in seeds.items():
        with open(os.path.join(d, k), 'wb') as f:
            f.write(v)
for name, inputs in regress.items():
    d = os.path.join(HERE, 'regress', name)
    os.makedirs(d, exist_ok=True)
    for k, v in inputs.items():
        with open(os.path.join(d, k), 'wb') as f:
            f.write(v)
print('seeds and regression inputs written')
