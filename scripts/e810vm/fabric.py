# SPDX-License-Identifier: GPL-2.0-or-later
"""How the guests' ports are joined (docs/fabrics.md): a direct cable
between two guests (QEMU's -netdev stream, or scripts/link-relay), one
switch for any number of guests (libvdeplug4's VDE switch, each port
plugged in through scripts/link-relay), two fabrics (port 0 of every
guest on one switch, port 1 on another), or each guest's two ports cabled
to each other (back to back)."""
import os
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


def link_sock(a, g, sockdir):
    """Port 0's relay socket (link_socks)."""
    return link_socks(a, g, sockdir)[0]


def fabric_ids(a):
    """(the first guest's id, the fabric's number of guests): 0 and
    --guests, or across hosts --first-guest and --fabric-guests."""
    k = getattr(a, 'first_guest', 0) or 0
    return k, getattr(a, 'fabric_guests', None) or k + a.guests


def switch_dir(sockdir, s=0):
    return os.path.join(sockdir, f'sw{s}')


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
        return [g['link_socks'][p] for g in guests if g.get('link_socks') and g['link_socks'][p]]
    cmds = []
    if topo in ('switch', 'two-fabrics'):
        nsw = 2 if topo == 'two-fabrics' else 1
        for s in range(nsw):
            sw, sfx = switch_dir(sockdir, s), str(s) if s else ''
            # The switch lives in this vde_plug (null:// as its other end);
            # the relay plugs every port in with a vde_plug of its own.
            cmds.append((f'switch{sfx}', ['vde_plug', f'switch://{sw}', 'null://']))
            if s < len(uplinks):
                # The switches of several hosts as one: this one's extra
                # port plugged into the overlay (vxvde://, udp://...).
                cmds.append((f'uplink{sfx}', ['vde_plug', f'vde://{sw}', uplinks[s]]))
            on = [x for p in range(ports) if nsw == 1 or p == s for x in socks(p)]
            cmds.append((f'link{sfx}', [relay, '--switch', f'vde://{sw}', a.link or ''] + on +
                         stats(f'link{sfx}')))
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
    while not all(os.path.exists(p) for p in paths) and proc.poll() is None:
        time.sleep(0.01)
    if proc.poll() is not None:
        raise SystemExit(f'vm: the {name} did not start: ' +
                         open(os.path.join(out, f'{name}.log'), errors='replace').read().strip())


def start_fabric(a, guests, sockdir):
    """The switches, uplinks and relays, started and waited for (their
    sockets): the processes, in start order."""
    procs = []
    try:
        for name, cmd in fabric_cmds(a, guests, sockdir):
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                 stdout=open(os.path.join(a.out, f'{name}.log'), 'w'),
                                 stderr=subprocess.STDOUT, start_new_session=True)
            procs.append((name, p))
            if name.startswith('switch'):
                wait_for(p, [os.path.join(cmd[1][len('switch://'):], 'ctl')], name, a.out)
            elif name.startswith('uplink'):
                # No file to wait for: a plug that cannot open its URL
                # ends at once.
                time.sleep(0.2)
                wait_for(p, [], name, a.out)
            else:
                wait_for(p, [x for x in cmd if x.endswith('.sock')], name, a.out)
    except BaseException:
        stop_fabric(procs)
        raise
    return procs


def stop_fabric(procs):
    """The relays first (they write their counts as they end), then the
    switches."""
    for name, p in reversed(procs):
        if p.poll() is None:
            p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            log(f'the {name} did not end: killed')
            p.kill()
            p.wait()
