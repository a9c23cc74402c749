# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot test guests, run a shell script in each, collect results.

Each guest boots the kernel + initramfs from images/build (run first; it is
cached), with a per-run job archive added to the initrd: /job/run (the
script), /job/env (variables, see below) and --file files.  The guest's /init runs the script and reports over
virtio-serial ports; the launcher writes, per guest, into OUT/g0, OUT/g1...:

  console.log  serial console (ttyS0)       output.log  script stdout+stderr
  dmesg.log    kernel log (streamed live)   status      exit code | timeout |
  trace.log    QEMU trace (--trace)                     no-status | qemu-crashed
  qemu.log     QEMU's stderr                cmdline     the QEMU command line(s)
  qmp.sock, hmp.sock  monitor sockets while the guest runs

Exit code 0 iff every guest's script exited 0.  A QEMU that dies by a signal
or exits non-zero is reported as "qemu crashed" (status qemu-crashed).

Job environment: GUEST_ID (0, 1, ...), NGUESTS, GUEST_IP, PEER_IP, PREFIX_LEN,
GUEST_MAC, PEER_MAC, NIC, PEER_NIC (e810|virtio|none; PEER_* with two
guests only), PEERS (every other guest's address, in guest order),
TOPOLOGY (direct|switch), KERNEL, plus --env.
Guest commands: net-up [IP/LEN] [MTU] (configures the NIC, prints its name),
vm-barrier NAME (waits for every other guest), vm-monitor [-g N] HMP-COMMAND
(e.g. "set_link n0 off"; the netdev is n0 in every guest), vm-migrate [-g N]
(live migration, below), vm-ctl server-kill N (SIGKILL to guest N's
e810-vfio-user with --device-backend vfio-user; its QEMU keeps running),
vm-ctl hotplug N unplug|surprise|plug (guest N's e810 out of its PCIe slot,
surprise: gone from the bus first, and back: docs/faults.md), vm-ctl usage N (guest N's QEMU: RSS, own memory, fds),
vm-port NAME,
lspci (from sysfs), rdma-wait [DEV] [SECS] (waits for an active RDMA port).  /bin/sh is dash; iproute2's ip/rdma/devlink, ethtool,
rdma-core (rping, ucmatose, ibv_*), perftest (ib_*), busybox for the rest;
with --extras also nvme-cli, fio and nfs-utils (the image's extras.cpio).
/init loads drivers for the devices present (by modalias: virtio_net, ice,
then irdma for ice's auxiliary devices) plus ib_uverbs and rdma_ucm before
the job starts; COLDPLUG=0 (--env) leaves all of that to the job.

Guests: --guests N (1 to 32; 10.0.0.1/24, 10.0.0.2/24, ... and MACs
52:54:00:e8:10:01, :02, ...), no network but their own.  --topology direct
(the default for one or two guests): one point-to-point link (-netdev
stream over a unix socket); switch (the default for more): every guest's
port on one VDE switch (libvdeplug4's switch://, from Debian's vdeplug: it
forwards jumbo frames, vde_switch cuts them at 1518 bytes), each port
plugged in through scripts/link-relay; see docs/fabrics.md.

Live migration (vm-migrate [-g N] in a guest: the request "migrate N" on
e810.ctl): the launcher starts a second QEMU for guest N (default the
asking guest) with the same command line and -incoming defer, migrates the
guest to it over a unix socket (QMP migrate-incoming and migrate, with the
return-path capability, so a state the destination refuses leaves the
source running), ends the source and carries on with the destination as
the guest's QEMU: its exit ends the guest, its monitors answer at
qmp.sock/hmp.sock (renamed into place once the source is gone), its files
append to the guest's (console, output, dmesg, status, qemu.log; its
--trace output and the guest's --pcap capture are added to trace.log and the
capture at the end).  Its command line is added to cmdline.  The answer
("migrated gN ... in S s (downtime D ms ...)", exit 0) reaches the asking
guest through its new QEMU if it moved itself; a failure is QEMU's
error-desc (e.g. a device's migration blocker), exit 1, the source running
on.  The link: guest 1's stream client reconnects (reconnect-ms), so a
destination of guest 0 listens at the same path once the source is gone;
a destination of guest 1 is queued by guest 0's listener until the source
goes; scripts/link-relay (--link) keeps a second peer of a side waiting
and switches to it when the first goes.  One migration at a time; not
with --interactive.

The out-of-process device (--device-backend vfio-user): every e810 of the
run is an e810-vfio-user server (the device core outside QEMU, speaking
QEMU's vfio-user protocol; E810_VFU_SERVER or --vfu-server, default
build/vfu's (scripts/build-vfu), then build/unit's, then PATH) and the guest's
QEMU, a stock one with the vfio-user client, has
-device vfio-user-pci (behind the same root port) and its RAM in a shared
memfd (the server maps it).  Per guest the server is started before QEMU
(--socket gN's vfu.sock, --mac the guest's MAC) and waited for (its
"listening on" line), and it holds the guest's end of the link in place of
QEMU's -netdev stream: --link-listen where QEMU would listen (guest 0 of a
direct pair), --link-connect where it would connect (guest 1, or both with
--link's relay or the switch); a single guest's server has no link.  --pcap
goes to the captured guest's server (--pcap), --trace to every server (--trace, into gN/trace.log);
--server-arg adds options.  Its output is gN/vfu.log; it is reaped when its
guest's QEMU ends (it exits by itself when QEMU disconnects), and a
server that dies or exits non-zero makes the status server-crashed.  No
snapshots (--mode boots fresh) and no vm-migrate: the server has no
migration.  --qemu stock-built|stock-debian selects a stock QEMU through
scripts/stock-qemu.  --dry-run prints the commands (link relay, servers,
QEMUs) without starting anything.

Fast starts (--mode iwarp|roce|boot): the guests start with the drivers
loaded (/init's coldplug) and, for iwarp and roce, irdma up in that mode
(guest-driver/bringup, MODE=iwarp|roce, the address set), from a snapshot.
The first run boots, brings up, saves every guest of the run (QEMU
migration to a file) into build/snapshots/MODE-NG-KERNEL-HASH/ (env
E810_SNAPSHOTS for another folder) and goes on into its job; later runs
load the snapshot (QEMU -incoming) and start the job at once.  The hash
covers what makes the guests' state: QEMU binary and firmware, kernel,
initramfs and the archives added to it, /init and bringup, the mode,
memory, vCPUs, accelerator, the guests' identities and NICs, --nic-opts,
--qemu-arg (but its logging: -d, -D, -trace, -msg), the kernel command line,
the number of guests and the link kind; anything else is a new snapshot.  The job then does not come in the
initrd: /init asks for it over the e810.ctl port once the bring-up is done
(a restored guest is still waiting there) and runs it as usual; COLDPLUG
does not apply (the bring-up decides).  What a guest printed before the
snapshot opens its console.log and dmesg.log.  --no-snapshot boots fresh
and runs the same bring-up.  Refused (fresh boot, said in the log and in
OUT/snapshot.log): --share/--rdma-core (virtio-9p does not migrate),
--interactive.  --mode iwarp|roce without --nic/--nic0/--nic1 means --nic
e810.
"""
import argparse
import datetime
import os
import re
import sys
import time

from .common import BUILD, MAX_GUESTS, MODES, TOP, log, nic_of
from .fabric import TOPOLOGIES, fabric_ids, topology
from .hotplug import parse_hot_unplug, vfu_unplug_refused
from .images import cached_accel, dry_image, image_dir, rdma_core_env
from .vfu import vfu_server_default, vfu_server_find
from .qemu import qemu_has_device, resolve_qemu
from .run import run_guests
from .probe import probe_accel


def _fabric_args(ap):
    """The guests and how they are joined."""
    ap.add_argument('--guests', type=int, default=1, metavar='N',
                    help=f'how many guests (1 to {MAX_GUESTS}; default 1)')
    ap.add_argument('--topology', choices=TOPOLOGIES,
                    help='how the guests are joined: direct (a cable; one or two guests, the '
                         'default for them) or switch (the default for more)')
    ap.add_argument('--ports', type=int, choices=(1, 2), default=1,
                    help='ports of each guest\'s e810: 2 is the E810-XXV\'s two, functions 0 '
                         'and 1 of one slot (docs/fabrics.md)')
    ap.add_argument('--uplink', metavar='URL', action='append', default=[],
                    help='plug the run\'s switch into an overlay that joins hosts (a vde_plug '
                         'URL: vxvde://GROUP, udp://LPORT->HOST:RPORT, vxlan://...; a second '
                         'one for the second fabric; docs/fabrics.md)')
    ap.add_argument('--first-guest', type=int, default=0, metavar='K',
                    help='across hosts: this host\'s guests are K, K+1, ... of the fabric '
                         '(their GUEST_ID, address and MAC)')
    ap.add_argument('--fabric-guests', type=int, metavar='T',
                    help='across hosts: the fabric\'s guests in all (PEERS lists them; '
                         'default --first-guest + --guests)')
    ap.add_argument('--nic', choices=('e810', 'virtio', 'none'),
                    help='NIC of every guest (default virtio; e810 with --mode iwarp|roce)')
    ap.add_argument('--nic0', choices=('e810', 'virtio', 'none'))
    ap.add_argument('--nic1', choices=('e810', 'virtio', 'none'))
    ap.add_argument('--nic-opts', default='', help='extra properties for -device e810,...')
    ap.add_argument('--pcap', action='append', default=[], metavar='[gN:]FILE',
                    help='capture guest 0\'s port (or guest N\'s) into this file (filter-dump; '
                         'repeatable)')
    ap.add_argument('--link', default=os.environ.get('E810_LINK'), metavar='SPEC',
                    help='impair the link between two guests, or every switch port: '
                         '"loss=1%%,reorder=1%%,dup=0.5%%,'
                         'corrupt=0.1%%,delay=1ms,seed=N" (scripts/link-relay; counts in '
                         'OUT/link.json; env E810_LINK)')


def _job_args(ap):
    """What the guests run."""
    ap.add_argument('--script', help='job for guest 0 (and the others unless --script1)')
    ap.add_argument('--script1', help='job for guest 1 and those after it')
    ap.add_argument('--file', action='append', default=[], metavar='SRC[:GUESTPATH]',
                    help='add a host file or directory to the guests (default /job/files/NAME)')
    ap.add_argument('--env', action='append', default=[], metavar='K=V', help='job variable')
    ap.add_argument('--timeout', type=float, default=120, help='seconds for the whole run (default 120)')
    ap.add_argument('--out', help='result directory (default build/runs/<timestamp>)')
    ap.add_argument('--share', metavar='DIR',
                    help='share a host folder read-write into every guest at /mnt/share '
                         '(virtio-9p; SHARE=/mnt/share in the job)')
    ap.add_argument('--rdma-core', metavar='DIR',
                    help='their rdma-core (a build tree or an install prefix): shared read-only '
                         'at /mnt/rdma-core; the job\'s libibverbs, librdmacm, providers and '
                         'tools come from it')
    ap.add_argument('--mode', choices=MODES,
                    help='start the guests with irdma up in iWARP or RoCEv2 mode (boot: drivers '
                         'loaded only), from a snapshot made at the first run (see below)')
    ap.add_argument('--no-snapshot', action='store_true',
                    default=bool(os.environ.get('E810_NO_SNAPSHOT')),
                    help='with --mode: boot fresh and bring up, use or save no snapshot '
                         '(env E810_NO_SNAPSHOT=1)')
    ap.add_argument('--fault', action='append', default=[], metavar='[gN:]SPEC',
                    help='faults to inject into the e810 (docs/faults.md), e.g. '
                         '"link-flap:at=5:count=3" or "g1:qp-ae:qp=next"; armed as the guest\'s '
                         'job starts (with vfio-user: as the server starts), at= counts from '
                         'there; the guest\'s faults.log lists them')
    ap.add_argument('--trace', action='append', default=[], metavar='PATTERN',
                    help='QEMU trace events to enable (e.g. "e810_*"), into gN/trace.log')
    ap.add_argument('--interactive', action='store_true',
                    help='one guest, console on this terminal, shell after the job')
    ap.add_argument('--monitor', action='store_true',
                    help='print the monitor socket paths (they always exist while running)')
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('--dry-run', action='store_true',
                    help='print the commands (link relay, servers, QEMUs) and exit')


def _kernel_args(ap, in_bundle):
    """The guest kernel and what it loads."""
    ap.add_argument('--kernel', default=os.environ.get('E810_KERNEL'),
                    help='guest kernel version prefix (default: images/build default)')
    ap.add_argument('--kernel-image', metavar='FILE',
                    help='boot their kernel: a bzImage or vmlinux (with --modules); its config '
                         'is checked first (images/build)')
    ap.add_argument('--modules', metavar='DIR',
                    help='their modules: DIR/lib/modules/RELEASE (make modules_install '
                         'INSTALL_MOD_PATH=DIR)')
    ap.add_argument('--kernel-tree', metavar='DIR',
                    help='boot their built kernel tree (bzImage, .config, modules installed from it)')
    ap.add_argument('--append', default='', help='extra kernel command line')
    ap.add_argument('--bzimage', action='store_true', help='boot bzImage instead of vmlinux (PVH)')
    ap.add_argument('--extras', action='store_true',
                    help='add the image\'s extra programs (nvme-cli, fio, nfs-utils; images/build)')
    ap.add_argument('--packages', nargs='+', action='extend', default=[], metavar='NAME',
                    help='add Debian (trixie) packages (names or comma lists) and what they load to the guests '
                         '(images/packages: a read-only squashfs disk laid under their root, not in their RAM; '
                         'cached per package set)')
    ap.add_argument('--kmods', action='append', default=[], metavar='NAME[,NAME...]',
                    help='add the guest kernel\'s modules by name, with what they depend on '
                         '(images/kmods: from the kernel package, or --modules)')
    ap.add_argument('--no-build', action='store_true',
                    default=bool(os.environ.get('E810_NO_BUILD')) or in_bundle,
                    help='use the existing image, do not run images/build (env E810_NO_BUILD=1)')


def _machine_args(ap):
    """QEMU and the device."""
    ap.add_argument('--qemu', default=os.environ.get('E810_QEMU') or
                    os.path.join(BUILD, 'qemu-build', 'qemu-system-x86_64'),
                    help='QEMU binary (env E810_QEMU; default ours, build/qemu-build): a path, or '
                         'stock-built / stock-debian (scripts/stock-qemu: QEMU without our device, '
                         'with the vfio-user client)')
    ap.add_argument('--device-backend', choices=('qemu', 'vfio-user'),
                    default=os.environ.get('E810_DEVICE_BACKEND', 'qemu'),
                    help='where the e810 runs: in QEMU (default) or out of process in '
                         'e810-vfio-user, with a QEMU that has vfio-user-pci (e.g. --qemu '
                         'stock-debian) (env E810_DEVICE_BACKEND)')
    ap.add_argument('--vfu-server', default=vfu_server_default(), metavar='PATH',
                    help='the e810-vfio-user binary (env E810_VFU_SERVER; default '
                         'build/vfu\'s, built by scripts/build-vfu unless --no-build, then '
                         'build/unit\'s (ASan/UBSan), then PATH)')
    ap.add_argument('--server-arg', action='append', default=[], metavar='ARG',
                    help='extra e810-vfio-user arguments (shell-split), per guest '
                         '(e.g. "--dsn 7 -v")')
    ap.add_argument('--accel', choices=('auto', 'tcg', 'kvm'), default=os.environ.get('E810_ACCEL', 'auto'))
    ap.add_argument('--mem', type=int, default=512, help='MiB per guest (default 512)')
    ap.add_argument('--smp', type=int, default=int(os.environ.get('E810_SMP', '2')),
                    help='vCPUs per guest (default 2, as users run; env E810_SMP)')
    ap.add_argument('--qemu-arg', action='append', default=[], metavar='ARG',
                    help='extra QEMU arguments (shell-split), per guest')
    ap.add_argument('--savevm', action='store_true',
                    help='give each guest a qcow2 (gN/vmstate.qcow2, not visible to the guest) for '
                         'the monitor\'s savevm/loadvm (vm-monitor savevm NAME)')

def parser(in_bundle):
    """The command line (its help: this module's docstring)."""
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0], epilog=__doc__.split('\n', 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _fabric_args(ap.add_argument_group('the guests and how they are joined'))
    _job_args(ap.add_argument_group('what the guests run'))
    _kernel_args(ap.add_argument_group('the guest kernel and what it loads'),
                 in_bundle)
    _machine_args(ap.add_argument_group('QEMU and the device'))
    return ap


def check_args(ap, a):
    """The NICs, the QEMU and, with --device-backend vfio-user, the
    server: what the options imply, or an error."""
    if not a.nic:
        a.nic = 'e810' if a.mode in ('iwarp', 'roce') and not (a.nic0 or a.nic1) else 'virtio'
    a.nic0 = a.nic0 or a.nic
    a.nic1 = a.nic1 or a.nic
    if a.interactive:
        a.guests = 1
    if not 1 <= a.guests <= MAX_GUESTS:
        ap.error(f'--guests: 1 to {MAX_GUESTS}')
    if topology(a) == 'direct' and a.guests > 2:
        ap.error('--topology direct joins two guests: use switch for more')
    if topology(a) in ('two-fabrics', 'back-to-back') and a.ports != 2:
        ap.error(f'--topology {topology(a)} joins two ports of each guest: --ports 2')
    if a.ports > 1 and any(nic_of(a, i) != 'e810' for i in range(a.guests)):
        ap.error('--ports 2 is the e810\'s (--nic e810)')
    if a.ports > 1 and a.device_backend == 'vfio-user':
        ap.error('--ports 2 with --device-backend vfio-user: the card\'s two functions need one '
                 'server for both, not there yet (docs/fabrics.md)')
    if len(a.uplink) > (2 if topology(a) == 'two-fabrics' else 1):
        ap.error('--uplink: one per switch')
    for spec in a.fault:
        try:
            parse_hot_unplug(re.sub(r'^g\d+:', '', spec))
        except RuntimeError as e:
            ap.error(f'--fault: {e}')
    k, total = fabric_ids(a)
    if k < 0 or total > MAX_GUESTS or total < k + a.guests:
        ap.error(f'--first-guest/--fabric-guests: the fabric\'s guests are 0 to {MAX_GUESTS - 1}, '
                 'this host\'s among them')
    if a.uplink and topology(a) in ('direct', 'back-to-back'):
        ap.error('--uplink joins a switch: not with a direct cable')
    if not a.script and not a.interactive:
        ap.error('--script is required (or --interactive)')
    a.qemu = resolve_qemu(a.qemu)
    if not os.path.exists(a.qemu):
        raise SystemExit(f'vm: no QEMU at {a.qemu} (use --qemu or E810_QEMU)')
    if a.device_backend == 'vfio-user' and any(nic_of(a, i) == 'e810' for i in range(a.guests)):
        if a.nic_opts:
            ap.error('--nic-opts are properties of QEMU\'s e810; with --device-backend vfio-user '
                     'the device is e810-vfio-user\'s: use --server-arg')
        if a.savevm:
            log('note: --savevm with --device-backend vfio-user: savevm will be refused '
                '(e810-vfio-user has no migration)')
        if any('hot-unplug' in x for x in a.fault) and vfu_unplug_refused(a):
            ap.error('--fault ' + vfu_unplug_refused(a))
        if not qemu_has_device(a.qemu, 'vfio-user-pci'):
            raise SystemExit(f'vm: {a.qemu} has no vfio-user-pci (QEMU >= 10.1 with the vfio-user '
                             'client): rebuild ours (scripts/build-qemu) or use --qemu '
                             'stock-debian or --qemu stock-built')
        if not a.vfu_server:
            a.vfu_server = vfu_server_find(not a.no_build and not a.dry_run)
        if not a.dry_run and not os.access(a.vfu_server, os.X_OK):
            raise SystemExit(f'vm: no e810-vfio-user at {a.vfu_server} (build it with the '
                             'top-level meson, or set E810_VFU_SERVER / --vfu-server)')


def kernel_args(ap, a, in_bundle):
    """The output folder, the user's own kernel (--kernel-image, --modules,
    --kernel-tree: returned as images/build options) and the shares."""
    if not a.out:
        a.out = os.path.join(BUILD, 'runs', datetime.datetime.now().strftime('%Y%m%d-%H%M%S-%f'))
    user = []
    for opt in ('kernel_image', 'modules', 'kernel_tree'):
        if getattr(a, opt):
            user += ['--' + opt.replace('_', '-'), os.path.abspath(getattr(a, opt))]
    if user and a.kernel == os.environ.get('E810_KERNEL') and '--kernel' not in sys.argv:
        a.kernel = None     # the test harness's default, not a choice
    if user and a.kernel:
        ap.error('--kernel and --kernel-image/--kernel-tree exclude each other')
    a.shares, a.share_env = [], {}
    if a.share:
        if not os.path.isdir(a.share):
            ap.error(f'--share {a.share}: not a directory')
        a.shares.append(('share', os.path.abspath(a.share), False))
        a.share_env['SHARE'] = '/mnt/share'
    if a.rdma_core:
        a.shares.append(('rdma-core', os.path.abspath(a.rdma_core), True))
        a.share_env.update(rdma_core_env(a.rdma_core, '/mnt/rdma-core'))
    if in_bundle and (user or a.packages or a.kmods or a.kernel):
        ap.error('a bundle runs the image it carries: their kernel, --packages, --kmods '
                 'and --kernel need a checkout (images/build)')
    return user


def main():
    # An unpacked bundle (scripts/bundle) carries its image and never builds.
    in_bundle = os.path.exists(os.path.join(TOP, 'bundle.json'))
    ap = parser(in_bundle)
    a = ap.parse_args()
    check_args(ap, a)
    user = kernel_args(ap, a, in_bundle)
    if a.dry_run:
        # Nothing built, booted or probed: the image that is there (or its
        # path to be), the cached accelerator (or TCG).
        img = dry_image(a.kernel, user)
        accel = a.accel if a.accel != 'auto' else cached_accel(img)
    else:
        img = image_dir(a.kernel, not a.no_build, user)
        accel = probe_accel(a, img) if a.accel == 'auto' else a.accel
    if not a.quiet:
        log(f'accelerator {accel}, kernel {os.path.basename(img)}, {a.guests} guest(s), out {a.out}')
    if a.monitor:
        for i in range(a.guests):
            log(f'g{i} monitors: {a.out}/g{i}/hmp.sock (HMP), {a.out}/g{i}/qmp.sock (QMP)')
    t0 = time.time()
    if os.path.exists(os.path.join(a.out, 'snapshot.log')):
        os.unlink(os.path.join(a.out, 'snapshot.log'))
    st = run_guests(a, img, accel)
    if a.dry_run:
        sys.exit(0)
    ok = all(s == '0' for s in st)
    if not a.quiet:
        print(f'vm: {"OK" if ok else "FAILED"} in {time.time() - t0:.1f} s  ({accel})')
    sys.exit(0 if ok else 1)
