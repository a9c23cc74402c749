# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest's job: the cpio archive added to its initrd (/job/run, /job/env,
files), handing a job to a guest restored from a snapshot, and the kernel
log it streams back."""
import os
import stat
import time

from .common import log, shell_env, since_start
from .monitor import Qmp
from .vfu import vfu_control


def cpio_entry(name, mode, data=b''):
    # newc header; owner root; mtime 0 for reproducibility.
    name_b = name.encode() + b'\0'
    hdr = b'070701' + b''.join(b'%08X' % x for x in (
        0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
    buf = hdr + name_b
    buf += b'\0' * (-len(buf) % 4)
    buf += data + b'\0' * (-len(data) % 4)
    return buf


def job_cpio(script, env, files):
    """The job archive: /job/run (script; none if None), /job/env and the
    files (SRC, GUESTPATH)."""
    ents = [cpio_entry('job', stat.S_IFDIR | 0o755)]
    if script is not None:
        ents.append(cpio_entry('job/run', stat.S_IFREG | 0o755, script))
    ents.append(cpio_entry('job/env', stat.S_IFREG | 0o644, env.encode()))
    dirs = {'job'}
    for src, dst in files:
        dst = dst.lstrip('/')
        items = []
        if os.path.isdir(src):
            for dp, dns, fns in os.walk(src):
                for fn in fns:
                    p = os.path.join(dp, fn)
                    items.append((p, os.path.join(dst, os.path.relpath(p, src))))
        else:
            items.append((src, dst))
        for p, d in items:
            parts = d.split('/')
            for i in range(1, len(parts)):
                dd = '/'.join(parts[:i])
                if dd not in dirs:
                    dirs.add(dd)
                    ents.append(cpio_entry(dd, stat.S_IFDIR | 0o755))
            mode = os.stat(p).st_mode & 0o777
            ents.append(cpio_entry(d, stat.S_IFREG | mode, open(p, 'rb').read()))
    ents.append(cpio_entry('TRAILER!!!', 0))
    return b''.join(ents)


def arm_faults(g, spec):
    """--fault: the guest's device faults (@spec, g['fault'] but the
    launcher's own) armed on its e810 through QMP (qom-set of the
    device's fault property, docs/faults.md), when its /init starts the
    job: their at= times count from then.  Listed with their time in
    faults.log."""
    if not spec:
        return
    if g.get('vfu'):
        # out of process: the server's control socket
        ans = vfu_control(g, 'fault ' + spec)
        if ans != 'ok':
            raise RuntimeError(f'e810-vfio-user: {ans}')
    else:
        q = Qmp(g['qmp'], timeout=30, proc=g.get('proc'))
        try:
            q.cmd('qom-set', {'path': 'nic0', 'property': 'fault', 'value': spec})
        finally:
            q.close()
    with open(os.path.join(g['dir'], 'faults.log'), 'a') as f:
        f.write(f'{time.strftime("%H:%M:%S")} {since_start()} armed {spec}\n')
    log(f'g{g["id"]} faults armed: {spec}')


def record_injected(g):
    """The faults the guest's e810 injected (its faults-injected
    property, or e810-vfio-user's "faults"), appended to faults.log as
    "injected SECONDS KIND A B" (the device's virtual time); how many."""
    if g.get('nic') != 'e810':
        return 0
    if g.get('vfu'):
        ans = vfu_control(g, 'faults')
        if ans.startswith('error'):
            raise RuntimeError(f'e810-vfio-user: {ans}')
        lines = [x for x in ans.split(';') if x.strip()]
    else:
        q = Qmp(g['qmp'], timeout=30, proc=g.get('proc'))
        try:
            lines = q.cmd('qom-get', {'path': 'nic0', 'property': 'faults-injected'}).splitlines()
        finally:
            q.close()
    inj = [x for x in lines if x.strip() and not x.startswith('#')]
    if lines:
        with open(os.path.join(g['dir'], 'faults.log'), 'a') as f:
            for x in lines:
                f.write(('' if x.startswith('#') else 'injected ') + x + '\n')
    if inj:
        log(f'g{g["id"]} faults injected: {len(inj)}')
    return len(inj)


def send_job(g):
    """The job archive to a guest's /init waiting on its e810.ctl port:
    ".job SIZE", then SIZE bytes.  Its environment has entropy for the
    guest's RNG (E810_SEED, printf's octal escapes: a shell builtin writes
    it) and the time (E810_NOW): a restored guest has the snapshot's."""
    script, env, files = g['job']
    env = dict(env, E810_SEED=''.join('\\%03o' % b for b in os.urandom(64)),
               E810_NOW=int(time.time() + 0.5))
    job = job_cpio(script, shell_env(env), files)
    end = time.time() + 10
    while g.get('ctl_conn') is None and time.time() < end:
        time.sleep(0.01)
    conn = g.get('ctl_conn')
    if conn is None:
        log(f'g{g["id"]}: its control port never connected; no job sent')
        return
    try:
        conn.sendall(b'.job %d\n' % len(job) + job)
        log(f'g{g["id"]} job sent ({since_start()})')
    except OSError as e:
        log(f'g{g["id"]}: sending the job failed: {e}')


def kmsg_to_dmesg(raw, dest):
    # /dev/kmsg records: "prio,seq,usec,flags;text"; continuation lines start
    # with a space (key=value dictionary) and are dropped.
    lines = []
    for line in open(raw, errors='replace').read().splitlines():
        if line.startswith(' '):
            continue
        head, sep, text = line.partition(';')
        f = head.split(',')
        if sep and len(f) >= 3 and f[2].isdigit():
            us = int(f[2])
            lines.append(f'[{us // 1000000:5d}.{us % 1000000:06d}] {text}')
        else:
            lines.append(line)
    with open(dest, 'w') as f:
        f.write('\n'.join(lines) + ('\n' if lines else ''))
