# SPDX-License-Identifier: GPL-2.0-or-later
"""Which accelerator a guest kernel can run under: KVM if a short boot shows it
works, else TCG."""
import argparse
import hashlib
import json
import os
import shutil
import tempfile

from .common import BUILD, log
from .run import run_guests


def probe_accel(a, img):
    """KVM only if it really runs our guest (a /dev/kvm may be a software
    layer that cannot run a stock kernel).  Cached per host kernel, KVM
    modules and guest kernel, not per QEMU binary, which is rebuilt often."""
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        return 'tcg'
    mods = sorted(m for m in os.listdir('/sys/module') if m.startswith('kvm'))
    key = hashlib.sha256(repr((os.path.basename(img), os.uname().release,
                               mods)).encode()).hexdigest()[:16]
    cache = os.path.join(BUILD, 'accel-probe.json')
    try:
        known = json.load(open(cache))
    except (OSError, ValueError):
        known = {}
    if key in known:
        return known[key]
    log('probing whether KVM can run the guest (cached afterwards)')
    pd = tempfile.mkdtemp(prefix='accel-probe-', dir=BUILD)
    sc = os.path.join(pd, 'probe.sh')
    with open(sc, 'w') as f:
        f.write('#!/bin/sh\necho probe-ok\n')
    pa = argparse.Namespace(**vars(a))
    pa.guests, pa.out, pa.timeout, pa.accel = 1, os.path.join(pd, 'run'), 15, 'kvm'
    pa.script, pa.script1, pa.nic0, pa.nic1 = sc, None, 'none', 'none'
    pa.pcap, pa.trace, pa.interactive, pa.quiet = [], [], False, True
    pa.shares, pa.share_env, pa.packages, pa.extras = [], {}, [], False
    pa.kmods = []
    pa.mode, pa.savevm, pa.dry_run = None, False, False
    st_ = run_guests(pa, img, 'kvm')
    res = 'kvm' if st_ == ['0'] and 'probe-ok' in open(
        os.path.join(pa.out, 'g0', 'output.log'), errors='replace').read() else 'tcg'
    known[key] = res
    with open(cache, 'w') as f:
        json.dump(known, f)
    shutil.rmtree(pd, ignore_errors=True)
    return res
