# SPDX-License-Identifier: GPL-2.0-or-later
"""QEMU's monitors: QMP and HMP over their unix sockets, and QEMU's own log."""
import json
import os
import socket
import time


def qemu_log_tail(gd):
    try:
        return 'qemu.log: ' + ' | '.join(open(os.path.join(gd, 'qemu.log'),
                                                errors='replace').read().strip().splitlines()[-3:])
    except OSError:
        return 'no qemu.log'


def qmp_hmp(path, cmdline, timeout=10):
    """Run an HMP command through QMP (human-monitor-command)."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(path)
    f = s.makefile('rwb')

    def call(obj):
        f.write(json.dumps(obj).encode() + b'\n')
        f.flush()
        while True:
            r = json.loads(f.readline())
            if 'return' in r or 'error' in r:
                return r
    json.loads(f.readline())  # greeting
    call({'execute': 'qmp_capabilities'})
    r = call({'execute': 'human-monitor-command', 'arguments': {'command-line': cmdline}})
    s.close()
    if 'error' in r:
        raise RuntimeError(r['error'].get('desc'))
    return r['return']


class Qmp:
    """One QMP connection, one command at a time (events are skipped).  The
    monitor takes one client at a time: close it soon (vm-monitor uses it)."""

    def __init__(self, path, timeout=10, proc=None):
        end = time.time() + timeout
        while True:
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(path)
                break
            except OSError:
                s.close()
                if time.time() > end or (proc and proc.poll() is not None):
                    raise RuntimeError('QEMU ended before its monitor answered' if proc and
                                       proc.poll() is not None else f'no QMP monitor at {path}')
                time.sleep(0.01)
        s.settimeout(timeout)
        self.s, self.f = s, s.makefile('rwb')
        if not self.f.readline():
            raise RuntimeError('QMP closed at once')
        self.cmd('qmp_capabilities')

    def cmd(self, name, args=None):
        obj = {'execute': name}
        if args is not None:
            obj['arguments'] = args
        self.f.write(json.dumps(obj).encode() + b'\n')
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                raise RuntimeError(f'QMP closed during {name} (QEMU ended?)')
            r = json.loads(line)
            if 'return' in r:
                return r['return']
            if 'error' in r:
                raise RuntimeError(f'{name}: {r["error"].get("desc")}')

    def close(self):
        # The file holds the socket open too: QEMU would not take the
        # next client while either is.
        for x in (self.f, self.s):
            try:
                x.close()
            except OSError:
                pass
