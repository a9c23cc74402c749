# SPDX-License-Identifier: GPL-2.0-or-later
"""How the guests' ports are joined (docs/fabrics.md): a direct cable
between two guests (QEMU's -netdev stream, or scripts/link-relay), one
switch for any number of guests (a Linux bridge in a network namespace of
the run's own, each port a tap that scripts/link-relay joins to the
guest's -netdev stream), two fabrics (port 0 of every guest on one switch,
port 1 on another), or each guest's two ports cabled to each other (back
to back).  Switches of several hosts are joined through libvdeplug4's
overlays (vde_plug URL as one more port of the bridge)."""
import os
import socket
import subprocess
import time

from .common import TOP, log

TOPOLOGIES = ('direct', 'switch', 'two-fabrics', 'back-to-back')


def topology(a):
    """--topology, or its default: with one port a direct cable for one
    or two guests and a switch for more; with two, back to back for one
    guest, two cables for two, two fabrics for more."""
    if a.topology:
        return a.topology
    ports = getattr(a, 'ports', 1)
    if getattr(a, 'uplink', None):
        return 'two-fabrics' if ports == 2 else 'switch'
    if ports == 2:
        return 'back-to-back' if a.guests == 1 else 'direct' if a.guests == 2 else 'two-fabrics'
    return 'switch' if a.guests > 2 else 'direct'


def link_socks(a, g, sockdir):
    """The relay socket each of guest g's ports connects to as a stream
    client, or None (port 0 on the direct cable without --link, or no
    NIC)."""
    if g['nic'] == 'none':
        return [None] * getattr(a, 'ports', 1)
    out = []
    for p in range(getattr(a, 'ports', 1)):
        if p == 0 and topology(a) == 'direct' and not (a.link and a.guests == 2):
            out.append(None)
        else:
            out.append(os.path.join(sockdir, f'link{g["id"]}' + (f'p{p}' if p else '') + '.sock'))
    return out


def tap_port(a, g, p):
    """Whether guest g's port p is a tap of the switch's own that QEMU
    uses itself (-netdev tap,fd=, the file handed over by the relay): on
    a switch, a QEMU device, no --link (impairments need the relay in the
    path); e810-vfio-user connects to the relay's socket instead."""
    return (topology(a) in ('switch', 'two-fabrics') and g['nic'] != 'none'
            and not g.get('vfu') and not a.link and bool(g['link_socks'][p]))


def link_sock(a, g, sockdir):
    """Port 0's relay socket (link_socks)."""
    return link_socks(a, g, sockdir)[0]


def fabric_ids(a):
    """(the first guest's id, the fabric's number of guests): 0 and
    --guests, or across hosts --first-guest and --fabric-guests."""
    k = getattr(a, 'first_guest', 0) or 0
    return k, getattr(a, 'fabric_guests', None) or k + a.guests


def netns_cmd():
    """The namespace a switch lives in: a network namespace of its own
    (and, unless root, a user namespace that owns it): the bridge and its
    taps are the run's, nothing on the host's network sees them."""
    if os.geteuid() == 0:
        return ['unshare', '--net']
    return ['unshare', '--user', '--map-root-user', '--net']


def fabric_cmds(a, guests, sockdir):
    """The processes the fabric needs, in start order: (name, command).
    A relay's counts go to OUT/NAME.json."""
    relay = os.path.join(TOP, 'scripts', 'link-relay')
    topo = topology(a)
    ports = getattr(a, 'ports', 1)
    uplinks = getattr(a, 'uplink', None) or []

    def stats(name):
        return ['--stats', os.path.join(a.out, f'{name}.json')]

    def socks(p):
        return [('fd:' if tap_port(a, g, p) else '') + g['link_socks'][p]
                for g in guests if g.get('link_socks') and g['link_socks'][p]]
    cmds = []
    if topo in ('switch', 'two-fabrics'):
        nsw = 2 if topo == 'two-fabrics' else 1
        for s in range(nsw):
            sfx = str(s) if s else ''
            up = []
            if s < len(uplinks):
                # The switches of several hosts as one: the overlay's
                # vde_plug (vxvde://, udp://...) on a socket pair whose
                # other end is the bridge's uplink port (@FD: its number,
                # known once started).
                cmds.append((f'uplink{sfx}', ['vde_plug', uplinks[s]]))
                up = ['--uplink-fd', '@FD']
            on = [x for p in range(ports) if nsw == 1 or p == s for x in socks(p)]
            cmds.append((f'link{sfx}', netns_cmd() + [relay, '--bridge', f'br{s}', a.link or ''] +
                         on + up + stats(f'link{sfx}')))
    elif topo == 'back-to-back':
        for g in guests:
            if g.get('link_socks') and all(g['link_socks'][:2]):
                name = f'link-g{g["id"]}'
                cmds.append((name, [relay] + g['link_socks'][:2] + [a.link or ''] + stats(name)))
    else:
        for p in range(ports):
            s = socks(p)
            if len(s) == 2:
                name = 'link' + (str(p) if p else '')
                cmds.append((name, [relay, s[0], s[1], a.link or ''] + stats(name)))
    return cmds


def wait_for(proc, paths, name, out):
    paths = [p.removeprefix('fd:') for p in paths]
    while not all(os.path.exists(p) for p in paths) and proc.poll() is None:
        time.sleep(0.01)
    if proc.poll() is not None:
        raise SystemExit(f'vm: the {name} did not start: ' +
                         open(os.path.join(out, f'{name}.log'), errors='replace').read().strip())


def start_fabric(a, guests, sockdir):
    """The relays (with their switches) and uplinks, started and waited
    for (their sockets): the processes, in start order."""
    procs = []
    up = None
    try:
        for name, cmd in fabric_cmds(a, guests, sockdir):
            log_f = open(os.path.join(a.out, f'{name}.log'), 'w')
            if name.startswith('uplink'):
                up, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                p = subprocess.Popen(cmd, stdin=theirs, stdout=theirs, stderr=log_f,
                                     start_new_session=True)
                theirs.close()
                procs.append((name, p))
                # A plug that cannot open its URL ends at once.
                time.sleep(0.2)
                wait_for(p, [], name, a.out)
                continue
            fds = ()
            if '@FD' in cmd:
                cmd = [str(up.fileno()) if x == '@FD' else x for x in cmd]
                fds = (up.fileno(),)
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_f,
                                 stderr=subprocess.STDOUT, start_new_session=True, pass_fds=fds)
            procs.append((name, p))
            if up is not None and fds:
                up.close()
                up = None
            wait_for(p, [x for x in cmd if x.endswith('.sock')], name, a.out)
    except BaseException:
        stop_fabric(procs)
        raise
    finally:
        if up is not None:
            up.close()
    return procs


def take_taps(a, guests):
    """The switch's taps that the guests' QEMUs use themselves
    (tap_port), each file taken from its relay (SCM_RIGHTS) into
    g['tap_fds'][p]: QEMU inherits it (-netdev tap,fd=), and so does a
    migration's destination."""
    for g in guests:
        for p in range(getattr(a, 'ports', 1)):
            if not tap_port(a, g, p):
                continue
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.settimeout(10)
                s.connect(g['link_socks'][p])
                _, fds, _, _ = socket.recv_fds(s, 16, 1)
            finally:
                s.close()
            if len(fds) != 1:
                raise SystemExit(f'vm: the switch handed g{g["id"]} port {p} no tap')
            g.setdefault('tap_fds', [None] * getattr(a, 'ports', 1))[p] = fds[0]


def stop_fabric(procs):
    """The relays first (they write their counts as they end; a switch
    goes with its relay's namespace), then the uplinks."""
    for name, p in reversed(procs):
        if p.poll() is None:
            p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            log(f'the {name} did not end: killed')
            p.kill()
            p.wait()
