# SPDX-License-Identifier: GPL-2.0-or-later
"""A run: the guests started (fresh or from a snapshot), watched until they end
or time out, and their results collected."""
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from .common import IPS, MACS, SNAPSHOTS, TOP, log, nic_of, port_ip, port_mac, shell_env
from .fabric import (fabric_cmds, fabric_ids, link_socks, start_fabric, stop_fabric, take_taps,
                     topology)
from .jobs import job_cpio, kmsg_to_dmesg, send_job
from .monitor import qmp_hmp
from .vfu import is_vfu, server_cmd, start_server, stop_server, vfu_device_died
from .qemu import guest_cmd
from .snapshots import Snap, restore_snapshot, snapshot_key
from .control import Control


def packages_image(a):
    """--packages: the path of their read-only disk image, built once per
    package set (images/packages), or None.  The guests get it as a
    virtio disk (guest_cmd) and their /init lays it under the root."""
    names = [n for x in getattr(a, 'packages', []) for n in x.split(',') if n]
    if not names:
        return None
    return subprocess.run([os.path.join(TOP, 'images', 'packages'), '--print-image'] + names,
                          check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


def unpacked_size(path):
    """What the archive at @path unpacks to, in bytes (a .zst is
    decompressed to count: the image's is written without its size)."""
    if not path.endswith('.zst'):
        return os.path.getsize(path)
    # Counted once per image build: PATH.unpacked says "mtime size bytes".
    st = os.stat(path)
    stamp = f'{st.st_mtime_ns} {st.st_size}'
    try:
        old = open(path + '.unpacked').read().split()
        if ' '.join(old[:2]) == stamp:
            return int(old[2])
    except (OSError, IndexError, ValueError):
        pass
    z = subprocess.Popen(['zstd', '-dcq', path], stdout=subprocess.PIPE)
    n = 0
    for b in iter(lambda: z.stdout.read(1 << 20), b''):
        n += len(b)
    z.wait()
    try:
        with open(path + '.unpacked', 'w') as f:
            f.write(f'{stamp} {n}\n')
    except OSError:
        pass        # a read-only image folder: counted again next time
    return n


def tree_size(path):
    """The bytes of the file, or of the files under the folder, at @path."""
    if not os.path.isdir(path):
        return os.path.getsize(path) if os.path.exists(path) else 0
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs
               if os.path.isfile(os.path.join(d, f)))


# What the guest writes into its root filesystem beside the archives.
ROOT_SLACK = 16 << 20


def check_fit(a, parts, guests, tail):
    """Refuses before boot, naming sizes, archives the guests' root
    filesystem cannot hold: the kernel unpacks the initramfs into a tmpfs
    of half the RAM, and beyond it fails ("Initramfs unpacking failed:
    write error") and the guest panics."""
    sizes = [(os.path.basename(p), unpacked_size(p)) for p in parts if os.path.exists(p)]
    job = 0
    for g in guests:
        n = os.path.getsize(g['initrd']) - len(tail) if os.path.exists(g['initrd']) else 0
        if g.get('job'):
            # --mode: the job's archive comes after the bring-up.
            n += sum(tree_size(src) for src, _ in g['job'][2])
        job = max(job, n)
    total = sum(n for _, n in sizes) + job
    room = (a.mem << 20) // 2 - ROOT_SLACK
    if total > room:
        def mib(n):
            return f'{n / (1 << 20):.0f} MiB'
        raise SystemExit(
            f'vm: the guests\' initramfs unpacks to {mib(total)} ('
            + ', '.join(f'{name} {mib(n)}' for name, n in sizes) + f', the job {mib(job)}), '
            f'more than the root filesystem of a {a.mem} MiB guest holds ({mib(room)}: half '
            f'its RAM, less {mib(ROOT_SLACK)} for what it writes there); give the guests more '
            f'--mem, or fewer --file/--extras/--kmods (--packages go on a disk of their own)')


def initrd_parts(a, img):
    """The archives after a guest's job (or bring-up) archive: the
    extras, the modules added by name, then the image; and their bytes,
    each padded to 512 but the last."""
    parts = []
    if a.extras:
        parts.append(os.path.join(img, 'extras.cpio'))
    if getattr(a, 'kmods', None):
        # Modules by name: the image's kernel's, with their dependencies
        # (images/kmods; the guest's /init runs depmod for them).
        names = [n for x in a.kmods for n in x.split(',') if n]
        parts.append(subprocess.run([os.path.join(TOP, 'images', 'kmods'), '--print-archive', img] +
                                    names, check=True, stdout=subprocess.PIPE,
                                    text=True).stdout.strip())
    parts.append(os.path.join(img, 'initramfs.cpio.zst'))
    tail = b''
    for p in parts:
        if a.dry_run and not os.path.exists(p):
            continue
        data = open(p, 'rb').read()
        tail += data + (b'\0' * (-len(data) % 512) if p != parts[-1] else b'')
    return parts, tail


def guest_env(a, i, kernel):
    """Guest @i's job environment, and its bring-up's (--mode) or None."""
    # The fabric's guests (all hosts'); this host's start at first_guest.
    k, total = fabric_ids(a)
    me = k + i
    peer = 1 - me if total == 2 else None
    env = {'GUEST_ID': me, 'NGUESTS': total, 'GUEST_IP': IPS[me], 'PREFIX_LEN': 24,
           'GUEST_MAC': MACS[me], 'NIC': nic_of(a, i), 'KERNEL': kernel,
           'PEER_IP': IPS[peer] if peer is not None else '',
           'PEER_MAC': MACS[peer] if peer is not None else '',
           'PEER_NIC': nic_of(a, peer - k) if peer is not None and 0 <= peer - k < a.guests else '',
           # Every other guest, in guest order: on a switch all are peers.
           'PEERS': ' '.join(IPS[j] for j in range(total) if j != me),
           'TOPOLOGY': topology(a), 'PORTS': getattr(a, 'ports', 1)}
    b2b = topology(a) == 'back-to-back'
    for p in range(1, getattr(a, 'ports', 1)):
        # The other ports of the card: their addresses and MACs, and the
        # peers' on the same fabric (none back to back: the port's peer
        # is the guest's own port 0).
        env[f'GUEST_IP{p}'] = port_ip(me, p, b2b)
        env[f'GUEST_MAC{p}'] = port_mac(me, p)
        env[f'PEERS{p}'] = '' if b2b else ' '.join(port_ip(j, p) for j in range(total) if j != me)
    env.update(a.share_env)
    boot_env = dict(env, E810_BRINGUP=a.mode) if a.mode else None
    if a.mode:
        env['E810_MODE'] = a.mode
    if a.interactive:
        env['INTERACTIVE'] = 1
    for kv in a.env:
        k, _, v = kv.partition('=')
        env[k] = v
    return env, boot_env


def job_of(a, i):
    """Guest @i's script (a shell script, #! added) and --file files."""
    path = a.script if i == 0 else a.script1 or a.script
    script = open(path, 'rb').read() if path else b'#!/bin/sh\ntrue\n'
    if not script.startswith(b'#!'):
        script = b'#!/bin/sh\n' + script
    files = []
    for spec in a.file:
        src, _, dst = spec.partition(':')
        files.append((src, dst or os.path.join('job/files', os.path.basename(src.rstrip('/')))))
    return script, files


def faults_of(a, i):
    """Guest @i's --fault specs (those for all guests and its own gN:),
    as one spec."""
    out = []
    for spec in a.fault:
        m = re.match(r'g(\d+):(.*)$', spec)
        if not m:
            out.append(spec)
        elif int(m.group(1)) == i:
            out.append(m.group(2))
    return ';'.join(out)


def pcap_of(a, i):
    """The capture of guest @i's port (--pcap [gN:]FILE), or None."""
    for spec in a.pcap:
        m = re.match(r'g(\d+):(.*)$', spec)
        if (int(m.group(1)) if m else 0) == i:
            return os.path.abspath(m.group(2) if m else spec)
    return None


def prepare_guest(a, i, sockdir, kernel, tail):
    """Guest @i's folder, sockets and initrd: its description (a dict)."""
    gd = os.path.join(os.path.abspath(a.out), f'g{i}')
    shutil.rmtree(gd, ignore_errors=True)
    os.makedirs(gd)
    sd = gd if sockdir == a.out else os.path.join(sockdir, f'g{i}')
    os.makedirs(sd, exist_ok=True)
    env, boot_env = guest_env(a, i, kernel)
    script, files = job_of(a, i)
    faults = faults_of(a, i)
    nic = nic_of(a, i)
    g = {'id': i, 'dir': gd, 'nic': nic, 'mac': MACS[fabric_ids(a)[0] + i],
         'initrd': os.path.join(gd, 'initrd'), 'shares': a.shares,
         'ctl': os.path.join(sd, 'ctl.sock'), 'qmp': os.path.join(sd, 'qmp.sock'),
         'hmp': os.path.join(sd, 'hmp.sock'), 'lock': threading.Lock(),
         'vfu_sock': os.path.join(sockdir, f'vfu-g{i}.sock'),
         'vfu_ctl': os.path.join(sockdir, f'vfu-ctl-g{i}.sock'),
         'vfu': nic == 'e810' and a.device_backend == 'vfio-user',
         'fault': faults if nic == 'e810' else ''}
    g['link_socks'] = link_socks(a, g, sockdir)
    g['link_sock'] = g['link_socks'][0]
    g['macs'] = [g['mac']] + [port_mac(fabric_ids(a)[0] + i, p)
                              for p in range(1, getattr(a, 'ports', 1))]
    g['pcap'] = pcap_of(a, i)
    if a.mode:
        # The initrd brings the guest up (/job/env with E810_BRINGUP,
        # bringup); the job comes over e810.ctl afterwards, with fresh
        # entropy for the guest's RNG and the time.
        g['boot'] = job_cpio(None, shell_env(boot_env), [
            (os.path.join(TOP, 'guest-driver', 'bringup'), 'job/files/bringup')])
        g['job'] = (script, env, files)
        first = g['boot']
    else:
        first = job_cpio(script, shell_env(env), files)
    with open(g['initrd'], 'wb') as f:
        # The small uncompressed job archive first, then the image: the
        # kernel unpacks concatenated archives, but its zstd decompressor
        # does not stop at the end of a frame, so nothing can follow it.
        f.write(first + b'\0' * (-len(first) % 512))
        f.write(tail)
    for k in ('output.log', 'status', 'dmesg.raw', 'console.log'):
        open(os.path.join(gd, k), 'w').close()
    if a.savevm:
        subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2',
                        os.path.join(gd, 'vmstate.qcow2'), '1G'], check=True)
    return g


def plan_snapshot(a, img, accel, guests, sockdir, parts):
    """--mode: whether this run saves a snapshot, uses one, or neither
    (Snap, its plan decided)."""
    snap = Snap(a, None)
    why = []
    if a.no_snapshot:
        snap.note('off (--no-snapshot): booting fresh, then the bring-up')
        return snap
    if a.shares:
        why.append('--share/--rdma-core (virtio-9p does not migrate)')
    if a.interactive:
        why.append('--interactive')
    if any(is_vfu(a, g) for g in guests):
        why.append('--device-backend vfio-user (e810-vfio-user has no migration)')
    if why:
        snap.note('refused: ' + ', '.join(why) + '; booting fresh, then the bring-up')
        return snap
    cmds = [guest_cmd(a, img, accel, g, sockdir, key=True) for g in guests]
    snap.key, snap.name = snapshot_key(a, img, accel, guests, sockdir, cmds, parts)
    snap.dir = os.path.join(SNAPSHOTS, snap.name)
    snap.decide()
    return snap


def snapshot_logs(snap, guests):
    """A restored guest's console and kernel log begin with the saved
    guest's."""
    for g in guests:
        i = g['id']
        shutil.copyfile(os.path.join(snap.dir, f'g{i}.console'), os.path.join(g['dir'], 'console.log'))
        with open(os.path.join(g['dir'], 'console.log'), 'a') as f:
            f.write(f'\n[scripts/vm: restored from snapshot {snap.name}]\n')
        shutil.copyfile(os.path.join(snap.dir, f'g{i}.dmesg'), os.path.join(g['dir'], 'dmesg.raw'))
        g['append'] = g['incoming'] = True


def start_control(guests, snap, ctx):
    """The launcher's end of each guest's e810.ctl, served in threads."""
    ctl = Control(guests, snap)
    ctl.ctx = ctx
    for g in guests:
        ls = socket.socket(socket.AF_UNIX)
        if os.path.exists(g['ctl']):
            os.unlink(g['ctl'])
        ls.bind(g['ctl'])
        ls.listen(1)
        g['lsock'] = ls
        threading.Thread(target=ctl.serve, args=(g, ls), daemon=True).start()
    return ctl


def start_guests(a, img, accel, guests, sockdir, deadline):
    """Each guest's QEMU (and e810-vfio-user server), in order; the
    error that stopped it, or None."""
    for g in guests:
        open(os.path.join(g['dir'], 'cmdline'), 'w').close()
        if is_vfu(a, g):
            try:
                start_server(a, g, sockdir, deadline)
            except RuntimeError as e:
                return str(e)
        cmd = guest_cmd(a, img, accel, g, sockdir)
        with open(os.path.join(g['dir'], 'cmdline'), 'a') as f:
            f.write(' '.join(shlex.quote(c) for c in cmd) + '\n')
        taps = [x for x in g.get('tap_fds') or [] if x is not None]
        if a.interactive:
            g['proc'] = subprocess.Popen(cmd, pass_fds=taps)
        else:
            # Appended to: a migration's destination writes there too.
            open(os.path.join(g['dir'], 'qemu.log'), 'w').close()
            g['proc'] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                         stdout=open(os.path.join(g['dir'], 'qemu.log'), 'a'),
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         pass_fds=taps)
        g['start'] = time.time()
        if g['id'] == 0 and a.guests == 2 and g['nic'] != 'none' and not g['link_sock']:
            # The client QEMU needs the server's socket to exist.
            net = os.path.join(sockdir, 'net.sock')
            while not os.path.exists(net) and g['proc'].poll() is None and time.time() < deadline:
                time.sleep(0.01)
    return None


def stop_all(guests, fabric):
    """Never leave a QEMU behind (Ctrl-C, errors): they run in their own
    sessions, so a terminal's signals do not reach them."""
    for g in guests:
        for k in ('proc', 'mig_proc'):
            if g.get(k) and g[k].poll() is None:
                g[k].kill()
                g[k].wait()
    # One grace period for all: each exits as its QEMU disconnects.
    end = time.time() + 5
    for g in guests:
        stop_server(g, max(0, end - time.time()) if g.get('proc') else 0)
    stop_fabric(fabric)


def abandon(a, guests, ctl, sockdir, show_logs=False):
    """A run given up before its guests ran their jobs: their control
    sockets and the socket folder go."""
    for g in guests:
        ctl.guest_ended(g['id'])
        g['lsock'].close()
        qlog = os.path.join(g['dir'], 'qemu.log')
        if show_logs and os.path.exists(qlog) and os.path.getsize(qlog):
            log(f'g{g["id"]} qemu.log: ' + open(qlog, errors='replace').read().strip()[-400:])
    if sockdir != a.out:
        shutil.rmtree(sockdir, ignore_errors=True)


def run_guests(a, img, accel, snap=None):
    """Runs the guests; returns per-guest status strings.  snap: after a
    snapshot that did not load, what to do instead (Snap)."""
    os.makedirs(a.out, exist_ok=True)
    sockdir = a.out
    if len(os.path.join(os.path.abspath(a.out), 'g0', 'ctl.sock')) > 100:
        sockdir = tempfile.mkdtemp(prefix='e810vm-')   # unix socket path limit
    a.packages_image = packages_image(a)
    parts, tail = initrd_parts(a, img)
    guests = [prepare_guest(a, i, sockdir, os.path.basename(img), tail)
              for i in range(a.guests)]
    check_fit(a, parts, guests, tail)
    if a.dry_run:
        return dry_run(a, img, accel, guests, sockdir)
    if a.mode and snap is None:
        snap = plan_snapshot(a, img, accel, guests, sockdir, parts)
    if snap and snap.plan == 'use':
        snapshot_logs(snap, guests)
    ctl = start_control(guests, snap, (a, img, accel, sockdir))
    deadline = time.time() + a.timeout
    fabric = start_fabric(a, guests, sockdir)
    retry = vfu_error = None
    try:
        take_taps(a, guests)
        vfu_error = start_guests(a, img, accel, guests, sockdir, deadline)
        if vfu_error is None and snap and snap.plan == 'use':
            try:
                restore_snapshot(snap, guests)
            except RuntimeError as e:
                retry = str(e)
            else:
                for g in guests:
                    send_job(g)
        if retry is None and vfu_error is None:
            wait_guests(guests, ctl, deadline, a.timeout)
    finally:
        stop_all(guests, fabric)
    if vfu_error is not None:
        abandon(a, guests, ctl, sockdir)
        raise SystemExit('vm: ' + vfu_error)
    if retry is not None:
        # The snapshot did not load: everything again from a fresh boot.
        abandon(a, guests, ctl, sockdir, show_logs=True)
        snap.drop(f'it did not load: {retry}')
        return run_guests(a, img, accel, snap)
    if fabric and not a.quiet:
        for name, _ in fabric:
            if name.startswith('link'):
                print(open(os.path.join(a.out, f'{name}.log'), errors='replace').read().strip())
    return collect(a, guests, sockdir)


def dry_run(a, img, accel, guests, sockdir):
    """--dry-run: the commands run_guests would start, in order; nothing
    started, the job archives removed again."""
    def q(c):
        return ' '.join(shlex.quote(x) for x in c)
    print(f'# accelerator {accel}, image {img}')
    for name, cmd in fabric_cmds(a, guests, sockdir):
        print(f'# {name} (output {a.out}/{name}.log)\n' + q(cmd))
    for g in guests:
        if is_vfu(a, g):
            print(f'# g{g["id"]}: e810-vfio-user (started first, waited for; output {g["dir"]}/vfu.log)')
            print(q(server_cmd(a, g, sockdir)))
        print(f'# g{g["id"]}: QEMU (output {g["dir"]}/qemu.log)')
        print(q(guest_cmd(a, img, accel, g, sockdir)))
    if a.mode and any(is_vfu(a, g) for g in guests):
        print('# --mode: no snapshot with --device-backend vfio-user (fresh boot, then the bring-up)')
    for g in guests:
        if os.path.exists(g['initrd']):
            os.unlink(g['initrd'])
    if sockdir != a.out:
        shutil.rmtree(sockdir, ignore_errors=True)
    return ['dry-run'] * len(guests)


def merge_moved(a, g):
    """After migrations: each destination's trace (and guest 0's capture)
    goes after the source's, into the guest's own files."""
    for d in g.get('moved', []):
        tf = d['trace_file']
        if os.path.exists(tf):
            with open(os.path.join(g['dir'], 'trace.log'), 'ab') as f, open(tf, 'rb') as s:
                shutil.copyfileobj(s, f)
            os.unlink(tf)
        pf = d.get('pcap_file')
        if pf and g.get('pcap') and os.path.exists(pf):
            # The same link type and snap length: the records, without the
            # second file's 24-byte header.
            with open(g['pcap'], 'ab') as f, open(pf, 'rb') as s:
                s.seek(24)
                shutil.copyfileobj(s, f)
            os.unlink(pf)


def hang_dump(g):
    """A guest past the run's timeout: where its vCPUs are (`info cpus`,
    every vCPU's registers) into hang.txt before it is ended, so a hang
    explains itself (once a guest that had reported its status never
    powered off)."""
    path = os.path.join(g['dir'], 'hang.txt')
    try:
        with g['lock']:
            out = [qmp_hmp(g['qmp'], c, timeout=5) for c in ('info cpus', 'info registers -a')]
        with open(path, 'w') as f:
            f.write('\n'.join(out))
        log(f'g{g["id"]}: past the timeout; its vCPUs in {path}')
    except (OSError, RuntimeError, ValueError) as e:
        log(f'g{g["id"]}: past the timeout; no vCPU state ({e})')


def wait_guests(guests, ctl, deadline, timeout):
    running = list(guests)
    while running:
        for g in list(running):
            # Not while a migration swaps the guest's QEMU (its lock).
            with g['lock']:
                rc = g['proc'].poll()
            vp = g.get('vfu_proc')
            if rc is None and vp is not None and not g.get('vfu_kill_req') and \
                    not g.get('unplugged') and vfu_device_died(g):
                # The device is gone: QEMU would wait on its socket (and the
                # guest on its device) until the timeout.  A server that
                # exited 0 saw its client go: QEMU is on its way out (it
                # closes the socket before it exits), so it gets 5 s.
                now = time.time()
                g.setdefault('vfu_gone', now)
                if not g.get('vfu_died') and (vp.returncode != 0 or now - g['vfu_gone'] > 5):
                    g['vfu_died'] = now
                    log(f'g{g["id"]}: e810-vfio-user exited ({vp.returncode}) while the guest ran; '
                        'ending its QEMU')
                    g['proc'].send_signal(signal.SIGTERM)
                elif g.get('vfu_died') and now - g['vfu_died'] > 3:
                    g['proc'].kill()
            if rc is not None:
                g['rc'], g['end'] = rc, time.time()
                running.remove(g)
                ctl.guest_ended(g['id'])
        if running and time.time() > deadline:
            for g in running:
                g['timeout'] = True
                hang_dump(g)
                g['proc'].send_signal(signal.SIGTERM)
            for g in running:
                try:
                    g['proc'].wait(3)
                except subprocess.TimeoutExpired:
                    g['proc'].kill()
                    g['proc'].wait()
                g['rc'], g['end'] = g['proc'].returncode, time.time()
                ctl.guest_ended(g['id'])
            running = []
        time.sleep(0.02)


def collect(a, guests, sockdir):
    statuses = []
    for g in guests:
        gd = g['dir']
        g['lsock'].close()
        st = open(os.path.join(gd, 'status'), errors='replace').read().strip()
        con = open(os.path.join(gd, 'console.log'), errors='replace').read()
        if not st:
            m = re.findall(r'E810-VM-STATUS: (\d+)', con)
            st = m[-1] if m else ''
        out = os.path.join(gd, 'output.log')
        if os.path.getsize(out) == 0 and '===E810-OUTPUT-BEGIN===' in con:
            with open(out, 'w') as f:
                f.write(con.split('===E810-OUTPUT-BEGIN===\n', 1)[1].split('===E810-OUTPUT-END===')[0])
        rc = g['rc']
        detail = ''
        if g.get('timeout'):
            st, detail = 'timeout', f'killed after {a.timeout} s'
        elif rc < 0:
            st, detail = 'qemu-crashed', f'qemu crashed (signal {-rc})'
        elif rc > 0 and g.get('vfu_proc') and 'vfio-user-pci' in open(
                os.path.join(gd, 'qemu.log'), errors='replace').read():
            # E.g. "Failed to connect to '...vfu-g0.sock': ..." at start.
            st, detail = 'qemu-crashed', f'qemu refused the vfio-user device (exit {rc})'
        elif rc > 0:
            st, detail = 'qemu-crashed', f'qemu crashed (exit {rc})'
        elif not st:
            st, detail = 'no-status', 'guest ended without reporting a status (panic?)'
        if g.get('vfu_proc') and not g.get('timeout'):
            vrc = g.get('vfu_rc')
            vlog = open(os.path.join(gd, 'vfu.log'), errors='replace').read().strip()
            if g.get('vfu_kill_req'):
                detail = (detail + '; ' if detail else '') + \
                    'e810-vfio-user killed on request (server-kill), its QEMU left running'
            elif g.get('vfu_died') or (vrc and not g.get('vfu_killed')):
                why = f'signal {-vrc}' if vrc is not None and vrc < 0 else f'exit {vrc}'
                st, detail = 'server-crashed', f'e810-vfio-user ended ({why})' + (
                    ' while its guest ran' if g.get('vfu_died') else '')
                if vlog:
                    detail += '\n    vfu.log: ' + '\n    vfu.log: '.join(vlog.splitlines()[-5:])
            elif g.get('vfu_killed') and rc == 0:
                # Not the job's failure, but the server's: said, not counted.
                detail = (detail + '; ' if detail else '') + \
                    'e810-vfio-user did not exit after QEMU ended: killed'
        with open(os.path.join(gd, 'status'), 'w') as f:
            f.write(st + '\n')
        kmsg_to_dmesg(os.path.join(gd, 'dmesg.raw'), os.path.join(gd, 'dmesg.log'))
        merge_moved(a, g)
        os.unlink(os.path.join(gd, 'dmesg.raw'))
        os.unlink(g['initrd'])
        for k in ('ctl', 'qmp', 'hmp', 'vfu_sock'):
            if os.path.exists(g[k]):
                os.unlink(g[k])
        g['status'], g['detail'] = st, detail
        statuses.append(st)
        if not a.quiet:
            qlog = open(os.path.join(gd, 'qemu.log'), errors='replace').read().strip() if os.path.exists(os.path.join(gd, 'qemu.log')) else ''
            print(f'g{g["id"]}: status {st}{" - " + detail if detail else ""}  '
                  f'({g["end"] - g["start"]:.1f} s, nic {g["nic"]})  {gd}')
            if st == 'qemu-crashed' and qlog:
                print('    qemu.log: ' + '\n    qemu.log: '.join(qlog.splitlines()[-5:]))
    if os.path.exists(os.path.join(sockdir, 'net.sock')):
        os.unlink(os.path.join(sockdir, 'net.sock'))
    if sockdir != a.out:
        shutil.rmtree(sockdir, ignore_errors=True)
    return statuses
