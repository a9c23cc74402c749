#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Smoke test of the real e810-vfio-user binary (TAP): start it on a socket
in a temporary directory, connect as a vfio-user client, do VERSION,
DEVICE_GET_INFO and a config-space read of the vendor/device IDs, close,
and expect the server to exit 0.  Then the device process is killed
under a client: its keeper answers as a failed device.  Seccomp stays on
(unless the build has none)."""
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

HDR = struct.Struct('<HHIII')


def msg(sock, mid, cmd, payload=b''):
    sock.sendall(HDR.pack(mid, cmd, HDR.size + len(payload), 0, 0) + payload)
    h = b''
    while len(h) < HDR.size:
        c = sock.recv(HDR.size - len(h))
        if not c:
            raise EOFError('server closed')
        h += c
    rid, rcmd, size, flags, err = HDR.unpack(h)
    body = b''
    while len(body) < size - HDR.size:
        c = sock.recv(size - HDR.size - len(body))
        if not c:
            raise EOFError('server closed')
        body += c
    return rid, rcmd, flags, err, body


def main():
    exe = sys.argv[1]
    n = 0
    fails = 0

    def ok(cond, what):
        nonlocal n, fails
        n += 1
        print('%s %d - %s' % ('ok' if cond else 'not ok', n, what))
        fails += 0 if cond else 1

    def start(path, *extra):
        """The server on @path, its first stderr line, a connected client."""
        p = subprocess.Popen([exe, '--socket', path, *extra],
                             stderr=subprocess.PIPE, text=True)
        line = p.stderr.readline()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(100):
            try:
                s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        return p, line, s

    def finish(p, s):
        """Close the client; the server's exit status and stderr."""
        s.close()
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = 'timeout'
        return rc, p.stderr.read()

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'vfu.sock')
        p, line, s = start(path)
        ok(line.strip() == 'e810-vfio-user: listening on ' + path,
           'listening line: ' + line.strip())
        caps = json.dumps({'capabilities': {'max_msg_fds': 16,
                                            'max_data_xfer_size': 1048576}})
        r = msg(s, 1, 1, struct.pack('<HH', 0, 0) + caps.encode() + b'\0')
        ok(r[2] == 1 and r[0] == 1, 'VERSION replied')
        ok(b'max_dma_maps' in r[4], 'capabilities: ' +
           r[4][4:].rstrip(b'\0').decode(errors='replace'))
        r = msg(s, 2, 4, struct.pack('<IIII', 16, 0, 0, 0))
        argsz, flags, nreg, nirq = struct.unpack('<IIII', r[4])
        ok(r[2] == 1 and flags == 3 and nreg == 9 and nirq == 3,
           'GET_INFO: flags %d regions %d irqs %d' % (flags, nreg, nirq))
        r = msg(s, 3, 9, struct.pack('<QII', 0, 7, 4))
        vid, did = struct.unpack('<HH', r[4][16:20])
        ok(r[2] == 1 and (vid, did) == (0x8086, 0x159B),
           'config read: %04x:%04x' % (vid, did))
        rc, err = finish(p, s)
        ok(rc == 0, 'server exits 0 after the client closes (rc %s)' % rc)
        if rc != 0:
            sys.stderr.write(err)

        # The control socket (--control): faults armed at run time, a bad
        # spec refused with its reason, the counters; its owner's only; a
        # line too long drops the client, the next one is served.
        cpath = os.path.join(d, 'ctl.sock')
        p, line, s = start(path, '--control', cpath)
        r = msg(s, 1, 1, struct.pack('<HH', 0, 0) + caps.encode() + b'\0')
        ok(oct(os.stat(cpath).st_mode & 0o777) == '0o600',
           'control socket mode %s' % oct(os.stat(cpath).st_mode & 0o777))

        def control(lines, raw=None):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.settimeout(10)
            c.connect(cpath)
            c.sendall(raw if raw is not None else
                      ''.join(x + '\n' for x in lines).encode())
            out = b''
            try:
                while out.count(b'\n') < len(lines):
                    b = c.recv(4096)
                    if not b:
                        break
                    out += b
            except OSError:
                pass
            c.close()
            return out.decode(errors='replace').splitlines()

        a = control(['fault link-flap:at=0.1:period=0.1:count=1', 'fault nonsense',
                     'fault qp-ae:qp=x', 'bogus'])
        ok(a[:1] == ['ok'], 'control: fault armed (%s)' % a[:1])
        ok(len(a) == 4 and a[1].startswith("error: unknown fault 'nonsense'") and
           a[2].startswith('error: qp-ae: bad qp=x') and a[3].startswith('error: unknown command'),
           'control: bad specs and commands refused with the reason (%s)' % a[1:])
        time.sleep(0.5)
        a = control(['stats', 'faults'])
        ok(a[:1] and a[0].startswith('faults_injected=2 '),
           'control: stats after a flap: %s' % a[:1])
        m = len(a) == 2 and re.fullmatch(
            r'(\d+\.\d{3}) link-flap 1 1;(\d+\.\d{3}) link-flap 0 1', a[1])
        ok(m and 0.04 <= float(m.group(2)) - float(m.group(1)) <= 0.3 and float(m.group(1)) < 30,
           'control: the injections with their times: %s' % a[1:])
        a = control(['x'], raw=b'x' * 5000)
        ok(a[:1] == ['error: line too long'], 'control: long line: %s' % a[:1])
        a = control(['fault-clear', 'stats'])
        ok(a[:1] == ['ok'] and len(a) == 2, 'control: served after a dropped client')
        r = msg(s, 2, 9, struct.pack('<QII', 0, 7, 4))
        ok(struct.unpack('<I', r[4][16:20])[0] == 0x159B8086,
           'the device answers its client meanwhile')
        rc, err = finish(p, s)
        ok(rc == 0,
           'server exits 0 with a control socket (rc %s)' % rc)

        # The device process killed under its client: the keeper answers
        # as a failed device (all ones), the client never loses its socket.
        p, line, s = start(path)
        r = msg(s, 1, 1, struct.pack('<HH', 0, 0) + caps.encode() + b'\0')
        kids = []
        for _ in range(100):
            with open('/proc/%d/task/%d/children' % (p.pid, p.pid)) as f:
                kids = [int(x) for x in f.read().split()]
            if kids:
                break
            time.sleep(0.05)
        ok(len(kids) == 1, 'one device process under the keeper: %s' % kids)
        # Both without capabilities or a way to gain any, each under its
        # seccomp allow-list: the device once set up (it has answered a
        # request after the first), the keeper once it has answered for
        # the killed device (it loads its list before it reads anything,
        # but may not have got that far when the device first answers).
        def confined(pid, what):
            st = {}
            try:
                with open('/proc/%d/status' % pid) as f:
                    st = dict(l.split(':', 1) for l in f if ':' in l)
            except OSError:
                pass
            caps = [st.get(k, '?').strip() for k in ('CapEff', 'CapPrm', 'CapBnd')]
            ok(caps == ['0000000000000000'] * 3 and st.get('NoNewPrivs', '').strip() == '1',
               '%s: no capabilities, no_new_privs (%s, %s)' %
               (what, ' '.join(caps), st.get('NoNewPrivs', '?').strip()))
            # Issue 32: both under their allow-list; started as root,
            # both as the unprivileged default user (nobody).
            ok(st.get('Seccomp', '').strip() == '2',
               '%s: seccomp filter (Seccomp: %s)' % (what, st.get('Seccomp', '?').strip()))
            ids = st.get('Uid', '?').split() + st.get('Gid', '?').split()
            if os.geteuid() == 0:
                ok(len(ids) == 8 and '0' not in ids,
                   '%s: not root (Uid/Gid %s)' % (what, ' '.join(ids)))
            else:
                ok(st.get('Uid', '').split()[:1] == [str(os.getuid())],
                   '%s: runs as its starter (Uid %s)' % (what, st.get('Uid', '?').strip()))
        r = msg(s, 2, 9, struct.pack('<QII', 0, 7, 4))
        ok(struct.unpack('<I', r[4][16:20])[0] == 0x159B8086,
           'config read before the kill')
        confined(kids[0] if kids else 0, 'device')
        for k in kids:
            os.kill(k, 9)
        time.sleep(0.2)
        r = msg(s, 3, 9, struct.pack('<QII', 0, 7, 4))
        ok(r[2] == 1 and r[0] == 3 and r[4][16:20] == b'\xff' * 4,
           "config read after the kill: all ones (%r)" % (r,))
        # a posted BAR0 write, then a BAR0 read
        s.sendall(HDR.pack(4, 10, HDR.size + 20, 0x10, 0) +
                  struct.pack('<QII', 0, 0, 4) + b'\0' * 4)
        r = msg(s, 5, 9, struct.pack('<QII', 0x100, 0, 4))
        ok(r[0] == 5 and r[4][16:20] == b'\xff' * 4,
           'BAR0 read after a posted write: all ones')
        confined(p.pid, 'keeper')
        rc, err = finish(p, s)
        ok(rc == 1 and 'died of signal 9' in err and 'answered 2 reads' in err,
           'keeper exits 1 and says the device died (rc %s)' % rc)
        if rc != 1 or 'answered 2 reads' not in err:
            sys.stderr.write(err)
    print('1..%d' % n)
    return 1 if fails else 0


sys.exit(main())
