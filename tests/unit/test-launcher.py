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

from e810vm import cli, jobs, qemu, run, snapshots  # noqa: E402

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
    a = argparse.Namespace(guests=2, nic0='e810', nic1='e810', mode=None, interactive=False,
                           env=[], share_env={}, link=None, nic_opts='', qemu='/bin/true',
                           device_backend='qemu', pcap=None)
    a.__dict__.update(kw)
    return a


def test_env_and_job():
    a = fake_args(env=['EXTRA=1', 'GUEST_IP=10.9.9.9'], mode='iwarp')
    env, boot = run.guest_env(a, 1, '7.3', ['e810', 'virtio'])
    ok(env['GUEST_ID'] == 1 and env['NGUESTS'] == 2 and env['PEER_IP'] == '10.0.0.1'
       and env['PEER_NIC'] == 'e810' and env['NIC'] == 'virtio',
       'guest 1: its id, its NIC, its peer\'s address and NIC')
    ok(env['EXTRA'] == '1' and env['GUEST_IP'] == '10.9.9.9', '--env adds and overrides')
    ok(env['E810_MODE'] == 'iwarp' and boot['E810_BRINGUP'] == 'iwarp'
       and 'EXTRA' not in boot, '--mode: the bring-up has its own environment')
    env, _ = run.guest_env(fake_args(guests=1), 0, '7.3', ['e810', 'e810'])
    ok(env['PEER_IP'] == '' and env['PEER_NIC'] == '', 'one guest: no peer')
    f = os.path.join(STATE, 'data.bin')
    open(f, 'wb').write(b'x' * 5)
    arch = jobs.job_cpio(b'#!/bin/sh\ntrue\n', 'A=1\n', [(f, 'job/files/data.bin')])
    names = job_names(arch)
    ok(names[:3] == ['job', 'job/run', 'job/env'] and 'job/files/data.bin' in names
       and names[-1] == 'TRAILER!!!', 'the job archive: /job/run, /job/env, the files')


def test_net_args():
    sock = os.path.join(STATE, 's')
    g = {'id': 0, 'nic': 'e810', 'mac': '52:54:00:e8:10:01'}
    c = qemu.net_args(fake_args(guests=1), g, sock, False, False)
    ok('hubport,id=n0,hubid=0' in c, 'one guest: a hub port of its own')
    c = qemu.net_args(fake_args(link='loss=1'), dict(g, id=1), sock, False, False)
    ok(any('stream,id=n0,server=off' in x and 'link1.sock' in x for x in c),
       '--link: a stream client of the relay')
    c = qemu.net_args(fake_args(), dict(g, id=1), sock, False, False)
    k = qemu.net_args(fake_args(), dict(g, id=1), sock, False, True)
    ok(any('reconnect-ms' in x for x in c) and not any('reconnect-ms' in x for x in k),
       'the reconnecting client: not part of the snapshot key')
    c = qemu.net_args(fake_args(), dict(g, vfu_sock='/x.sock'), sock, True, False)
    ok(c[:2] == ['-nic', 'none'] and any('vfio-user-pci' in x for x in c),
       'vfio-user: no NIC in QEMU, the vfio-user-pci device')


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


test_options()
test_env_and_job()
test_net_args()
test_snapshot_key()
shutil.rmtree(STATE, ignore_errors=True)
print(f'1..{n}')
sys.exit(1 if fails else 0)
