# SPDX-License-Identifier: GPL-2.0-or-later
"""The QEMU command line of a guest: the binary, its firmware, the e810 device
in QEMU or through e810-vfio-user."""
import json
import os
import re
import shlex
import subprocess

from .common import BUILD, CMDLINE, FW_DIRS, LOG_OPTS, TOP
from .vfu import is_vfu


def fw_args(qemu):
    args = []
    for d in FW_DIRS:
        if os.path.isdir(d):
            args += ['-L', d]
    return args


def have_pvh(qemu):
    qd = os.path.dirname(os.path.realpath(qemu))
    return any(os.path.exists(os.path.join(d, 'pvh.bin'))
               for d in FW_DIRS + [qd, os.path.join(qd, 'pc-bios')])


def resolve_qemu(spec):
    """--qemu PATH, or stock-built / stock-debian through scripts/stock-qemu
    (which installs or builds it on first use)."""
    if spec in ('stock-built', 'stock-debian'):
        r = subprocess.run([os.path.join(TOP, 'scripts', 'stock-qemu'), '--which', spec[6:]],
                           stdout=subprocess.PIPE, text=True)
        if r.returncode or not r.stdout.strip():
            raise SystemExit(f'vm: scripts/stock-qemu --which {spec[6:]} failed (exit {r.returncode})')
        return r.stdout.strip().splitlines()[-1]
    return spec


def qemu_has_device(qemu, name):
    """Whether `qemu -device help` lists the device (cached per binary)."""
    st_ = os.stat(qemu)
    key = f'{os.path.realpath(qemu)}:{st_.st_size}:{int(st_.st_mtime)}:{name}'
    cache = os.path.join(BUILD, 'qemu-devices.json')
    try:
        known = json.load(open(cache))
    except (OSError, ValueError):
        known = {}
    if key not in known:
        r = subprocess.run([qemu, '-nodefaults', '-machine', 'none', '-device', 'help'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        known[key] = bool(re.search(r'name "' + re.escape(name) + '"', r.stdout))
        try:
            os.makedirs(BUILD, exist_ok=True)
            with open(cache, 'w') as f:
                json.dump(known, f)
        except OSError:
            pass
    return known[key]


def port_netdev(g, p, key):
    """Port p's netdev toward the relay or the switch: the switch's tap
    itself when the relay handed it over (g['tap_fds']), else a stream
    client of the relay.  The snapshot key (@key) has the stream form
    either way: the backend is not the guest's state."""
    fds = g.get('tap_fds') or []
    if not key and p < len(fds) and fds[p] is not None:
        return f'tap,id=n{p},fd={fds[p]}'
    return f'stream,id=n{p},server=off,addr.type=unix,addr.path={g["link_socks"][p]}'


def net_args(a, g, sockdir, vfu, key):
    """The guest's NIC and its netdev: e810 or virtio-net on the direct
    link, the link relay or a hub of its own; with vfio-user the device
    (and its link) are the server's."""
    cmd = ['-nic', 'none'] if g['nic'] == 'none' or vfu else []
    if vfu:
        # The device and its end of the link are the server's (server_cmd).
        # JSON: "socket" is a SocketAddress (QAPI struct); the key=value
        # form (socket.type=unix,socket.path=...) is refused ("Property
        # 'vfio-user-pci.socket.type' not found", QEMU 10.2 and 11.1).
        cmd += ['-device', 'pcie-root-port,id=rp0,chassis=1,x-speed=16,x-width=8',
                '-device', json.dumps({'driver': 'vfio-user-pci', 'socket': {
                    'type': 'unix', 'path': g['vfu_sock']}, 'bus': 'rp0', 'id': 'nic0'},
                    separators=(',', ':'))]
    elif g['nic'] != 'none':
        net = os.path.join(sockdir, 'net.sock')
        if g['link_sock']:
            # Through the link emulator or into the switch: the QEMUs are
            # stream clients of the relay (scripts/link-relay), which never
            # blocks.
            cmd += ['-netdev', port_netdev(g, 0, key)]
        elif a.guests == 1:
            # No peer: a hub port (a listening stream netdev without a
            # client crashes QEMU on set_link), with a second port that has
            # no peer either, so the hub takes frames and drops them like a
            # cable to nothing; alone, it would queue the first frame for
            # good and the device would see a full backend.
            cmd += ['-netdev', 'hubport,id=n0,hubid=0',
                    '-netdev', 'hubport,id=sink0,hubid=0']
        elif g['id'] == 0:
            net = g.get('net_path') or net
            cmd += ['-netdev', f'stream,id=n0,server=on,addr.type=unix,addr.path={net}']
        else:
            # Reconnecting (not the guest's state: not in the key): when
            # guest 0 migrates, its new QEMU listens at the same path and
            # this client finds it once the old one has gone.
            rc = '' if key else ',reconnect-ms=200'
            cmd += ['-netdev', f'stream,id=n0,server=off,addr.type=unix,addr.path={net}{rc}']
        if g['nic'] == 'e810':
            cmd += ['-device', 'pcie-root-port,id=rp0,chassis=1,x-speed=16,x-width=8',
                    '-device', e810_device(a, g, 0)]
            for p in range(1, getattr(a, 'ports', 1)):
                cmd += ['-netdev', port_netdev(g, p, key), '-device', e810_device(a, g, p)]
        elif g['nic'] == 'virtio':
            cmd += ['-device', f'virtio-net-pci,netdev=n0,mac={g["mac"]},id=nic0,romfile=']
        else:
            raise SystemExit(f'vm: unknown NIC type {g["nic"]}')
    return cmd


def e810_device(a, g, p):
    """The -device string of port @p of guest @g's e810 (function p of
    the root port's slot with --ports 2), as the command line and a
    re-plug (hotplug.py) give it."""
    if p:
        dev = f'e810,bus=rp0,addr=0.{p},netdev=n{p},mac={g["macs"][p]},id=nic{p}'
    else:
        dev = f'e810,bus=rp0,netdev=n0,mac={g["mac"]},id=nic0'
        if getattr(a, 'ports', 1) > 1:
            # The card's ports: functions 0, 1... of one slot.
            dev += ',addr=0.0,multifunction=on'
    return dev + (',' + a.nic_opts if a.nic_opts else '')


def guest_cmd(a, img, accel, g, sockdir, key=False):
    """The guest's QEMU command line; with key, only what the guest's state
    depends on (no trace, no capture: for the snapshot key)."""
    gd = g['dir']
    kern = os.path.join(img, 'vmlinux')
    if a.bzimage or not os.path.exists(kern) or not have_pvh(a.qemu):
        kern = os.path.join(img, 'bzImage')
    vfu = is_vfu(a, g)
    # vfio-user: the server maps the guest's RAM (DMA), so it is a memfd
    # shared with it (share=on; QEMU passes the fd in its DMA map messages).
    machine = 'q35,memory-backend=mem0' if vfu else 'q35'
    cmd = [a.qemu, '-machine', machine, '-accel', accel, '-nodefaults', '-no-user-config',
           '-nographic', '-no-reboot', '-m', str(a.mem), '-smp', str(a.smp),
           # Threads named (CPU 0/TCG, ...) for top and perf.
           '-name', f'g{g["id"]},debug-threads=on']
    if vfu:
        cmd += ['-object', f'memory-backend-memfd,id=mem0,size={a.mem}M,share=on']
    if accel == 'kvm':
        cmd += ['-cpu', 'host']
    cmd += fw_args(a.qemu)
    pkgs = getattr(a, 'packages_image', None)
    cmd += ['-kernel', kern, '-initrd', g['initrd'],
            '-append', CMDLINE + (' e810.packages=1' if pkgs else '') + (' ' + a.append if a.append else '')]
    if a.interactive:
        cmd += ['-serial', 'mon:stdio']
    else:
        # Restored from a snapshot: console.log and dmesg.raw start with
        # what the guest printed before it (g['append']).
        app = ',append=on' if g.get('append') else ''
        cmd += ['-chardev', f'file,id=con,path={gd}/console.log{app}', '-serial', 'chardev:con']
    cmd += ['-device', 'virtio-serial-pci,id=vser0']
    for name in ('output', 'dmesg', 'status'):
        path = f'{gd}/{name}.raw' if name == 'dmesg' else f'{gd}/{name}' + ('.log' if name == 'output' else '')
        # A migration's destination (append_all) adds to all of them.
        app = ',append=on' if g.get('append_all') or g.get('append') and name == 'dmesg' else ''
        cmd += ['-chardev', f'file,id={name},path={path}{app}',
                '-device', f'virtserialport,bus=vser0.0,chardev={name},name=e810.{name}']
    cmd += ['-chardev', f'socket,id=ctl,path={g["ctl"]},server=off',
            '-device', 'virtserialport,bus=vser0.0,chardev=ctl,name=e810.ctl']
    cmd += ['-device', 'virtio-rng-pci']
    if a.mode:
        # A new VM generation ID at every start (guid=auto), so a guest
        # restored from a snapshot reseeds its RNG at once (Linux vmgenid).
        cmd += ['-device', 'vmgenid']
    cmd += ['-chardev', f'socket,id=qmp,path={g["qmp"]},server=on,wait=off',
            '-mon', 'chardev=qmp,mode=control',
            '-chardev', f'socket,id=hmp,path={g["hmp"]},server=on,wait=off',
            '-mon', 'chardev=hmp,mode=readline']
    cmd += net_args(a, g, sockdir, vfu, key)
    for tag, path, ro in g['shares']:
        # virtio-9p; the guest's /init mounts each tag at /mnt/TAG.
        cmd += ['-fsdev', f'local,id=fs{tag},path={path},security_model=none,multidevs=remap'
                + (',readonly=on' if ro else ''),
                '-device', f'virtio-9p-pci,fsdev=fs{tag},mount_tag={tag}']
    if pkgs:
        # --packages: read-only; the guest's /init lays it under its root.
        cmd += ['-drive', f'if=none,id=packages,format=raw,readonly=on,file={pkgs}',
                '-device', 'virtio-blk-pci,drive=packages,serial=e810-packages']
    if a.savevm:
        # A disk the guest does not see, for savevm/loadvm's states.
        cmd += ['-drive', f'if=none,id=vmstate,format=qcow2,file={gd}/vmstate.qcow2']
    for q in a.qemu_arg:
        qa = shlex.split(q)
        if key:
            # QEMU's logging is not the guest's state.
            qa = [x for i, x in enumerate(qa) if x not in LOG_OPTS and
                  not (i and qa[i - 1] in LOG_OPTS)]
        cmd += qa
    if key:
        return cmd
    if g.get('pcap') and g['nic'] != 'none' and not vfu:
        pcap = g.get('pcap_file') or g['pcap']
        cmd += ['-object', f'filter-dump,id=d0,netdev=n0,file={pcap}']
    if a.trace and not vfu:
        # (vfio-user: the device's events are the server's, server_cmd.)
        # One events file: several -trace options with one file= would
        # each open (and truncate) it.
        with open(f'{gd}/trace.events', 'w') as f:
            f.write(''.join(t + '\n' for t in a.trace))
        cmd += ['-trace', f'events={gd}/trace.events,file={g.get("trace_file") or gd + "/trace.log"}']
    if g.get('incoming'):
        cmd += ['-incoming', 'defer']
    return cmd
