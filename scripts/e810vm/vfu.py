# SPDX-License-Identifier: GPL-2.0-or-later
"""e810-vfio-user: finding the server, its command line, starting and stopping
it, telling a dead device process."""
import os
import shlex
import shutil
import socket
import stat
import subprocess
import time

from .common import BUILD, TOP, log


def vfu_server_default():
    """e810-vfio-user: E810_VFU_SERVER, else None: main() takes the
    optimised build (scripts/build-vfu, build/vfu; built unless --no-build),
    then the unit build's (ASan/UBSan), then PATH."""
    return os.environ.get('E810_VFU_SERVER')


def vfu_server_find(build):
    """The server binary when none was named (see vfu_server_default)."""
    if build:
        r = subprocess.run([os.path.join(TOP, 'scripts', 'build-vfu')],
                           stdout=subprocess.PIPE, text=True)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip().splitlines()[-1]
        log('scripts/build-vfu failed: looking for another e810-vfio-user')
    for d in ('vfu', 'unit'):
        built = os.path.join(BUILD, d, 'qemu-dev', 'vfio-user', 'e810-vfio-user')
        if os.access(built, os.X_OK):
            return built
    return shutil.which('e810-vfio-user') or os.path.join(BUILD, 'vfu', 'qemu-dev', 'vfio-user',
                                                          'e810-vfio-user')


def is_vfu(a, g):
    """The guest's e810 runs out of process (e810-vfio-user)."""
    return g['nic'] == 'e810' and getattr(a, 'device_backend', 'qemu') == 'vfio-user'


def server_cmd(a, g, sockdir):
    """The e810-vfio-user command of a guest (is_vfu): its end of the link
    where QEMU's -netdev stream would be (guest_cmd)."""
    gd = g['dir']
    cmd = [a.vfu_server, '--socket', g['vfu_sock'], '--mac', g['mac']]
    if g['link_sock']:
        cmd += ['--link-connect', g['link_sock']]
    elif a.guests == 2:
        if g['id'] == 0:
            cmd += ['--link-listen', os.path.join(sockdir, 'net.sock')]
        else:
            cmd += ['--link-connect', os.path.join(sockdir, 'net.sock')]
    if g.get('pcap'):
        cmd += ['--pcap', g['pcap']]
    for t in a.trace:
        cmd += ['--trace', t]
    if a.trace:
        cmd += ['--trace-file', os.path.join(gd, 'trace.log')]
    # Faults (docs/faults.md) are armed through it when the job starts,
    # and at run time from the guest's vm-monitor (qom-set nic0 fault).
    cmd += ['--control', g['vfu_ctl']]
    for x in a.server_arg:
        cmd += shlex.split(x)
    return cmd


def start_server(a, g, sockdir, deadline):
    """Starts the guest's e810-vfio-user and waits until it listens (its
    "listening on" line, or its socket).  Raises RuntimeError with its
    output when it exits first or does not listen in time."""
    cmd = server_cmd(a, g, sockdir)
    with open(os.path.join(g['dir'], 'cmdline'), 'a') as f:
        f.write('# e810-vfio-user\n' + ' '.join(shlex.quote(c) for c in cmd) + '\n')
    if os.path.exists(g['vfu_sock']):
        os.unlink(g['vfu_sock'])
    logf = os.path.join(g['dir'], 'vfu.log')
    g['vfu_proc'] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(logf, 'w'),
                                     stderr=subprocess.STDOUT, start_new_session=True)
    end = min(deadline, time.time() + 30)
    while True:
        out = open(logf, errors='replace').read()
        if 'e810-vfio-user: listening on' in out:
            return
        try:
            if stat.S_ISSOCK(os.stat(g['vfu_sock']).st_mode) and g['vfu_proc'].poll() is None:
                # Bound; its line may still be on the way.
                time.sleep(0.05)
                return
        except FileNotFoundError:
            pass
        rc = g['vfu_proc'].poll()
        if rc is not None:
            raise RuntimeError(f'g{g["id"]}: e810-vfio-user exited ({rc}) before listening: '
                               + (out.strip()[-600:] or 'no output') + f'  [{logf}]')
        if time.time() > end:
            raise RuntimeError(f'g{g["id"]}: e810-vfio-user did not listen on {g["vfu_sock"]} '
                               f'in time  [{logf}]')
        time.sleep(0.02)


def vfu_device_pids(pid):
    """The device processes of e810-vfio-user @pid (its keeper's child)."""
    try:
        with open(f'/proc/{pid}/task/{pid}/children') as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


def vfu_device_died(g):
    """True once guest g's device process has died under its QEMU: the
    server exited, or its keeper said it answers as a failed device
    (looked for every 0.5 s)."""
    vp = g.get('vfu_proc')
    if vp is None:
        return False
    if vp.poll() is not None:
        return True
    now = time.time()
    if now - g.get('vfu_log_checked', 0) < 0.5:
        return False
    g['vfu_log_checked'] = now
    try:
        with open(os.path.join(g['dir'], 'vfu.log'), 'rb') as f:
            f.seek(max(0, os.path.getsize(f.name) - 65536))
            return b'answering as a failed device' in f.read()
    except OSError:
        return False


def stop_server(g, grace=5):
    """After the guest's QEMU ended: the server exits by itself when its
    client disconnects; a server still there after grace seconds is ended
    (vfu_killed)."""
    p = g.get('vfu_proc')
    if not p:
        return
    try:
        g['vfu_rc'] = p.wait(grace)
        return
    except subprocess.TimeoutExpired:
        pass
    g['vfu_killed'] = True
    p.terminate()
    try:
        p.wait(3)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    g['vfu_rc'] = p.returncode


def vfu_control(g, line, timeout=10):
    """One command to the guest's e810-vfio-user control socket
    (--control, docs/vfio-user.md): its answer line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
        c.settimeout(timeout)
        c.connect(g['vfu_ctl'])
        c.sendall(line.encode() + b'\n')
        out = b''
        while not out.endswith(b'\n'):
            b = c.recv(4096)
            if not b:
                break
            out += b
    return out.decode(errors='replace').strip()
