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


# Guest i's identity on the fabric (up to MAX_GUESTS).
MAX_GUESTS = 32


MACS = [f'52:54:00:e8:10:{i + 1:02x}' for i in range(MAX_GUESTS)]


IPS = [f'10.0.0.{i + 1}' for i in range(MAX_GUESTS)]


CMDLINE = ('console=ttyS0 quiet panic=-1 mitigations=off random.trust_cpu=on '
           'i8042.noaux i8042.nokbd i8042.nopnp 8250.nr_uarts=1 tsc=reliable')


SNAPSHOTS = os.environ.get('E810_SNAPSHOTS', os.path.join(BUILD, 'snapshots'))


# Bumped when what a snapshot holds or how it is used changes.
SNAP_FORMAT = 1


MODES = ('iwarp', 'roce', 'boot')


# QEMU options (with a value) that the snapshot key leaves out of --qemu-arg.
LOG_OPTS = ('-d', '-D', '-trace', '-msg')


def port_mac(k, p):
    """Port @p's MAC of the fabric's guest @k (port 0's is MACS[k])."""
    return f'52:54:00:e8:{0x10 + p:02x}:{k + 1:02x}'


def port_ip(k, p, back_to_back=False):
    """Port @p's address of the fabric's guest @k: port 1 on a subnet of
    its own (10.0.1.0/24), or with its ports cabled to each other in port
    0's (10.0.0.129 on): the two ports reach each other."""
    if p and back_to_back:
        return f'10.0.0.{k + 129}'
    return f'10.0.{p}.{k + 1}'


def nic_of(a, i):
    """Guest i's NIC type: --nic0, --nic1, --nic for the guests after."""
    return a.nic0 if i == 0 else a.nic1 if i == 1 else a.nic


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
