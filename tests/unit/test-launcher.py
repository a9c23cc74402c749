#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The launcher's parts that need no guest (scripts/e810vm): option
checks, the guests' environment and job archive, their network
arguments, and the snapshot key.  Prints TAP.

Usage: test-launcher.py SCRIPTS_DIR
"""
import argparse
import os
import shutil
import sys
import tempfile

STATE = tempfile.mkdtemp(prefix='e810-launcher-test-')
os.environ['E810_STATE'] = STATE            # caches go here, not build/
os.environ.pop('E810_KERNEL', None)
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else
                os.path.join(os.path.dirname(__file__), '..', '..', 'scripts'))

from e810vm import cli, fabric, hotplug, jobs, qemu, run, snapshots  # noqa: E402

n = 0
fails = 0


def ok(cond, what):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print(('ok' if cond else 'not ok') + f' {n} - {what}')


def args(*argv):
    """Parsed and checked options; the exit status if refused."""
    ap = cli.parser(False)
    sys.argv = ['vm'] + list(argv)
    try:
        a = ap.parse_args(list(argv))
        cli.check_args(ap, a)
    except SystemExit as e:
        return e.code
    return a


def job_names(archive):
    """The names in a newc cpio archive."""
    names, i = [], 0
    while i + 110 <= len(archive) and archive[i:i + 6] == b'070701':
        size = int(archive[i + 54:i + 62], 16)
        nlen = int(archive[i + 94:i + 102], 16)
        name = archive[i + 110:i + 110 + nlen - 1].decode()
        i += 110 + nlen
        i += -i % 4
        i += size + (-size % 4)
        names.append(name)
    return names


def test_options():
    script = os.path.join(STATE, 'job.sh')
    open(script, 'w').write('true\n')
    a = args('--qemu', '/bin/true', '--guests', '2', '--nic', 'e810', '--script', script)
    ok(not isinstance(a, int) and (a.nic0, a.nic1) == ('e810', 'e810'),
       '--nic e810 gives every guest an e810')
    a = args('--qemu', '/bin/true', '--mode', 'roce', '--script', script)
    ok(not isinstance(a, int) and a.nic0 == 'e810', '--mode roce defaults to the e810')
    a = args('--qemu', '/bin/true', '--nic1', 'virtio', '--script', script)
    ok(not isinstance(a, int) and (a.nic0, a.nic1) == ('virtio', 'virtio'),
       'without --mode the default NIC is virtio-net')
    ok(args('--qemu', '/bin/true') == 2, 'no --script: refused (exit 2)')
    ok(args('--qemu', '/bin/true', '--guests', '33', '--script', script) == 2
       and args('--qemu', '/bin/true', '--guests', '0', '--script', script) == 2,
       '--guests past 1..32: refused')
    ok(args('--qemu', '/bin/true', '--guests', '3', '--topology', 'direct',
            '--script', script) == 2, 'a direct cable for three guests: refused')
    a = args('--qemu', '/bin/true', '--guests', '8', '--script', script)
    ok(not isinstance(a, int) and fabric.topology(a) == 'switch',
       'eight guests: on a switch by default')
    ok(args('--qemu', '/nonexistent/qemu', '--script', script) not in (None, 0),
       'a QEMU that is not there: refused')
    ok(args('--qemu', '/bin/true', '--nic', 'e810', '--device-backend', 'vfio-user',
            '--nic-opts', 'x=1', '--script', script) == 2,
       '--nic-opts with --device-backend vfio-user: refused')
    r = args('--qemu', '/bin/true', '--nic', 'e810', '--device-backend', 'vfio-user',
             '--script', script)
    ok(isinstance(r, str) and 'vfio-user-pci' in r,
       'a QEMU without vfio-user-pci: refused with the reason')


def fake_args(**kw):
    a = argparse.Namespace(guests=2, nic='e810', nic0='e810', nic1='e810', mode=None,
                           interactive=False, env=[], share_env={}, link=None, nic_opts='',
                           qemu='/bin/true', device_backend='qemu', pcap=[], topology=None,
                           out=STATE)
    a.__dict__.update(kw)
    return a


def test_env_and_job():
    a = fake_args(env=['EXTRA=1', 'GUEST_IP=10.9.9.9'], mode='iwarp')
    a.nic1 = 'virtio'
    env, boot = run.guest_env(a, 1, '7.3')
    ok(env['GUEST_ID'] == 1 and env['NGUESTS'] == 2 and env['PEER_IP'] == '10.0.0.1'
       and env['PEER_NIC'] == 'e810' and env['NIC'] == 'virtio',
       'guest 1: its id, its NIC, its peer\'s address and NIC')
    ok(env['EXTRA'] == '1' and env['GUEST_IP'] == '10.9.9.9', '--env adds and overrides')
    ok(env['E810_MODE'] == 'iwarp' and boot['E810_BRINGUP'] == 'iwarp'
       and 'EXTRA' not in boot, '--mode: the bring-up has its own environment')
    env, _ = run.guest_env(fake_args(guests=1), 0, '7.3')
    ok(env['PEER_IP'] == '' and env['PEER_NIC'] == '' and env['PEERS'] == '',
       'one guest: no peer')
    env, _ = run.guest_env(fake_args(guests=4, nic1='virtio'), 2, '7.3')
    ok(env['PEERS'] == '10.0.0.1 10.0.0.2 10.0.0.4' and env['PEER_IP'] == ''
       and env['GUEST_IP'] == '10.0.0.3' and env['NIC'] == 'e810'
       and env['TOPOLOGY'] == 'switch',
       'four guests: every other one is a peer, on a switch; guest 2 has --nic')
    f = os.path.join(STATE, 'data.bin')
    open(f, 'wb').write(b'x' * 5)
    arch = jobs.job_cpio(b'#!/bin/sh\ntrue\n', 'A=1\n', [(f, 'job/files/data.bin')])
    names = job_names(arch)
    ok(names[:3] == ['job', 'job/run', 'job/env'] and 'job/files/data.bin' in names
       and names[-1] == 'TRAILER!!!', 'the job archive: /job/run, /job/env, the files')


def test_net_args():
    sock = os.path.join(STATE, 's')
    g = {'id': 0, 'nic': 'e810', 'mac': '52:54:00:e8:10:01', 'link_sock': None}

    def ports(a, g):
        socks = fabric.link_socks(a, g, sock)
        macs = [g['mac']] + ['52:54:00:e8:11:01'] * (len(socks) - 1)
        return dict(g, link_socks=socks, link_sock=socks[0], macs=macs)

    def net(a, g, vfu=False, key=False):
        return qemu.net_args(a, ports(a, g), sock, vfu, key)
    c = net(fake_args(guests=1), g)
    ok('hubport,id=n0,hubid=0' in c, 'one guest: a hub port of its own')
    c = net(fake_args(link='loss=1'), dict(g, id=1))
    ok(any('stream,id=n0,server=off' in x and 'link1.sock' in x for x in c),
       '--link: a stream client of the relay')
    a = fake_args(guests=3)
    c = net(a, dict(g, id=2))
    ok(any('stream,id=n0,server=off' in x and 'link2.sock' in x for x in c),
       'three guests: a stream client of the relay, into the switch')
    gs = [ports(a, dict(g, id=i)) for i in range(3)]
    ok(fabric.tap_port(a, gs[2], 0) and not fabric.tap_port(a, dict(gs[2], vfu=True), 0)
       and not fabric.tap_port(fake_args(guests=3, link='loss=1'), gs[2], 0),
       'the switch: a QEMU port is the tap itself, not with vfio-user or --link')
    c = qemu.net_args(a, dict(gs[2], tap_fds=[9]), sock, False, False)
    ok('tap,id=n0,fd=9' in c and qemu.net_args(a, dict(gs[2], tap_fds=[9]), sock, False, True) ==
       net(a, dict(g, id=2), key=True), 'a handed-over tap: -netdev tap,fd=; the key as before')
    cmds = fabric.fabric_cmds(a, gs, sock)
    ok([n for n, _ in cmds] == ['link'] and cmds[0][1][0] == 'unshare'
       and '--bridge' in cmds[0][1] and sum(x.startswith('fd:') for x in cmds[0][1]) == 3,
       'the switch: a bridge in a namespace of its own, one relay with a port per guest')
    a.uplink = ['udp://7700->10.1.0.2:7700']
    cmds = fabric.fabric_cmds(a, gs, sock)
    ok([n for n, _ in cmds] == ['uplink', 'link'] and cmds[0][1] == ['vde_plug', a.uplink[0]]
       and '--uplink-fd' in cmds[1][1], '--uplink: a vde_plug into the overlay, the bridge\'s port')
    a = fake_args(guests=3, pcap=['/x/a.pcap', 'g2:b.pcap'])
    ok(run.pcap_of(a, 0) == '/x/a.pcap' and run.pcap_of(a, 1) is None
       and run.pcap_of(a, 2) == os.path.abspath('b.pcap'), '--pcap: guest 0, or gN: guest N')
    a = fake_args(guests=4, ports=2)
    gs = [ports(a, dict(g, id=i)) for i in range(4)]
    cmds = fabric.fabric_cmds(a, gs, sock)
    ok(fabric.topology(a) == 'two-fabrics'
       and [n for n, _ in cmds] == ['link', 'link1']
       and all(x.endswith('p1.sock') for x in cmds[1][1] if x.endswith('.sock')),
       'four guests with two ports: two fabrics, port 1s on the second')
    c = qemu.net_args(a, gs[1], sock, False, False)
    ok(any('addr=0.0,multifunction=on' in x for x in c) and any('addr=0.1' in x for x in c)
       and any('link1p1.sock' in x for x in c), 'two ports: functions 0 and 1 of one slot')
    a = fake_args(guests=1, ports=2)
    gs = [ports(a, dict(g, id=0))]
    cmds = fabric.fabric_cmds(a, gs, sock)
    ok(fabric.topology(a) == 'back-to-back' and [n for n, _ in cmds] == ['link-g0']
       and cmds[0][1][1:3] == gs[0]['link_socks'], 'one guest, two ports: back to back')
    env, _ = run.guest_env(a, 0, '7.3')
    ok(env['GUEST_IP1'] == '10.0.0.129' and env['PEERS1'] == '' and env['PORTS'] == 2,
       'back to back: port 1 in port 0\'s subnet, no peers')
    ok(fabric.fabric_cmds(fake_args(), [ports(fake_args(), dict(g, id=i)) for i in (0, 1)],
                          sock) == [],
       'two guests, no --link: a direct cable, nothing between')
    c = net(fake_args(), dict(g, id=1))
    k = net(fake_args(), dict(g, id=1), key=True)
    ok(any('reconnect-ms' in x for x in c) and not any('reconnect-ms' in x for x in k),
       'the reconnecting client: not part of the snapshot key')
    c = net(fake_args(), dict(g, vfu_sock='/x.sock'), vfu=True)
    ok(c[:2] == ['-nic', 'none'] and any('vfio-user-pci' in x for x in c),
       'vfio-user: no NIC in QEMU, the vfio-user-pci device')


def test_hot_unplug_spec():
    spec, hps = hotplug.parse_hot_unplug('link-flap:at=2;hot-unplug:at=5:replug=2:count=3')
    ok(spec == 'link-flap:at=2' and hps == [(5.0, 2.0, 3, 30.0, False)],
       'hot-unplug is the launcher\'s: taken out of the device\'s spec')
    ok(hotplug.parse_hot_unplug('hot-unplug:replug=never')[1] == [(0.0, None, 1, 30.0, False)],
       'hot-unplug replug=never: the slot stays empty')
    ok(hotplug.parse_hot_unplug('hot-unplug:surprise=1')[1] == [(0.0, 5.0, 1, 30.0, True)],
       'hot-unplug surprise=1: the card gone from the bus first')
    for bad in ('hot-unplug:at=x', 'hot-unplug:count=0', 'hot-unplug:count=101',
                'hot-unplug:at=-1', 'hot-unplug:when=3', 'hot-unplug:at',
                'hot-unplug:surprise=yes'):
        try:
            hotplug.parse_hot_unplug(bad)
            ok(False, f'{bad}: refused')
        except RuntimeError:
            ok(True, f'{bad}: refused')
    script = os.path.join(STATE, 'job.sh')
    open(script, 'w').write('true\n')
    ok(args('--qemu', '/bin/true', '--nic', 'e810', '--fault', 'g0:hot-unplug:count=x',
            '--script', script) == 2, '--fault with a bad hot-unplug: refused at start')
    a = args('--qemu', '/bin/true', '--nic', 'e810', '--ports', '2', '--fault',
             'hot-unplug:at=3', '--script', script)
    ok(not isinstance(a, int), '--fault hot-unplug of a two-port card: taken (the whole card leaves)')


def test_snapshot_key():
    qemu_bin = os.path.join(STATE, 'qemu')
    kern = os.path.join(STATE, 'vmlinux')
    for p in (qemu_bin, kern):
        open(p, 'w').write('x')

    def key(out, mode='iwarp', boot=b'boot'):
        a = argparse.Namespace(out=out, qemu=qemu_bin, mode=mode, guests=2)
        gs = [{'dir': os.path.join(out, f'g{i}'), 'ctl': os.path.join(out, f'g{i}', 'ctl.sock'),
               'boot': boot} for i in (0, 1)]
        cmds = [[qemu_bin, '-kernel', kern, '-chardev', f'file,path={g["dir"]}/console.log']
                for g in gs]
        return snapshots.snapshot_key(a, '/img/7.3', 'tcg', gs, out, cmds, [])[1]
    k1 = key(os.path.join(STATE, 'run1'))
    ok(k1 == key(os.path.join(STATE, 'run2')), 'the key leaves the run\'s own paths out')
    ok(k1 != key(os.path.join(STATE, 'run1'), mode='roce'), 'the mode is in the key')
    ok(k1 != key(os.path.join(STATE, 'run1'), boot=b'other'), 'the bring-up archive is in the key')
    ok(k1.startswith('iwarp-2g-'), 'the key names mode and guests: ' + k1)


def test_fit():
    """check_fit: archives beyond the root filesystem (half the RAM) are
    refused before boot, naming their sizes; --packages' disk does not
    count, and it reaches QEMU read-only with the guest told."""
    d = os.path.join(STATE, 'fit')
    os.makedirs(d, exist_ok=True)
    big = os.path.join(d, 'extras.cpio')
    with open(big, 'wb') as f:
        f.truncate(200 << 20)               # sparse: 200 MiB unpacked
    g = {'initrd': os.path.join(d, 'initrd')}
    with open(g['initrd'], 'wb') as f:
        f.truncate((200 << 20) + (1 << 20))  # a 1 MiB job, then the tail
    tail = b'x' * (200 << 20)

    def fit(mem):
        try:
            run.check_fit(fake_args(mem=mem), [big], [g], tail)
        except SystemExit as e:
            return str(e)
        return None
    ok(fit(512) is None, '201 MiB in a 512 MiB guest (240 MiB of root): boots')
    r = fit(256)
    ok(r is not None and 'unpacks to 201 MiB' in r and 'extras.cpio 200 MiB' in r
       and 'the job 1 MiB' in r and '256 MiB guest' in r and '--mem' in r,
       '201 MiB in a 256 MiB guest: refused, naming the sizes: ' + str(r))
    a = fake_args(mem=512, smp=2, bzimage=True, append='', interactive=False, savevm=False,
                  qemu_arg=[], trace=[], packages_image='/p/k.squashfs')
    gg = {'id': 0, 'dir': d, 'initrd': g['initrd'], 'ctl': 'c', 'qmp': 'q', 'hmp': 'h',
          'shares': [], 'nic': 'none', 'vfu': False}
    cmd = qemu.guest_cmd(a, d, 'tcg', gg, d)
    ok('if=none,id=packages,format=raw,readonly=on,file=/p/k.squashfs' in cmd
       and 'virtio-blk-pci,drive=packages,serial=e810-packages' in cmd
       and ' e810.packages=1' in cmd[cmd.index('-append') + 1],
       '--packages: a read-only virtio disk, and the guest told on its command line')


test_options()
test_fit()
test_env_and_job()
test_net_args()
test_hot_unplug_spec()
test_snapshot_key()
shutil.rmtree(STATE, ignore_errors=True)
print(f'1..{n}')
sys.exit(1 if fails else 0)
