#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Smoke test of the real e810-vfio-user binary (TAP): start it on a socket
in a temporary directory, connect as a vfio-user client, do VERSION,
DEVICE_GET_INFO and a config-space read of the vendor/device IDs, close,
and expect the server to exit 0.  Seccomp stays on (unless the build has
none)."""
import json
import os
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

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'vfu.sock')
        env = dict(os.environ)
        p = subprocess.Popen([exe, '--socket', path], env=env,
                             stderr=subprocess.PIPE, text=True)
        line = p.stderr.readline()
        ok(line.strip() == 'e810-vfio-user: listening on ' + path,
           'listening line: ' + line.strip())
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(100):
            try:
                s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
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
        s.close()
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = 'timeout'
        err = p.stderr.read()
        ok(rc == 0, 'server exits 0 after the client closes (rc %s)' % rc)
        if rc != 0:
            sys.stderr.write(err)
    print('1..%d' % n)
    return 1 if fails else 0


sys.exit(main())
