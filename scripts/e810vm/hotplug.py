# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest's e810 taken out of its PCIe slot and put back while the guest
runs (docs/faults.md, hot-unplug): QEMU's device_del and device_add on the
root port, and for e810-vfio-user a new server for the new device."""
import json
import os
import re
import threading
import time

from .common import log, since_start
from .monitor import Qmp, qmp_hmp
from .qemu import e810_device, qemu_has_device
from .vfu import start_server, stop_server, vfu_control

# The slot's removal takes the guest's pciehp 5 s (its attention-button
# delay), then the drivers' removal; under a loaded TCG host much more.
UNPLUG_WAIT = 120


def qemu_usage(g):
    """"rss N kB own N kB fds N" of the guest's QEMU, for the leak check:
    own counts the mappings under 256 MiB (QEMU's heap and the device's,
    not the guest's RAM or TCG's code buffer, which the guest's own work
    fills).  The fewest fds of a few looks (QEMU drops a monitor client
    that just left soon after, not at once)."""
    pid = g['proc'].pid
    try:
        fds = None
        for i in range(5):
            n = len(os.listdir(f'/proc/{pid}/fd'))
            fds = n if fds is None else min(fds, n)
            time.sleep(0.1)
        rss = own = 0
        size = 0
        with open(f'/proc/{pid}/smaps') as f:
            for line in f:
                if line.startswith('Size:'):
                    size = int(line.split()[1])
                elif line.startswith('Rss:'):
                    kb = int(line.split()[1])
                    rss += kb
                    if size < 256 << 10:
                        own += kb
    except (OSError, ValueError, IndexError):
        return 'qemu rss ? kB own ? kB fds ?'
    return f'qemu rss {rss} kB own {own} kB fds {fds}' + live_e810s(g)


def live_e810s(g):
    """" e810s N": the e810 objects alive in the guest's QEMU (the
    device's x-live-instances), with its e810 in the slot; an old one
    still alive after a re-plug is a leak.  Empty out of process."""
    if g.get('vfu') or g['nic'] != 'e810' or g.get('unplugged'):
        return ''
    try:
        q = Qmp(g['qmp'], timeout=30, proc=g.get('proc'))
        try:
            return f' e810s {q.cmd("qom-get", {"path": "nic0", "property": "x-live-instances"})}'
        finally:
            q.close()
    except (RuntimeError, OSError) as e:
        return f' e810s ? ({e})'


def nics_present(g):
    """The card's functions (nic0, nic1...) still among the guest's
    devices (a short QMP visit: the monitor takes one client at a
    time)."""
    q = Qmp(g['qmp'], timeout=30, proc=g.get('proc'))
    try:
        return [x['name'] for x in q.cmd('qom-list', {'path': '/machine/peripheral'})
                if re.fullmatch(r'nic\d+', x.get('name', ''))]
    finally:
        q.close()


def vfu_unplug_refused(a):
    """Why this run's QEMU cannot take a vfio-user device out, or None.
    QEMU 10.1 to 11.0 abort when vfio-user-pci is unplugged (its finalize
    takes the MSI-X PBA out of a BAR that no longer holds it); the QEMU
    built here carries the fix (qemu-dev/overlay/apply, step 8), a stock
    one (no e810 device of its own) does not."""
    if getattr(a, 'device_backend', 'qemu') != 'vfio-user' or qemu_has_device(a.qemu, 'e810'):
        return None
    return ('hot-unplug of a vfio-user device: this QEMU\'s vfio-user-pci aborts when '
            'unplugged (QEMU 10.1-11.0); the QEMU built here carries the fix')


def surprise(g, a, q):
    """A surprise removal's first half: every function of guest @g's card
    is gone from the bus (the device's fault "removed": reads all ones,
    no DMA, no interrupts) before the slot tells the guest anything.  @q:
    the guest's QMP connection (QEMU takes one at a time)."""
    if g.get('vfu'):
        ans = vfu_control(g, 'fault removed')
        if ans != 'ok':
            raise RuntimeError(f'e810-vfio-user: {ans}')
        return
    for p in range(getattr(a, 'ports', 1)):
        q.cmd('qom-set', {'path': f'nic{p}', 'property': 'fault', 'value': 'removed'})


def hot_unplug(g, ctx, sudden=False):
    """Takes guest @g's e810 out of its slot: QEMU's device_del (the
    slot's attention button: the guest's pciehp removes ice and irdma
    and powers the slot off, and QEMU then drops the device; with --ports
    2 function 0's removal takes the slot's every function, as the card
    leaves its slot whole), waited for.  With @sudden, a surprise
    removal: the card is gone from the bus first (surprise()), so the
    drivers' teardown meets a dead device.  The answer line for the guest
    or the log."""
    a = ctx[0]
    if g['nic'] != 'e810':
        raise RuntimeError(f'g{g["id"]} has no e810')
    if g.get('vfu') and vfu_unplug_refused(a):
        raise RuntimeError(vfu_unplug_refused(a))
    with g.setdefault('hp_lock', threading.Lock()):
        if g.get('unplugged'):
            raise RuntimeError(f'g{g["id"]}: nic0 is already out')
        before = qemu_usage(g)
        # Its server ends with its client: not a device that died.
        g['unplugged'] = True
        t0 = time.time()
        q = Qmp(g['qmp'], timeout=30, proc=g.get('proc'))
        try:
            if sudden:
                surprise(g, a, q)
            q.cmd('device_del', {'id': 'nic0'})
        except RuntimeError:
            g['unplugged'] = False
            raise
        finally:
            q.close()
        while True:
            left = nics_present(g)
            if not left:
                break
            if time.time() - t0 > UNPLUG_WAIT:
                raise RuntimeError(f'g{g["id"]}: {" ".join(left)} still in the slot after '
                                   f'{UNPLUG_WAIT} s (the guest did not power the slot off)')
            time.sleep(0.5)
        if g.get('vfu'):
            stop_server(g, grace=10)
        return (f'hotplug: g{g["id"]} nic0 out{" (surprise)" if sudden else ""} after '
                f'{time.time() - t0:.1f} s; before: {before}; after: {qemu_usage(g)}')


def hot_plug(g, ctx):
    """Puts guest @g's e810 back into its slot (device_add, as the
    launcher first added it; for e810-vfio-user a new server first): the
    guest's pciehp sees it and ice probes it.  The answer line."""
    a, sockdir = ctx[0], ctx[3]
    with g.setdefault('hp_lock', threading.Lock()):
        if not g.get('unplugged'):
            raise RuntimeError(f'g{g["id"]}: nic0 is in its slot')
        if g.get('vfu'):
            start_server(a, g, sockdir, time.time() + 30)
            dev = {'driver': 'vfio-user-pci', 'socket': {'type': 'unix', 'path': g['vfu_sock']},
                   'bus': 'rp0', 'id': 'nic0'}
            q = Qmp(g['qmp'], timeout=30, proc=g.get('proc'))
            try:
                q.cmd('device_add', dev)
            finally:
                q.close()
        else:
            # HMP's device_add takes the -device string as the command
            # line had it (a.nic_opts too).  The card's other functions
            # first: function 0 last, whose arrival the slot announces.
            for p in list(range(1, getattr(a, 'ports', 1))) + [0]:
                out = qmp_hmp(g['qmp'], 'device_add ' + e810_device(a, g, p), timeout=30)
                if out.strip():
                    raise RuntimeError(f'device_add: {out.strip()}')
        g['unplugged'] = False
        g.pop('vfu_gone', None)
        return f'hotplug: g{g["id"]} nic0 back; {qemu_usage(g)}'


def parse_hot_unplug(spec):
    """The launcher's own fault kinds out of a --fault spec: (the spec
    left for the device, [(at, replug, count, period)...])."""
    dev, hp = [], []
    for f in [x for x in spec.split(';') if x.strip()]:
        kind, *kvs = f.strip().split(':')
        if kind != 'hot-unplug':
            dev.append(f)
            continue
        kv = {'at': '0', 'replug': '5', 'count': '1', 'period': '30', 'surprise': '0'}
        for x in kvs:
            k, sep, v = x.partition('=')
            if not sep or k not in kv:
                raise RuntimeError(f'hot-unplug: unknown parameter "{x}" '
                                   '(at=S replug=S|never count=N period=S surprise=0|1)')
            kv[k] = v
        try:
            replug = None if kv['replug'] == 'never' else float(kv['replug'])
            one = (float(kv['at']), replug, int(kv['count']), float(kv['period']),
                   kv['surprise'] == '1')
        except ValueError:
            raise RuntimeError(f'hot-unplug: not a number in "{f}"') from None
        if one[0] < 0 or (replug is not None and replug < 0) or not 1 <= one[2] <= 100 \
                or one[3] < 0 or kv['surprise'] not in ('0', '1'):
            raise RuntimeError(f'hot-unplug: out of range in "{f}"')
        hp.append(one)
    return ';'.join(dev), hp


def fault_line(g, text):
    with open(os.path.join(g['dir'], 'faults.log'), 'a') as f:
        f.write(f'{time.strftime("%H:%M:%S")} {since_start()} {text}\n')


def hot_unplug_fault(g, ctx, at, replug, count, period, sudden, done):
    """--fault hot-unplug: @count times, the slot emptied (the first @at s
    after the job started, then @period s after each re-plug; a surprise
    removal with @sudden) and filled again @replug s later (never if
    None).  Each step in faults.log."""
    time.sleep(at)
    for i in range(count):
        if i:
            time.sleep(period)
        if g['id'] in done:
            return
        try:
            msg = hot_unplug(g, ctx, sudden)
            fault_line(g, f'injected hot-unplug {msg}')
            log(msg)
            if replug is None:
                return
            time.sleep(replug)
            if g['id'] in done:
                return
            msg = hot_plug(g, ctx)
            fault_line(g, f'injected hot-plug {msg}')
            log(msg)
        except (RuntimeError, OSError, json.JSONDecodeError) as e:
            fault_line(g, f'hot-unplug failed: {e}')
            log(f'g{g["id"]} hot-unplug failed: {e}')
            return
