# SPDX-License-Identifier: GPL-2.0-or-later
"""Guest images: which one a run uses, whether it is current, building it, the
rdma-core of the user's own."""
import glob
import hashlib
import json
import os
import re
import subprocess

from .common import BUILD, TOP, log


def find_image(kernel):
    """The built image for the kernel prefix (or the default), or None."""
    base = os.path.join(BUILD, 'images')
    if kernel:
        # Same matching as images/build: "6.1" is 6.1.0-N, not 6.12.x;
        # "6.12+deb12" only bookworm's builds.
        def vkey(v):
            return [int(x) if x.isdigit() else x for x in re.split(r'[.\-+~]', v)]
        snum, _, ssuf = kernel.partition('+')
        cands = []
        for d in glob.glob(os.path.join(base, '*-amd64')):
            vnum, _, vsuf = os.path.basename(d)[:-len('-amd64')].partition('+')
            if (vkey(vnum)[:len(vkey(snum))] == vkey(snum) and (not ssuf or ssuf == vsuf)
                    and os.path.exists(os.path.join(d, 'initramfs.cpio.zst'))):
                cands.append((vkey(vnum), d))
        if cands:
            return max(cands)[1]
    elif os.path.exists(os.path.join(base, 'default', 'initramfs.cpio.zst')):
        return os.path.realpath(os.path.join(base, 'default'))
    return None


def image_dir(kernel, build=True, user=None):
    if user:
        # Their kernel: always through images/build (cached; it checks the
        # kernel's config before anything else).
        cmd = [os.path.join(TOP, 'images', 'build'), '--print-dir'] + user
        r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if r.returncode:
            raise SystemExit(f'vm: images/build refused the kernel (exit {r.returncode})')
        return r.stdout.strip()
    if build:
        # images/build is cached (~0.5 s when up to date) and keeps the image
        # in step with images/; --no-build skips it.
        cmd = [os.path.join(TOP, 'images', 'build'), '--print-dir']
        if kernel:
            cmd += ['--kernel', kernel]
        return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    d = find_image(kernel)
    if d and image_current(d):
        return d
    log('guest image missing: running images/build' if not d else
        f'guest image {d} was built from other sources than this tree\'s images/ '
        '(own.sha256): running images/build')
    cmd = [os.path.join(TOP, 'images', 'build'), '--print-dir']
    if kernel:
        cmd += ['--kernel', kernel]
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


def image_current(d):
    """False if image d was built from other images/ files than this
    tree's (its own.sha256, written by images/build; an image without one
    is taken as it is).  Costs a hash of ~20 small files."""
    stamp = os.path.join(d, 'own.sha256')
    if not os.path.exists(stamp):
        return True
    from importlib.machinery import SourceFileLoader
    ib = SourceFileLoader('e810_images_build', os.path.join(TOP, 'images', 'build')).load_module()
    return open(stamp).read().strip() == ib.files_hash(ib.own_files())


def dry_image(kernel, user):
    """--dry-run's image: the one there is (never built), or where the
    default one would be (not read)."""
    return (None if user else find_image(kernel)) or os.path.join(BUILD, 'images', 'default')


def cached_accel(img):
    """probe_accel's cached answer for this host and image, else tcg."""
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        return 'tcg'
    mods = sorted(m for m in os.listdir('/sys/module') if m.startswith('kvm'))
    key = hashlib.sha256(repr((os.path.basename(img), os.uname().release,
                               mods)).encode()).hexdigest()[:16]
    try:
        return json.load(open(os.path.join(BUILD, 'accel-probe.json'))).get(key, 'tcg')
    except (OSError, ValueError):
        return 'tcg'


def rdma_core_env(d, mnt):
    """Where their rdma-core keeps its pieces, as the guest sees them: a
    cmake build tree (lib/, bin/) or an install prefix (usr/lib/<triplet>/,
    usr/lib/<triplet>/libibverbs/, usr/bin/).  The guest's /init turns
    these into LD_LIBRARY_PATH, PATH and RDMAV_DRIVERS naming each of
    their providers by its full path (a bare name would find the image's
    provider first, in the provider directory compiled into libibverbs)."""
    if not os.path.isdir(d):
        raise SystemExit(f'vm: --rdma-core {d}: not a directory')
    found = {}
    for dp, dns, fns in os.walk(d):
        dns[:] = [x for x in dns if x not in ('CMakeFiles', 'include', 'share', 'man', 'doc',
                                              'python', 'pyverbs', 'tests', 'debian', 'src')]
        rel = os.path.relpath(dp, d)
        if rel.count('/') > 5:
            dns[:] = []
            continue
        for fn in fns:
            if fn == 'libibverbs.so.1':
                found.setdefault('lib', rel)
            elif re.fullmatch(r'lib\w+-rdmav\d+\.so', fn):
                # The folder with the irdma provider (a build tree also has
                # copies under providers/NAME/).
                if fn.startswith('libirdma-') or 'prov' not in found:
                    found['prov'] = rel
            elif fn == 'rping' and os.access(os.path.join(dp, fn), os.X_OK):
                found.setdefault('bin', rel)
    if 'lib' not in found:
        raise SystemExit(f'vm: --rdma-core {d}: no libibverbs.so.1 in it (an rdma-core build '
                         'tree or install prefix is expected)')
    if 'prov' not in found:
        raise SystemExit(f'vm: --rdma-core {d}: no provider (lib*-rdmavN.so) in it')
    env = {'RDMA_CORE': mnt}
    for k, v in found.items():
        env['RDMA_CORE_' + k.upper()] = os.path.normpath(os.path.join(mnt, v))
    # libibverbs reads its config directory from a path compiled in (no
    # variable sets it); the guest creates it so no warning is printed.
    data = open(os.path.join(d, found['lib'], 'libibverbs.so.1'), 'rb').read()
    m = re.search(rb'\0(/[\x21-\x7e]*/libibverbs\.d)\0', data)
    if m:
        env['RDMA_CORE_CONFDIR'] = m.group(1).decode()
    return env
