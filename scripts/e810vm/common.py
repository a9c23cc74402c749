# SPDX-License-Identifier: GPL-2.0-or-later
"""What every part of the launcher shares: where things are, the guests'
addresses, the kernel command line, logging."""
import os
import shlex
import sys
import time
import zlib


T_START = time.time()


TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


BUILD = os.environ.get('E810_STATE', os.path.join(TOP, 'build'))


FW_DIRS = ['/usr/share/qemu', '/usr/share/seabios', '/usr/lib/ipxe/qemu']


MACS = ['52:54:00:e8:10:01', '52:54:00:e8:10:02']


IPS = ['10.0.0.1', '10.0.0.2']


CMDLINE = ('console=ttyS0 quiet panic=-1 mitigations=off random.trust_cpu=on '
           'i8042.noaux i8042.nokbd i8042.nopnp 8250.nr_uarts=1 tsc=reliable')


SNAPSHOTS = os.environ.get('E810_SNAPSHOTS', os.path.join(BUILD, 'snapshots'))


# Bumped when what a snapshot holds or how it is used changes.
SNAP_FORMAT = 1


MODES = ('iwarp', 'roce', 'boot')


# QEMU options (with a value) that the snapshot key leaves out of --qemu-arg.
LOG_OPTS = ('-d', '-D', '-trace', '-msg')


def log(*a):
    print('vm:', *a, file=sys.stderr, flush=True)


def since_start():
    return f'+{time.time() - T_START:.2f} s'


def file_id(p):
    st = os.stat(p)
    return [os.path.realpath(p), st.st_size, st.st_mtime_ns]


def crc_file(p):
    c = 0
    with open(p, 'rb', buffering=0) as f:
        while True:
            b = f.read(1 << 22)
            if not b:
                return c
            c = zlib.crc32(b, c)


def shell_env(env):
    return ''.join(f'{k}={shlex.quote(str(v))}\n' for k, v in env.items())
