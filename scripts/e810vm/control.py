# SPDX-License-Identifier: GPL-2.0-or-later
"""The guests' requests to the launcher (e810.ctl: barriers, monitor commands,
live migration, snapshots, vfio-user server kills) and live migration
itself."""
import os
import shlex
import signal
import socket
import subprocess
import threading
import time

from .common import log, since_start
from .hotplug import hot_plug, hot_unplug, hot_unplug_fault, parse_hot_unplug, qemu_usage
from .jobs import arm_faults, record_injected, send_job
from .monitor import Qmp, qemu_log_tail, qmp_hmp
from .vfu import is_vfu, vfu_control, vfu_device_pids
from .qemu import guest_cmd
from .snapshots import save_snapshot


class Control:
    """Serves each guest's e810.ctl port: barriers and monitor commands."""

    def __init__(self, guests, snap=None):
        self.guests = guests
        self.lock = threading.Lock()
        self.waiting = {}       # barrier name -> {gid: (guest, conn)}
        self.stale = set()      # connections of QEMUs a migration replaced
        self.mig_lock = threading.Lock()
        self.ctx = None         # (a, img, accel, sockdir) for new QEMUs
        self.done = set()       # guests whose QEMU ended
        # --mode: each guest's /init says "ready MODE RC" when its bring-up
        # is done and waits for its job (job archive in g['job']); with a
        # snapshot to make (snap.plan == 'make'), all of them first.
        self.snap = snap
        self.ready = {}         # gid -> bring-up exit code
        self.snap_done = False

    def serve(self, g, lsock):
        """Accepts the guest's QEMU on its e810.ctl socket, and later QEMUs
        too: a migration's destination connects while the source still
        is (the newest is g['ctl_new'] until the move is done)."""
        lsock.settimeout(0.5)
        while g['id'] not in self.done:
            try:
                conn, _ = lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            if g.get('ctl_conn') is None:
                g['ctl_conn'] = conn
            else:
                g['ctl_new'] = conn
            threading.Thread(target=self.read_requests, args=(g, conn), daemon=True).start()

    def read_requests(self, g, conn):
        f = conn.makefile('rb')
        try:
            for raw in f:
                line = raw.decode(errors='replace').strip()
                if not line:
                    continue
                cmd, _, rest = line.partition(' ')
                if cmd == 'barrier':
                    self.barrier(g, rest, conn)
                elif cmd == 'monitor':
                    target, _, hmp = rest.partition(' ')
                    self.monitor(g, target, hmp, conn)
                elif cmd == 'migrate':
                    self.migrate(g, rest.strip(), conn)
                elif cmd == 'server-kill':
                    self.server_kill(g, rest.strip(), conn)
                elif cmd == 'hotplug':
                    self.hotplug(g, rest, conn)
                elif cmd == 'usage':
                    self.usage(g, rest.strip(), conn)
                elif cmd == 'ready':
                    self.on_ready(g, rest)
                elif cmd == 'job-start':
                    self.job_start(g, conn)
                elif cmd == 'job-end':
                    self.job_end(g, conn)
                else:
                    self.reply(conn, [f'unknown request {cmd}'], 2)
        except OSError:
            pass

    def reply(self, conn, lines, rc):
        try:
            conn.sendall(''.join(f'{x}\n' for x in lines).encode() + b'.end %d\n' % rc)
        except OSError:
            pass

    def job_end(self, g, conn):
        """The job has ended (the guest still runs): the faults its
        device injected go into faults.log."""
        try:
            n = record_injected(g)
            self.reply(conn, [f'job-end: {n} fault(s) injected'] if n else [], 0)
        except Exception as e:  # noqa: BLE001 - reported, the run goes on
            log(f'g{g["id"]}: the injected faults could not be read: {e}')
            self.reply(conn, [f'job-end: faults not read: {e}'], 0)

    def job_start(self, g, conn):
        """The guest's /init starts the job: its faults are armed now
        (--fault: at= counts from here); hot-unplug is the launcher's."""
        try:
            spec, hps = parse_hot_unplug(g.get('fault') or '')
            arm_faults(g, spec)
        except (RuntimeError, OSError) as e:
            log(f'g{g["id"]}: the faults were not armed: {e}')
            self.reply(conn, [f'job-start: faults not armed: {e}'], 1)
            return
        for hp in hps:
            threading.Thread(target=hot_unplug_fault, args=(g, self.ctx, *hp, self.done),
                             daemon=True).start()
            log(f'g{g["id"]} fault armed: hot-unplug at {hp[0]} s, replug {hp[1]}, '
                f'{hp[2]} time(s)')
        self.reply(conn, [], 0)

    def hotplug(self, g, rest, conn):
        """"hotplug N|self unplug|surprise|plug": guest N's e810 out of its
        PCIe slot (surprise: gone from the bus first) or back in
        (hotplug.py); the answer has QEMU's RSS and fd count (a leak shows
        there)."""
        words = rest.split()
        if len(words) != 2 or words[1] not in ('unplug', 'surprise', 'plug'):
            self.reply(conn, ['usage: hotplug N|self unplug|surprise|plug'], 2)
            return
        gid, t = self.target_guest(g, words[0])
        if t is None or gid in self.done:
            self.reply(conn, [f'hotplug: no running guest {words[0]}'], 2)
            return
        try:
            if words[1] == 'plug':
                msg = hot_plug(t, self.ctx)
            else:
                msg = hot_unplug(t, self.ctx, words[1] == 'surprise')
            rc = 0
        except (RuntimeError, OSError) as e:
            msg, rc = f'hotplug: {e}', 1
        log(f'g{g["id"]} control g{gid}: {msg}')
        self.reply(conn, [msg], rc)

    def barrier(self, g, name, conn):
        with self.lock:
            w = self.waiting.setdefault(name, {})
            w[g['id']] = (g, conn)
            log(f'g{g["id"]} at barrier {name} ({since_start()})')
            self._check(name)

    def _check(self, name):
        w = self.waiting.get(name)
        if not w:
            return
        missing = [x['id'] for x in self.guests if x['id'] not in w]
        # Released when all arrived; failed when a missing guest has ended.
        if not missing or any(i in self.done for i in missing):
            ok = not missing
            for x, c in w.values():
                # A guest migrated while it waited gets the answer through
                # its new QEMU.
                if c in self.stale:
                    c = x['ctl_conn']
                self.reply(c, [] if ok else [f'barrier {name}: a peer guest ended'], 0 if ok else 1)
            del self.waiting[name]

    def guest_ended(self, gid):
        with self.lock:
            self.done.add(gid)
            for name in list(self.waiting):
                self._check(name)
        self._check_ready()

    def on_ready(self, g, rest):
        mode, _, rc = rest.partition(' ')
        rc = int(rc) if rc.strip().lstrip('-').isdigit() else -1
        log(f'g{g["id"]} bring-up {mode} done, exit {rc} ({since_start()})')
        if rc:
            log(f'g{g["id"]} bring-up failed (exit {rc}): its log is in console.log; '
                'the job runs all the same')
        with self.lock:
            self.ready[g['id']] = rc
        if self.snap and self.snap.plan == 'make':
            self._check_ready()
        else:
            send_job(g)

    def _check_ready(self):
        """With a snapshot to make: once every guest is ready (or one ended),
        saves them (all up) and hands out the jobs."""
        if not self.snap or self.snap.plan != 'make':
            return
        with self.lock:
            if self.snap_done:
                return
            pending = [x for x in self.guests if x['id'] not in self.ready
                       and x['id'] not in self.done]
            if pending:
                return
            self.snap_done = True
        failed = [f'g{i} exit {rc}' for i, rc in sorted(self.ready.items()) if rc]
        ended = sorted(i for i in self.done if i not in self.ready)
        if failed or ended:
            why = ('bring-up failed (' + ', '.join(failed) + ')' if failed
                   else 'g' + ', g'.join(str(i) for i in ended) + ' ended before its bring-up')
            self.snap.note(f'not made: {why}')
            self.snap.release()
        else:
            save_snapshot(self.snap, self.guests)
        for x in self.guests:
            if x['id'] in self.ready and x['id'] not in self.done:
                send_job(x)

    def monitor(self, g, target, hmp, conn):
        gid, t = self.target_guest(g, target)
        if t is None:
            self.reply(conn, [f'monitor error: no guest {target}'], 1)
            return
        try:
            words = shlex.split(hmp)
        except ValueError:
            words = []
        if t.get('vfu') and words[:3] == ['qom-set', 'nic0', 'fault'] and len(words) == 4:
            # The device is e810-vfio-user's: its control socket arms it.
            try:
                ans = vfu_control(t, 'fault ' + words[3])
            except OSError as e:
                ans = f'error: {e}'
            self.reply(conn, [] if ans == 'ok' else [f'monitor error: {ans}'],
                       0 if ans == 'ok' else 1)
            log(f'g{g["id"]} control g{gid}: fault {words[3]}: {ans}')
            return
        try:
            # savevm, loadvm and migrate move the guest's RAM: minutes
            # under a loaded TCG host, not seconds.
            slow = hmp.split(' ', 1)[0] in ('savevm', 'loadvm', 'migrate')
            res = qmp_hmp(t['qmp'], hmp, timeout=600 if slow else 10)
            self.reply(conn, res.rstrip('\n').split('\n') if res.strip() else [], 0)
            log(f'g{g["id"]} monitor g{gid}: {hmp}')
        except Exception as e:  # noqa: BLE001 - reported to the guest
            self.reply(conn, [f'monitor error: {e}'], 1)

    def usage(self, g, target, conn):
        """"usage N|self": guest N's QEMU: its RSS, its own memory (not
        the guest's RAM) and its fd count, for a job's leak check."""
        gid, t = self.target_guest(g, target)
        if t is None or gid in self.done:
            self.reply(conn, [f'usage: no running guest {target}'], 2)
            return
        self.reply(conn, [f'usage: g{gid} {qemu_usage(t)}'], 0)

    def target_guest(self, g, target):
        """"N" or "self" (the asking guest @g): (its id, the guest), or
        (None, None) if there is no such guest."""
        try:
            gid = g['id'] if target in ('self', '') else int(target)
        except ValueError:
            return None, None
        return gid, next((x for x in self.guests if x['id'] == gid), None)

    def server_kill(self, g, target, conn):
        """"server-kill N|self": SIGKILL to guest N's e810-vfio-user (the
        device failing under a running guest: its QEMU is left running)."""
        gid, t = self.target_guest(g, target)
        if t is None:
            self.reply(conn, [f'server-kill: no guest {target}'], 2)
            return
        vp = t.get('vfu_proc')
        if vp is None or vp.poll() is not None:
            self.reply(conn, [f'server-kill: g{gid} has no running e810-vfio-user'], 1)
            return
        t['vfu_kill_req'] = True
        # The device process is the server's child; the server itself is
        # its keeper, which then answers QEMU as a failed device.  Without
        # a keeper (--no-keeper) the server is the device.
        kids = vfu_device_pids(vp.pid)
        if kids:
            for k in kids:
                try:
                    os.kill(k, signal.SIGKILL)
                except OSError:
                    pass
            what = f'device process {" ".join(map(str, kids))} (keeper {vp.pid})'
        else:
            vp.kill()
            vp.wait()
            what = f'pid {vp.pid}'
        log(f'g{gid}: e810-vfio-user {what} killed on request ({since_start()})')
        self.reply(conn, [f'server-kill: g{gid} e810-vfio-user {what} killed'], 0)

    def migrate(self, g, target, conn):
        """"migrate N|self": live-migrates guest N to a new QEMU.  The
        answer goes to the requester, through its new QEMU if it moved."""
        gid, t = self.target_guest(g, target)
        if t is None:
            self.reply(conn, [f'migrate: no guest {target}'], 2)
            return
        if gid in self.done:
            self.reply(conn, [f'migrate: g{gid} has ended'], 1)
            return
        if self.ctx[0].interactive:
            # The console is this terminal: a second QEMU cannot take it.
            self.reply(conn, ['migrate: not with --interactive'], 1)
            return
        if is_vfu(self.ctx[0], t):
            self.reply(conn, [f'migrate: g{gid} has its e810 out of process (--device-backend '
                              'vfio-user): e810-vfio-user has no migration'], 1)
            return
        log(f'g{g["id"]} asks to migrate g{gid} ({since_start()})')
        # One at a time: each takes the host's CPUs and the link.
        with self.mig_lock:
            try:
                lines, rc = migrate_guest(self, t), 0
            except MigrationError as e:
                lines, rc = [f'migrate g{gid}: {e}'], 1
            except Exception as e:  # noqa: BLE001 - reported to the guest, never a hang
                lines, rc = [f'migrate g{gid}: {type(e).__name__}: {e}'], 1
        log(f'g{gid}: ' + '; '.join(lines))
        self.reply(self.current(g, conn), lines, rc)

    def current(self, g, conn):
        return g['ctl_conn'] if conn in self.stale else conn


class MigrationError(Exception):
    pass


def wait_migration(q, what, end, on_slow=None):
    """Polls query-migrate on q until completed; MigrationError with
    QEMU's error-desc if it failed, or at the deadline."""
    slow_done = False
    t0 = time.time()
    while True:
        r = q.cmd('query-migrate')
        st = r.get('status')
        if st == 'completed':
            return r
        if st in ('failed', 'cancelled'):
            raise MigrationError(f'{what}: {r.get("error-desc", st)}')
        if on_slow and not slow_done and time.time() - t0 > 20:
            slow_done = True
            on_slow()
        if time.time() > end:
            raise MigrationError(f'{what}: not done after {end - t0:.0f} s (status {st})')
        time.sleep(0.05)


def migration_dest(a, t, n, sockdir):
    """Guest t's destination for its n-th migration: its description
    (t's, with sockets, trace and capture of its own) and the migration
    socket's URI; stale paths of earlier runs removed."""
    gd, sd = t['dir'], os.path.dirname(t['ctl'])
    # The destination appends to the guest's files (file chardevs with
    # append=on); its monitors, trace and capture are its own until it
    # takes over (QEMU truncates a trace or pcap file it opens).  Its
    # listening sockets get names of their own, renamed to the guest's
    # once the source has gone: a QEMU removes its sockets' paths as it
    # ends, and each migration's names differ, as a former destination
    # removes the names it was started with.
    dest = dict(t, qmp=os.path.join(sd, f'qmp-m{n}.sock'), hmp=os.path.join(sd, f'hmp-m{n}.sock'),
                append=True, append_all=True, incoming=True,
                trace_file=os.path.join(gd, f'trace.m{n}.log'),
                pcap_file=f'{t["pcap"]}.m{n}' if t.get('pcap') else None)
    # Guest 0 serves the direct link: guest 1's QEMU reconnects to the
    # path (reconnect-ms) once it leads to the destination.
    if t['id'] == 0 and a.guests == 2 and t['nic'] != 'none' and not t['link_sock']:
        dest['net_path'] = os.path.join(sockdir, f'net-m{n}.sock')
    uri = 'unix:' + os.path.join(sd, f'mig{n}.sock')
    drop_paths(dest, uri)
    return dest, uri


def drop_paths(dest, uri):
    for p in (dest['qmp'], dest['hmp'], uri[5:], dest.get('net_path', uri[5:])):
        if os.path.exists(p):
            os.unlink(p)


def migration_run(t, dest, uri, proc, qm):
    """The migration from t's QEMU to the destination @proc, to its end:
    QMP's last migration status.  @qm gets the source's and the
    destination's QMP ('src', 'dst') as they open."""
    gd = t['dir']
    caps = {'capabilities': [
        # The source waits for the destination's verdict on the load: a
        # state the destination refuses leaves the source running.
        {'capability': 'return-path', 'state': True}]}
    try:
        dq = Qmp(dest['qmp'], timeout=30, proc=proc)
        dq.cmd('migrate-set-capabilities', caps)
        dq.cmd('migrate-incoming', {'uri': uri, 'exit-on-error': False})
        qm['dst'] = dq
        sq = Qmp(t['qmp'], timeout=30, proc=t['proc'])
        qm['src'] = sq
        sq.cmd('migrate-set-capabilities', caps)
        # Bytes/s: the default (128 MiB/s) is a network's, not a
        # socket's on one host.
        sq.cmd('migrate-set-parameters', {'max-bandwidth': 8 << 30})
    except RuntimeError as e:
        raise MigrationError(f'the destination QEMU did not start: {e}; '
                             + qemu_log_tail(gd)) from None
    try:
        sq.cmd('migrate', {'uri': uri})
    except RuntimeError as e:
        # Refused at once: a migration blocker (the device's message).
        raise MigrationError(str(e).split(': ', 1)[-1]) from None

    def converge():
        # Dirtying faster than it copies (a busy guest under TCG): a
        # longer pause rather than no end.
        log(f'g{t["id"]}: migration slow, allowing a 5 s downtime')
        sq.cmd('migrate-set-parameters', {'downtime-limit': 5000})
    r = wait_migration(sq, 'source', time.time() + 300, converge)
    wait_migration(dq, 'destination', time.time() + 60)
    if dq.cmd('query-status').get('status') != 'running':
        dq.cmd('cont')
    return r


def migration_failed(ctl, t, dest, uri, proc, qm):
    """A migration that did not end: the destination goes, the source
    runs on."""
    sq, dq = qm.get('src'), qm.get('dst')
    t['mig_proc'] = None
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if t.get('ctl_new') is not None:
        ctl.stale.add(t['ctl_new'])
    t['ctl_new'] = None
    try:
        if sq is not None and sq.cmd('query-status').get('status') != 'running':
            sq.cmd('cont')
    except (RuntimeError, OSError) as e:
        log(f'g{t["id"]}: continuing the source after a failed migration: {e}')
    drop_paths(dest, uri)
    for q in (sq, dq):
        if q is not None:
            q.close()


def migration_take_over(ctl, t, dest, uri, proc, sq, dq, sockdir):
    """The destination runs the guest: its QEMU is the guest's from now
    on, the source ends.  Whether the destination connected its control
    port."""
    new = t.get('ctl_new')
    with t['lock']:
        old = t['proc']
        t['proc'], t['mig_proc'] = proc, None
        if new is not None:
            ctl.stale.add(t['ctl_conn'])
            t['ctl_conn'], t['ctl_new'] = new, None
        try:
            sq.cmd('quit')
        except (RuntimeError, OSError):
            pass
        try:
            old.wait(10)
        except subprocess.TimeoutExpired:
            old.kill()
            old.wait()
    sq.close()
    dq.close()
    # The guest's monitor paths lead to the destination (renamed once the
    # source, which may remove its socket files as it ends, is gone).
    for src, dst in ((dest['qmp'], t['qmp']), (dest['hmp'], t['hmp']),
                     (dest.get('net_path'), os.path.join(sockdir, 'net.sock'))):
        if src:
            try:
                os.rename(src, dst)
            except OSError as e:
                log(f'g{t["id"]}: {os.path.basename(src)} not renamed: {e.strerror}')
    if os.path.exists(uri[5:]):
        os.unlink(uri[5:])
    return new is not None


def migrate_guest(ctl, t):
    """Live-migrates guest t to a new QEMU started with the same command
    line and -incoming defer, over a unix socket; then ends the source and
    carries on with the destination as t's QEMU.  Returns lines for the
    requester; raises MigrationError (the source keeps running)."""
    a, img, accel, sockdir = ctl.ctx
    t0 = time.time()
    n = t.get('migrations', 0) + 1
    dest, uri = migration_dest(a, t, n, sockdir)
    cmd = guest_cmd(a, img, accel, dest, sockdir)
    with open(os.path.join(t['dir'], 'cmdline'), 'a') as f:
        f.write(' '.join(shlex.quote(c) for c in cmd) + '\n')
    t['ctl_new'] = None
    qlog = open(os.path.join(t['dir'], 'qemu.log'), 'a')
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qlog,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            pass_fds=[x for x in t.get('tap_fds') or [] if x is not None])
    qlog.close()
    t['mig_proc'] = proc
    qm = {}
    try:
        r = migration_run(t, dest, uri, proc, qm)
    except BaseException as e:
        migration_failed(ctl, t, dest, uri, proc, qm)
        if isinstance(e, (RuntimeError, OSError)):
            raise MigrationError(str(e)) from None
        raise
    if not migration_take_over(ctl, t, dest, uri, proc, qm['src'], qm['dst'], sockdir):
        log(f'g{t["id"]}: the destination never connected its control port')
    t['migrations'] = n
    t.setdefault('moved', []).append(dest)
    ram = r.get('ram', {})
    return [f'migrated g{t["id"]} to a new QEMU in {time.time() - t0:.1f} s '
            f'(total {r.get("total-time", "?")} ms, downtime {r.get("downtime", "?")} ms, '
            f'{ram.get("transferred", 0) / 1e6:.0f} MB sent)']
