# SPDX-License-Identifier: GPL-2.0-or-later
"""Saved guests (--mode iwarp|roce): what a snapshot depends on (its key),
saving, pruning and restoring one."""
import datetime
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time

from .common import (
    FW_DIRS, SNAPSHOTS, SNAP_FORMAT, TOP, crc_file, file_id, log,
    since_start)
from .monitor import Qmp


class Snap:
    """What this run does with a snapshot: plan 'use' (restore from dir),
    'make' (save after the bring-up; holds the key's lock), or None (fresh
    boot, nothing saved).  Notes go to the log and OUT/snapshot.log."""

    def __init__(self, a, name):
        self.a, self.name = a, name
        self.dir = os.path.join(SNAPSHOTS, name) if name else None
        self.plan, self.lockf = None, None

    def note(self, msg):
        log('snapshot: ' + msg)
        with open(os.path.join(self.a.out, 'snapshot.log'), 'a') as f:
            f.write(msg + '\n')

    def lock(self, kind):
        """Takes the key's lock without waiting; False if another run holds it."""
        if self.lockf is None:
            self.lockf = open(self.dir + '.lock', 'w')
        try:
            fcntl.flock(self.lockf, kind | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def release(self):
        if self.lockf:
            self.lockf.close()
            self.lockf = None

    def decide(self):
        os.makedirs(SNAPSHOTS, exist_ok=True)
        meta = os.path.join(self.dir, 'meta.json')
        if os.path.exists(meta):
            # Shared while loading: no one replaces or prunes it meanwhile.
            end = time.time() + 30
            while not (got := self.lock(fcntl.LOCK_SH)) and time.time() < end:
                time.sleep(0.1)
            if got and os.path.exists(meta):
                try:
                    self.meta = json.load(open(meta))
                    self.plan = 'use'
                    return
                except ValueError:
                    self.drop('its meta.json is unreadable')
                    return
            else:
                self.release()
        if self.lock(fcntl.LOCK_EX):
            if os.path.exists(meta):
                # Made meanwhile by another run.
                fcntl.flock(self.lockf, fcntl.LOCK_SH)
                self.meta = json.load(open(meta))
                self.plan = 'use'
                return
            # A folder without meta.json: left by a run that died removing it.
            shutil.rmtree(self.dir, ignore_errors=True)
            self.plan = 'make'
            self.note(f'none for these inputs yet: making {self.name} after the bring-up')
        else:
            self.release()
            self.note(f'{self.name} is being made by another run: booting fresh, nothing saved')

    def drop(self, why):
        """Removes a snapshot that does not load; with the lock kept for
        making a new one when free (plan 'make')."""
        self.release()
        self.plan = None
        if self.lock(fcntl.LOCK_EX):
            shutil.rmtree(self.dir, ignore_errors=True)
            self.plan = 'make'
            self.note(f'{self.name} removed ({why}): booting fresh, making it again')
        else:
            self.release()
            self.note(f'{self.name} does not load ({why}) and another run holds it: '
                      'booting fresh, nothing saved')


def snapshot_key(a, img, accel, guests, sockdir, cmds, parts):
    """The inputs a saved guest depends on (see the docstring)."""
    out = os.path.abspath(a.out)

    def norm(c):
        # Per-run paths (out and socket folders, short or long --out) alike.
        for g in guests:
            c = c.replace(g['dir'], '@').replace(os.path.dirname(g['ctl']), '@')
        return c.replace(sockdir, '@').replace(out, '@')
    fw = {}
    for d in FW_DIRS + [os.path.dirname(os.path.realpath(a.qemu))]:
        if os.path.isdir(d):
            for n in sorted(os.listdir(d)):
                p = os.path.join(d, n)
                if os.path.isfile(p) and (n.endswith('.bin') or n.endswith('.rom')):
                    fw[p] = file_id(p)[1:]
    init = os.path.join(TOP, 'images', 'rootfs', 'init')
    key = {
        'format': SNAP_FORMAT, 'mode': a.mode, 'guests': a.guests, 'accel': accel,
        'qemu': file_id(a.qemu), 'firmware': fw,
        'kernel': file_id(cmds[0][cmds[0].index('-kernel') + 1]),
        'initrd': [file_id(p) if os.path.exists(p) else p for p in parts],
        'init': hashlib.sha256(open(init, 'rb').read()).hexdigest() if os.path.exists(init) else None,
        'boot': [hashlib.sha256(g['boot']).hexdigest() for g in guests],
        'cmdline': [[norm(c) for c in cmd] for cmd in cmds],
    }
    h = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    kname = os.path.basename(img).replace('/', '_')
    return key, f'{a.mode}-{a.guests}g-{kname}-{h}'


def files_done(qs, guests, pause):
    """Waits until each guest's migration to or from its state file has
    completed (polled every @pause s); RuntimeError if one failed."""
    for q, g in zip(qs, guests):
        while True:
            r = q.cmd('query-migrate')
            if r.get('status') == 'completed':
                break
            if r.get('status') in ('failed', 'cancelled'):
                raise RuntimeError(f'g{g["id"]}: {r.get("error-desc", r.get("status"))}')
            time.sleep(pause)


def save_snapshot(snap, guests):
    """Stops every guest, migrates each to a file in a new folder, which is
    renamed into place; the guests then go on.  Under the key's lock."""
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix=f'.{snap.name}.tmp-', dir=SNAPSHOTS)
    qs = []
    try:
        for g in guests:
            qs.append(Qmp(g['qmp'], proc=g['proc']))
        for q in qs:
            q.cmd('stop')
        for q, g in zip(qs, guests):
            q.cmd('migrate', {'uri': f'file:{tmp}/g{g["id"]}.mig'})
        files_done(qs, guests, 0.02)
        t_mig = time.time() - t0
        files = {}
        for g in guests:
            i = g['id']
            shutil.copyfile(os.path.join(g['dir'], 'console.log'), f'{tmp}/g{i}.console')
            shutil.copyfile(os.path.join(g['dir'], 'dmesg.raw'), f'{tmp}/g{i}.dmesg')
            p = f'{tmp}/g{i}.mig'
            files[f'g{i}.mig'] = {'size': os.path.getsize(p), 'crc32': crc_file(p)}
        meta = {'name': snap.name, 'made': datetime.datetime.now().isoformat(timespec='seconds'),
                'made_by': os.path.abspath(snap.a.out), 'files': files, 'key': snap.key}
        with open(f'{tmp}/meta.json', 'w') as f:
            json.dump(meta, f, indent=1)
        os.chmod(tmp, 0o755)
        os.rename(tmp, snap.dir)
        sizes = ', '.join(f'{k} {v["size"] / 1e6:.0f} MB' for k, v in sorted(files.items()))
        snap.note(f'made {snap.name} in {time.time() - t0:.1f} s (saving {t_mig:.1f} s; {sizes})')
        prune_snapshots(snap.name)
    except (OSError, RuntimeError, ValueError) as e:
        snap.note(f'not made: {e}')
        shutil.rmtree(tmp, ignore_errors=True)
    finally:
        snap.release()
        for q in qs:
            try:
                if q.cmd('query-status').get('status') != 'running':
                    q.cmd('cont')
            except (OSError, RuntimeError) as e:
                log(f'continuing a guest after the snapshot failed: {e}')
            q.close()


def prune_snapshots(keep_name):
    """At most E810_SNAPSHOTS_KEEP (default 12) snapshots, the least
    recently used go first; one in use (its lock held) is left."""
    keep = int(os.environ.get('E810_SNAPSHOTS_KEEP', '12'))
    ents = []
    for n in os.listdir(SNAPSHOTS):
        p = os.path.join(SNAPSHOTS, n)
        if n.startswith('.') or n == keep_name or not os.path.exists(os.path.join(p, 'meta.json')):
            continue
        ents.append((os.path.getmtime(os.path.join(p, 'meta.json')), n))
    ents.sort()
    for _, n in ents[:max(0, len(ents) + 1 - keep)]:
        lf = open(os.path.join(SNAPSHOTS, n + '.lock'), 'w')
        try:
            fcntl.flock(lf, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lf.close()
            continue
        shutil.rmtree(os.path.join(SNAPSHOTS, n), ignore_errors=True)
        os.unlink(os.path.join(SNAPSHOTS, n + '.lock'))
        lf.close()
        log(f'snapshot: removed {n} (least recently used; E810_SNAPSHOTS_KEEP={keep})')
    # Temporary folders of runs that died while saving.
    for n in os.listdir(SNAPSHOTS):
        p = os.path.join(SNAPSHOTS, n)
        if n.startswith('.') and '.tmp-' in n and time.time() - os.path.getmtime(p) > 3600:
            shutil.rmtree(p, ignore_errors=True)


def restore_snapshot(snap, guests):
    """Loads each guest (started with -incoming defer) from the snapshot
    and lets it run; the files' CRCs are checked while QEMU loads.  Raises
    RuntimeError (what failed) if a guest does not load."""
    t0 = time.time()
    files = snap.meta.get('files', {})
    bad = []

    def check():
        for n, info in sorted(files.items()):
            p = os.path.join(snap.dir, n)
            try:
                if os.path.getsize(p) != info['size']:
                    bad.append(f'{n}: {os.path.getsize(p)} bytes, {info["size"]} saved')
                elif crc_file(p) != info['crc32']:
                    bad.append(f'{n}: CRC differs from the saved one')
            except OSError as e:
                bad.append(f'{n}: {e.strerror}')
    chk = threading.Thread(target=check, daemon=True)
    chk.start()
    qs = []
    try:
        for g in guests:
            qs.append(Qmp(g['qmp'], proc=g['proc']))
        for q, g in zip(qs, guests):
            q.cmd('migrate-incoming', {'uri': f'file:{snap.dir}/g{g["id"]}.mig',
                                       'exit-on-error': False})
        files_done(qs, guests, 0.01)
        t_load = time.time() - t0
        chk.join()
        if bad:
            raise RuntimeError('; '.join(bad))
        for q in qs:
            if q.cmd('query-status').get('status') != 'running':
                q.cmd('cont')
    finally:
        for q in qs:
            q.close()
    os.utime(os.path.join(snap.dir, 'meta.json'))
    snap.release()
    snap.note(f'used {snap.name} (made {snap.meta.get("made", "?")}): loaded in {t_load:.2f} s, '
              f'running {since_start()}')
