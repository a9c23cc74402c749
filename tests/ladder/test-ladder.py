#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of scripts/ladder, without tshark or guests.

The fixtures in this directory come from one scripts/demo run:
first-conn.pcap  the excerpt scripts/ladder gave tshark (the first iWARP
                 connection whole, the others up to their MPA reply)
first-conn.tsv   tshark 4.6's field output for it (--save-frames)
g0.ftrace, g1.ftrace  the guests' ftrace text (passive g0, active g1)
Prints TAP.
"""
import importlib.machinery
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LADDER = os.path.join(TOP, 'scripts', 'ladder')

loader = importlib.machinery.SourceFileLoader('ladder', LADDER)
spec = importlib.util.spec_from_loader('ladder', loader)
L = importlib.util.module_from_spec(spec)
loader.exec_module(L)

results = []


def check(name, cond, detail=''):
    results.append((bool(cond), name, detail))


def run(*args):
    r = subprocess.run([sys.executable, LADDER] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def fixture_run(tmp, color='never'):
    j = os.path.join(tmp, 'l.json')
    h = os.path.join(tmp, 'r.html')
    rc, out, err = run(os.path.join(HERE, 'first-conn.pcap'),
                       '--frames', os.path.join(HERE, 'first-conn.tsv'),
                       '--guest', 'g0,10.0.0.1,' + os.path.join(HERE, 'g0.ftrace'),
                       '--guest', 'g1,10.0.0.2,' + os.path.join(HERE, 'g1.ftrace'),
                       '--port-names', '7174=rping,18515=perftest',
                       '--json', j, '--html', h, '--color', color)
    return rc, out, err, (json.load(open(j)) if rc == 0 else {}), (open(h).read() if rc == 0 else '')


def test_fixture():
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, js, rep = fixture_run(tmp)
        check('ladder runs on the fixture', rc == 0, err.strip()[-300:])
        if rc:
            return
        check('every step of the connection is on the diagram', js['missing'] == [], js['missing'])
        steps = [r['step'] for r in js['steps'] if r['kind'] == 'frame']
        for s in L.REQUIRED_STEPS:
            check(f'step {s} in the text', s in steps)
            check(f'step {s} in the SVG', f'data-step="{s}"' in rep)
        order = [s for s in steps if s in ('syn', 'syn-ack', 'mpa-request', 'mpa-reply', 'rtr')]
        check('handshake, MPA, RTR in protocol order',
              order == ['syn', 'syn-ack', 'mpa-request', 'mpa-reply', 'rtr'], order)
        wide = [ln for ln in out.splitlines() if len(ln) > 100]
        check('text fits 100 columns', not wide, wide[:2])
        check('no colour when asked for none', '\033' not in out)
        for w in ('MPA Request', 'MPA Reply', 'rev 2', 'CRC on', 'markers off',
                  'peer-to-peer (P2P) yes', 'RTR type', 'IRD ', 'ORD ', 'zero-length'):
            check(f'text shows "{w}"', w in out)
        funcs = {(r['side'], r['label']) for r in js['steps'] if r['kind'] == 'func'}
        check('active side: irdma_send_mpa_request (inlined stand-in)',
              ('L', 'irdma_send_mpa_request*') in funcs, sorted(funcs)[:8])
        check('active side: irdma_handle_rcv_mpa (the reply)', ('L', 'irdma_handle_rcv_mpa') in funcs)
        check('passive side: irdma_handle_rcv_mpa (the request)', ('R', 'irdma_handle_rcv_mpa') in funcs)
        check('passive side: irdma_accept', ('R', 'irdma_accept') in funcs)
        check('both guest clocks aligned', None not in js['offsets'].values(), js['offsets'])
        # Causality after alignment: each anchor on the right side of its frame.
        at = {r['step']: r['t'] for r in js['steps'] if r['kind'] == 'frame'}
        for side, role in (('L', 'initiator'), ('R', 'responder')):
            for func, step, rel in L.ANCHORS[role]:
                ev = [r for r in js['steps'] if r['kind'] == 'func' and r['side'] == side
                      and r['label'].rstrip('*') == func]
                if not ev or step not in at:
                    continue
                ok = ev[0]['t'] <= at[step] if rel == 'tx' else ev[0]['t'] >= at[step]
                check(f'{side} {func} {"before" if rel == "tx" else "after"} {step}', ok,
                      f'{(ev[0]["t"] - at[step]) * 1e3:+.3f} ms')
        check('report self-contained', not re.search(r'(src|href)="(https?:)?//|@import|url\((?!#)', rep))
        check('report has the throughput plot', 'class="throughput"' in rep and '<polyline' in rep)
        check('report names connections by port', '#1 rping' in rep)
        rc, out, err, _, _ = fixture_run(tmp, 'always')
        check('colour when asked for', rc == 0 and '\033[' in out)


def test_align():
    steps = [{'kind': 'frame', 'step': 'syn', 't': 100.0},
             {'kind': 'frame', 'step': 'syn-ack', 't': 100.010}]
    ev = L.resolve([{'t': 5.0, 'func': 'irdma_send_syn', 'info': '', 'task': 'x'},
                    {'t': 5.012, 'func': 'irdma_receive_ilq', 'info': '', 'task': 'x'}], 'initiator')
    al = L.align(ev, steps, 'initiator')
    # send before SYN: off <= 95.0; receive after SYN-ACK: off >= 94.998.
    check('align: middle of the causal bracket', al and abs(al['offset'] - 94.999) < 1e-9, al)
    check('align: half-width', al and abs(al['err'] - 0.001) < 1e-9, al)
    check('align: consistent bracket', al and al['consistent'])
    ev2 = L.resolve([{'t': 5.0, 'func': 'irdma_send_syn', 'info': '', 'task': 'x'},
                     {'t': 4.9, 'func': 'irdma_receive_ilq', 'info': '', 'task': 'x'}], 'initiator')
    al2 = L.align(ev2, steps, 'initiator')
    check('align: crossing bounds are reported', al2 and not al2['consistent'], al2)
    check('align: nothing to anchor -> None',
          L.align([{'t': 1, 'func': 'x', 'label': 'x'}], steps, 'initiator') is None)


def test_ftrace_parse():
    text = '\n'.join([
        '# tracer: function',
        '           rping-240     [000] .....   173.310125: irdma_connect <-iw_cm_connect',
        '          <idle>-0       [000] d.s2.   173.675585: irdma_handle_rcv_mpa.isra.0 <-irdma_receive_ilq',
        ' kworker/u4:3-41 [001] ..... 173.7: irdma_send_cm_event: iwdev=0x1 caller=irdma_accept+0x1 '
        'cm_id=0x2 node=0x3 refcnt=2 vlan_id=0 accel=1 state=OFFLOADED event_type=ESTABLISHED status=0 '
        'loc: 10.0.0.1:7174 rem: 10.0.0.2:1',
        '  kworker-41 [001] ..... 173.8: irdma_negotiate_mpa_v2: MPVA2 Negotiated cm_node=0x3 ORD:[1], IRD:[127]',
        'garbage line'])
    ev = L.parse_ftrace(text)
    check('ftrace: 4 entries parsed', len(ev) == 4, ev)
    if len(ev) == 4:
        check('ftrace: clone suffix dropped', ev[1]['func'] == 'irdma_handle_rcv_mpa')
        check('ftrace: parent kept', ev[1].get('parent') == 'irdma_receive_ilq')
        check('ftrace: iw_cm event', ev[2]['func'] == 'iw_cm: ESTABLISHED')
        check('ftrace: IRD/ORD event', ev[3]['info'] == 'ORD 1 IRD 127', ev[3])
        check('ftrace: timestamps', abs(ev[0]['t'] - 173.310125) < 1e-9)
    r = L.resolve([{'func': 'irdma_cm_build_mpa_frame', 'parent': 'irdma_receive_ilq'},
                   {'func': 'irdma_handle_tcp_options'}], 'initiator')
    check('inlined stand-ins (active)', [x['label'] for x in r] ==
          ['irdma_send_mpa_request*', 'irdma_handle_synack_pkt*'], r)
    r = L.resolve([{'func': 'irdma_handle_tcp_options'}, {'func': 'irdma_handle_tcp_options'},
                   {'func': 'irdma_cm_build_mpa_frame', 'parent': 'irdma_accept'}], 'responder')
    check('inlined stand-ins (passive)', [x['label'] for x in r] ==
          ['irdma_handle_syn_pkt*', 'irdma_handle_ack_pkt*', 'irdma_cm_build_mpa_frame'], r)


def synth_pcap(path, frames):
    """frames: (t, src, dst, sport, dport, flags, payload)."""
    out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
    for t, src, dst, sp, dp, fl, pl in frames:
        tcp = struct.pack('>HHIIBBHHH', sp, dp, 1, 0, 5 << 4, fl, 65535, 0, 0) + pl
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0,
                         bytes(map(int, src.split('.'))), bytes(map(int, dst.split('.'))))
        eth = b'\x52\x54\x00\xe8\x10\x01\x52\x54\x00\xe8\x10\x02\x08\x00' + ip + tcp
        out.append(struct.pack('<IIII', int(t), int(round((t % 1) * 1e6)), len(eth), len(eth)) + eth)
    with open(path, 'wb') as f:
        f.write(b''.join(out))


def test_pcap():
    a, b = '10.0.0.2', '10.0.0.1'
    fr = [(10.0, a, b, 5000, 7174, 0x02, b''), (10.001, b, a, 7174, 5000, 0x12, b''),
          (10.002, a, b, 5000, 7174, 0x18, b'MPA ID Req Frame\x40\x02\x00\x00'),
          (10.003, b, a, 7174, 5000, 0x18, b'MPA ID Rep Frame\x40\x02\x00\x00'),
          (10.004, a, b, 5000, 7174, 0x18, b'x' * 1000),
          (11.0, a, b, 6000, 9999, 0x02, b''),                     # plain TCP, no MPA
          (12.0, a, b, 6001, 18515, 0x02, b''),
          (12.1, a, b, 6001, 18515, 0x18, b'MPA ID Req Frame\x40\x02\x00\x00'),
          (12.2, b, a, 18515, 6001, 0x18, b'MPA ID Rep Frame\x40\x02\x00\x00'),
          (12.3, a, b, 6001, 18515, 0x18, b'y' * 500)]
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, 's.pcap')
        synth_pcap(p, fr)
        head, pkts = L.read_pcap(p)
        check('pcap: every TCP frame read', len(pkts) == 10, len(pkts))
        check('pcap: payload lengths', pkts[4]['len'] == 1000 and pkts[0]['len'] == 0)
        check('pcap: timestamps', abs(pkts[1]['t'] - 10.001) < 1e-6)
        conns = L.iwarp_pkts(pkts)
        check('pcap: two iWARP streams, plain TCP left out', len(conns) == 2, list(conns))
        ex = os.path.join(tmp, 'x.pcap')
        L.write_excerpt(head, conns, ex)
        _, xp = L.read_pcap(ex)
        # All 5 of the first, the second up to its reply (3 of 4).
        check('excerpt: first connection whole, others to the reply',
              [round(x['t'], 3) for x in xp] == [10.0, 10.001, 10.002, 10.003, 10.004, 12.0, 12.1, 12.2],
              [x['t'] for x in xp])
    conn = {'initiator': a, 'responder': b, 'pkts': [
        {'t': 0.0, 'src': a, 'len': 100, 'seq': 0xffffff9c}, {'t': 0.5, 'src': a, 'len': 100, 'seq': 0},
        {'t': 0.6, 'src': a, 'len': 100, 'seq': 0xffffff9c},           # retransmitted across the wrap
        {'t': 0.7, 'src': b, 'len': 0, 'seq': 5}, {'t': 1.0, 'src': a, 'len': 50, 'seq': 100}]}
    _, bw, ser = L.throughput(conn, nbins=2)
    got = {k: [round(x * bw * 1e6) for x in v] for k, v in ser.items()}
    check('throughput: new data and retransmissions per direction',
          got == {'LR': [100, 150], 'LR-re': [0, 100], 'RL': [0, 0], 'RL-re': [0, 0]}, got)
    check('nice ticks', L.nice_ticks(9.9) == [0, 2, 4, 6, 8, 10] and L.nice_ticks(3957, 8)[-1] == 4000,
          (L.nice_ticks(9.9), L.nice_ticks(3957, 8)))


def test_fixture_fields():
    head = open(os.path.join(HERE, 'first-conn.tsv')).readline().rstrip('\n').split('\t')
    check('fixture TSV has the fields scripts/ladder asks tshark for', head == L.FIELDS,
          set(head) ^ set(L.FIELDS))
    _, pkts = L.read_pcap(os.path.join(HERE, 'first-conn.pcap'))
    tsv = L.parse_frames(open(os.path.join(HERE, 'first-conn.tsv')).read())
    check('fixture TSV decodes the fixture pcap', len(tsv) == len(pkts) and
          all(abs(a['t'] - b['t']) < 1e-5 and a['len'] == b['len'] for a, b in zip(tsv, pkts)),
          (len(tsv), len(pkts)))


for t in (test_fixture, test_align, test_ftrace_parse, test_pcap, test_fixture_fields):
    try:
        t()
    except Exception as e:  # noqa: BLE001 - reported as a failure
        check(t.__name__ + ' raised', False, repr(e))
print(f'1..{len(results)}')
for i, (ok, name, detail) in enumerate(results, 1):
    print(f'{"ok" if ok else "not ok"} {i} - {name}' + ('' if ok or not detail else f'  # {detail}'))
sys.exit(0 if all(r[0] for r in results) else 1)
