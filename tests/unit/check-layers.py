#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The core's layers (docs/architecture.md, "Layers"), checked.

    e810.c (entry points, BAR0 dispatch)  ->  blocks  ->  services

Two graphs, printed as TAP:
  * includes (the sources): no core file but e810.c includes e810.h,
    services.h includes no block header, and e810 (e810.c + e810.h) is
    on no cycle of the include graph with a .c and its .h as one node;
  * calls (nm over the built core library, who uses whose symbols):
    nothing calls into e810.o, services.o calls no other core object but snap.o (a
    library that calls nothing), and
    txsched.o calls services.o only.  Cycles among the blocks' objects
    are listed for information.

usage: check-layers.py CORE_DIR LIBE810CORE.a [NM]
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SERVICE_HEADERS = {'services.h', 'types.h', 'host.h', 'snap.h'}
# The services level: services.o, and snap.o (the saved-state format), a
# library that calls nothing in the core.
SERVICE_OBJECTS = {'services', 'snap'}

results = []


def check(ok, what, detail=''):
    results.append((ok, what, detail))


def sources(core):
    for d, _, files in os.walk(core):
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                p = os.path.join(d, f)
                yield os.path.relpath(p, core)


def includes(core):
    """file -> the core files it includes (paths relative to core)."""
    graph = {}
    for rel in sources(core):
        with open(os.path.join(core, rel)) as f:
            text = f.read()
        out = set()
        for inc in INCLUDE.findall(text):
            p = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            if not p.startswith('..') and os.path.exists(os.path.join(core, p)):
                out.add(p)
        graph[rel] = out
    return graph


def closure(graph, start):
    seen, todo = set(), [start]
    while todo:
        n = todo.pop()
        for m in graph.get(n, ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def sccs(graph):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            n, it = work[-1]
            for m in it:
                if m not in index:
                    index[m] = low[m] = counter[0]
                    counter[0] += 1
                    stack.append(m)
                    on.add(m)
                    work.append((m, iter(graph.get(m, ()))))
                    break
                if m in on:
                    low[n] = min(low[n], index[m])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[n])
                if low[n] == index[n]:
                    comp = set()
                    while True:
                        m = stack.pop()
                        on.discard(m)
                        comp.add(m)
                        if m == n:
                            break
                    out.append(comp)
    return out


def check_includes(core):
    g = includes(core)
    users = sorted(f for f, inc in g.items()
                   if 'e810.h' in inc and f != 'e810.c')
    check(not users, 'no core file but e810.c includes e810.h',
          ', '.join(users))
    blocks = sorted(closure(g, 'services.h') - SERVICE_HEADERS)
    check('services.h' in g and not blocks,
          'services.h includes no block header',
          ', '.join(blocks))
    blocks = sorted(p for p in g.get('services.c', ())
                    if p not in SERVICE_HEADERS | {'dev.h'})
    check('services.c' in g and not blocks,
          'services.c includes only services headers and dev.h',
          ', '.join(blocks))
    # A .c and its .h are one node: a block that includes e810.h would
    # close a cycle e810.c -> block.h ... block.c -> e810.h.
    mod = {}
    for f, inc in g.items():
        mod.setdefault(f[:-2], set()).update(p[:-2] for p in inc)
    for n in mod:
        mod[n].discard(n)
    cyc = [c for c in sccs(mod) if 'e810' in c and len(c) > 1]
    check(not cyc, 'e810 is on no include cycle',
          ', '.join(sorted(cyc[0])) if cyc else '')


def objects(lib, nm):
    out = subprocess.run([nm, '-A', lib], capture_output=True, text=True,
                         check=True).stdout
    defs, undef = {}, {}
    for line in out.splitlines():
        head, _, sym = line.rpartition(' ')
        parts = line.split(':')
        if len(parts) < 3:
            continue
        obj = parts[1]
        name = re.sub(r'^qemu-dev_core_', '', os.path.basename(obj))
        name = re.sub(r'\.c\.o(bj)?$', '', name)
        undef.setdefault(name, set())
        kind = head.split()[-1] if head.split() else ''
        if kind == 'U':
            undef[name].add(sym)
        elif kind and kind in 'TDBRC':
            defs[sym] = name
    return {n: {defs[s] for s in u if s in defs and defs[s] != n}
            for n, u in undef.items()}


def check_calls(lib, nm):
    g = objects(lib, nm)
    callers = sorted(n for n, deps in g.items() if 'e810' in deps)
    check(not callers, 'nothing calls into e810.o', ', '.join(callers))
    check('services' in g and not g['services'] - SERVICE_OBJECTS,
          'services.o calls no other core object but snap.o',
          ', '.join(sorted(g.get('services', ()))))
    check('snap' in g and not g['snap'],
          'snap.o calls no other core object',
          ', '.join(sorted(g.get('snap', ()))))
    check(g.get('txsched', set()) - SERVICE_OBJECTS == set() and
          'services' in g.get('txsched', ()),
          'txsched.o calls the services only',
          ', '.join(sorted(g.get('txsched', ()))))
    for comp in sorted(sccs(g), key=lambda c: sorted(c)):
        if len(comp) > 1:
            print('# call cycle among blocks: ' + ' '.join(sorted(comp)))


def main():
    core, lib = sys.argv[1], sys.argv[2]
    check_includes(core)
    check_calls(lib, sys.argv[3] if len(sys.argv) > 3 else 'nm')
    print('1..%d' % len(results))
    for i, (ok, what, detail) in enumerate(results, 1):
        print('%s %d - %s%s' % ('ok' if ok else 'not ok', i, what,
                                ': ' + detail if detail and not ok else ''))
    return 0 if all(r[0] for r in results) else 1


if __name__ == '__main__':
    sys.exit(main())
