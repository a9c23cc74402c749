#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Completeness of the saved state (docs/plan-migration.md, 1 and 3.1).

Every member of every struct whose state is saved (E810Core and what
hangs off it, down to the RDMA tables, the engine's QPs and their WQEs)
must be one of:

  * named in a descriptor table of its type, SF_*(Type, member, ...) or
    an explicit { .off = offsetof(Type, member) } row, that a save path
    writes (e810_snap_put_fields, a part's or sparse table's declaration,
    or nested by SF_SUB/SUBA);
  * written by explicit save code: listed under "code" in
    snap-fields.json with the function(s) that write it, each of which
    must exist, lie on the save path (reachable from e810_core_save) and
    use the member (->m or .m; a use, which catches renames and moved
    code, not proof of a write), or with the declarations (a part, its
    items, a sparse table) that name it as a saved member's path or a
    table's live member;
  * exempt: listed under "exempt" in snap-fields.json with its class
    (derived, scratch, host, phase-A) and a reason; where a function is
    named (the one that rebuilds or holds the member) it must exist and
    use the member, or be a declaration naming it (a table's dirty map
    too).

The checked structs are STRUCTS, every type a written table describes,
and the struct type of every saved member, transitively.  Stale entries
(a struct or member that is gone, a member both in a table and exempt)
fail too.  Members are parsed from the C sources: arrays, bit-fields,
function pointers, several declarators per line, nested structs (named:
one member; anonymous: their members flattened).

Prints TAP, one test per struct with its counts.

Usage: check-snap-fields.py CORE_DIR
"""
import json
import os
import re
import sys

from tap import run_on_dir

# ---- what is checked -------------------------------------------------------

# The saved state's structs (more are found through the tables and the
# saved members' types).
STRUCTS = [
    'E810Core', 'E810Vector', 'E810Aq', 'E810Fw', 'E810FwCore',
    'E810FwNvm', 'E810FwDdp', 'E810FwSwitch', 'E810Vsi', 'E810SwRule',
    'E810VsiList', 'E810FwSched', 'E810SchedNode', 'E810TxQueueCtx',
    'E810RlProfile', 'E810FwPhy', 'E810Lan', 'E810TxRing', 'E810RxRing',
    'E810TxSched', 'E810Counters', 'E810Rdma', 'E810RdmaRing',
    'E810RdmaCq', 'E810RdmaEq', 'E810RdmaQp', 'E810RdmaMr', 'E810RdmaArp',
    'E810RdmaAh', 'E810RdmaMcg', 'E810RdmaQhash', 'E810RdmaSd',
    'E810RdmaHmcObj', 'E810Puda', 'E810PudaQ', 'E810Quad', 'E810LpbFrame',
    'E810Eng', 'E810EngQp', 'E810EngWqe', 'E810Roce', 'RoceQp', 'RoceWqe',
    'RoceRead', 'RocePath', 'IwarpQp', 'IwarpWqe',
]

# Where saving starts: the CODE functions must be reachable from it.
SAVE_ROOT = 'e810_core_save'

# The members no table writes, with why (data: snap-fields.json beside
# this file, its "about" says the layout).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'snap-fields.json')) as f:
    FIELDS = json.load(f)

# ---- members written by explicit code ------------------------------------
#
# (struct, member): (functions that write it, how).  None for the
# functions says the member is the embedded base of a transport's QP or
# WQE, saved by the engine as its own checked struct (E810EngQp, E810EngWqe).

CODE = {(s, m): (v[0], v[1]) for s, members in FIELDS['code'].items()
        for m, v in members.items()}

# ---- members not saved -----------------------------------------------------
#
# (struct, member): (class, reason, function that rebuilds or holds it,
# or None).

CLASSES = {
    'derived': 'rebuilt on load (or before its next use)',
    'scratch': 'only meaningful inside one entry point',
    'host': 'a host resource or property of the destination',
    'phase-A': 'not carried in phase A: a save is refused while in use',
}

TXQ_UNPACKED = ('base', 'qlen', 'src_vsi', 'port_num', 'cgd_num', 'pf_num',
                'vmvf_num', 'vmvf_type', 'tsyn_ena', 'alt_vlan', 'cpuid',
                'wb_mode', 'cmpq_id', 'qnum_in_func', 'quanta_prof_idx',
                'tso_ena', 'tso_qnum', 'legacy_int', 'drop_ena')

EXEMPT = {(s, m): tuple(v) for s, members in FIELDS['exempt'].items()
          for m, v in members.items()}
EXEMPT.update({('E810TxQueueCtx', m): ('derived', 'unpacked from raw, as '
                                       'Add Tx LAN Queues does',
                                       'txq_ctx_layout')
               for m in TXQ_UNPACKED})

# ---- C sources -------------------------------------------------------------

QUALIFIERS = {'const', 'volatile', 'struct', 'union', 'enum', 'signed',
              'unsigned', 'static', 'extern', 'register', 'restrict'}


LEXEMES = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"'
                     r"|'(?:\\.|[^'\\\n])*'", re.S)


def strip(text):
    """Comments, string and character literals and preprocessor lines
    blanked out, newlines kept (so that offsets give line numbers)."""
    def blank(m):
        s = m.group(0)
        if s[0] in '"\'':
            return s[0] + ' ' * (len(s) - 2) + s[-1]
        return re.sub(r'[^\n]', ' ', s)

    lines = LEXEMES.sub(blank, text).split('\n')
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith('#'):
            cont = line.rstrip().endswith('\\')
            lines[k] = ''
    return '\n'.join(lines)


def match(text, i):
    """Index of the bracket closing the one at text[i]."""
    pairs = {'(': ')', '[': ']', '{': '}'}
    depth = 0
    for j in range(i, len(text)):
        if text[j] in pairs:
            depth += 1
        elif text[j] in ')]}':
            depth -= 1
            if depth == 0:
                return j
    raise ValueError('unbalanced bracket at %d' % i)


def split_top(text, sep):
    """@text split at @sep outside brackets."""
    parts, depth, start = [], 0, 0
    for j, ch in enumerate(text):
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:j])
            start = j + 1
    parts.append(text[start:])
    return parts


def declarator(decl):
    """(name, [type words]) of one declarator ('int (*f)(int)', 'x[3]',
    'y : 4', '*p')."""
    m = re.search(r'\(\s*\*\s*(\w+)\s*\)', decl)
    if m:
        return m.group(1), re.findall(r'\w+', decl[:m.start()])
    decl = re.sub(r'\[[^\]]*\]', ' ', decl)
    decl = re.sub(r':\s*\w+\s*$', ' ', decl)
    words = re.findall(r'[A-Za-z_]\w*', decl)
    if not words:
        return None, []
    return words[-1], words[:-1]


def parse_members(body):
    """[(name, type)] of a struct body (comments and # lines stripped)."""
    out = []
    for decl in split_top(body, ';'):
        decl = decl.strip()
        if not decl:
            continue
        if '{' in decl:
            o = decl.index('{')
            c = match(decl, o)
            inner, after = decl[o + 1:c], decl[c + 1:].strip()
            if not after:
                out += parse_members(inner)     # anonymous: flattened
                continue
            for d in split_top(after, ','):
                name, _ = declarator(d)
                if name:
                    out.append((name, None))
            continue
        parts = split_top(decl, ',')
        name, words = declarator(parts[0])
        types = [w for w in words if w not in QUALIFIERS]
        base = types[-1] if types else (words[-1] if words else None)
        if name:
            out.append((name, base))
        for d in parts[1:]:
            name, _ = declarator(d)
            if name:
                out.append((name, base))
    return out


class Source:
    """What the check needs of the core's sources."""

    def __init__(self):
        self.structs = {}   # name -> [(file, line, [(member, type, line)])]
        self.funcs = {}     # name -> [body]
        self.vars = {}      # name -> [initializer]
        self.tables = {}    # name -> (file, line, parse_table's rows)

    def add(self, rel, text):
        text = strip(text)
        # Flat parts declared with a macro (no braces): variables too.
        for m in re.finditer(r'\b(\w+)\s*=\s*(E810_SNAP_FLAT\s*\()', text):
            args = text[m.end(2):match(text, m.end(2) - 1)]
            self.vars.setdefault(m.group(1), []).append(
                'E810_SNAP_FLAT(' + args + ')')
        i = 0
        while True:
            o = text.find('{', i)
            if o < 0:
                break
            c = match(text, o)
            head_start = max(text.rfind(';', 0, o), text.rfind('}', 0, o)) + 1
            head = text[head_start:o]
            line = text.count('\n', 0, o) + 1
            self._block(rel, line, head, text[o + 1:c], text, c)
            i = c + 1

    def _block(self, rel, line, head, body, text, close):
        h = head.rstrip()
        if h.endswith(')'):
            # a function definition: the name before its parameter list
            depth, j = 0, len(h) - 1
            while j >= 0:
                depth += {')': 1, '(': -1}.get(h[j], 0)
                if depth == 0:
                    break
                j -= 1
            m = re.search(r'(\w+)\s*$', h[:j])
            if m:
                self.funcs.setdefault(m.group(1), []).append(body)
            return
        if h.endswith('='):
            m = re.search(r'(\w+)\s*(\[[^\]]*\]\s*)*=$', h)
            if not m:
                return
            name = m.group(1)
            self.vars.setdefault(name, []).append(body)
            if re.search(r'\bE810SnapField\b', h):
                self.tables[name] = (rel, line, parse_table(body))
            return
        m = re.search(r'\b(struct|union)\s*(\w*)\s*$', h)
        if not m or m.group(1) != 'struct':
            return
        names = {m.group(2)} if m.group(2) else set()
        if re.search(r'\btypedef\b', h):
            t = re.match(r'\s*(\w+)\s*;', text[close + 1:])
            if t:
                names.add(t.group(1))
        members = []
        for member, typ in parse_members(body):
            m = re.search(r'\b%s\s*[\[;,:)]' % member, body)
            members.append((member, typ,
                            line + body.count('\n', 0, m.start() if m else 0)))
        for nm in names:
            self.structs.setdefault(nm, []).append((rel, line, members))


def parse_table(body):
    """[(macro, type, member, subtable)] of a descriptor table's rows."""
    rows = []
    for m in re.finditer(r'\b(SF_[A-Z_]+)\s*\(|\boffsetof\s*\(', body):
        args = split_top(body[m.end():match(body, m.end() - 1)], ',')
        args = [a.strip() for a in args]
        if len(args) < 2:
            continue
        member = re.match(r'\w+', args[1])
        macro = m.group(1) or 'offsetof'
        sub = args[2] if macro in ('SF_SUB', 'SF_SUBA') and \
            len(args) > 2 else None
        rows.append((macro, args[0], member.group(0) if member else args[1],
                     sub))
    return rows


def uses(body, member):
    return re.search(r'(->|\.)\s*%s\b' % re.escape(member), body) is not None


def layout_names(body, member):
    """A bit-field layout table (E810BitField, bytes.h) fills @member:
    E810_BF(Type, member, ...) or a local shorthand NAME_F(member, ...)."""
    return re.search(r'\b(E810_BF\(\s*\w+\s*,|\w+_F\()\s*%s\s*,' % re.escape(member),
                     body) is not None


# The saved state's declaration macros (snap.h) and what their arguments
# name, by position: 'path' a member of the E810Core (written), 'table' a
# descriptor table (written), 'live' a sparse table's key member, 'map' a
# sparse table's dirty map (not written).
DECLS = {
    'E810_SNAP_FLAT': {1: 'path', 2: 'table'},
    'E810_SNAP_FIELDS': {0: 'path', 1: 'table'},
    'E810_SNAP_ARRAY': {1: 'path', 3: 'table', 4: 'live'},
    'E810_SNAP_PTR': {1: 'path', 4: 'table', 5: 'live'},
    'E810_SNAP_MAP': {0: 'map'},
}


def decl_args(body):
    """[(role, argument)] of the declaration macros in an initializer."""
    out = []
    for m in re.finditer(r'\b(E810_SNAP_[A-Z]+)\s*\(', body):
        roles = DECLS.get(m.group(1), {})
        args = split_top(body[m.end():match(body, m.end() - 1)], ',')
        out += [(role, args[i].strip()) for i, role in roles.items()
                if i < len(args)]
    return out


def decl_members(src, var, roles):
    """The members that @var's declaration names in @roles (a path's
    every member: E810_SNAP_FLAT(name, fw.phy, ...) names fw and phy),
    through the items and tables it names."""
    out, seen, todo = set(), {var}, [var]
    while todo:
        for body in src.vars.get(todo.pop(), ()):
            for role, arg in decl_args(body):
                if role in roles:
                    out.update(re.findall(r'\w+', arg))
            for w in set(re.findall(r'[A-Za-z_]\w*', body)):
                if w in src.vars and w not in seen:
                    seen.add(w)
                    todo.append(w)
    return out


def reachable(src, root):
    """Functions and variables reachable from @root through the names
    their bodies mention; load paths are not followed."""
    bodies = {}
    for k, v in list(src.funcs.items()) + list(src.vars.items()):
        bodies.setdefault(k, []).extend(v)
    seen, todo = {root}, [root]
    while todo:
        for body in bodies.get(todo.pop(), ()):
            for w in set(re.findall(r'[A-Za-z_]\w*', body)):
                if w in bodies and w not in seen and 'load' not in w:
                    seen.add(w)
                    todo.append(w)
    return seen


def written_tables(src, reach):
    """Tables a save writes: passed to put_fields on the save path or named
    by a declaration on it, and the tables those nest (SF_SUB, SF_SUBA)."""
    out = set()
    # The tables of parts, their items and sparse tables (E810SnapPart,
    # E810SnapItem, E810SnapTable), which e810_snap_put_part and
    # e810_snap_put_table write.
    for v in reach:
        for body in src.vars.get(v, ()):
            out.update(a for role, a in decl_args(body)
                       if role == 'table' and a in src.tables)
            for m in re.finditer(r'\.(?:\w+_)?fields\s*=\s*(\w+)', body):
                if m.group(1) in src.tables:
                    out.add(m.group(1))
    for f in reach:
        for body in src.funcs.get(f, ()):
            for m in re.finditer(r'\be810_snap_put_fields\s*\(', body):
                args = split_top(body[m.end():match(body, m.end() - 1)], ',')
                if len(args) > 1 and args[1].strip() in src.tables:
                    out.add(args[1].strip())
    todo = list(out)
    while todo:
        for _, _, _, sub in src.tables[todo.pop()][2]:
            if sub in src.tables and sub not in out:
                out.add(sub)
                todo.append(sub)
    return out


# ---- the check -------------------------------------------------------------

def selftest(point):
    body = strip('''
        uint32_t a, *b, c[4][2];    /* a comment; with a semicolon */
        unsigned flag : 1;
        bool (*fn)(int x, int y);
        struct { int x; char s[8]; } named;
        struct { int inner; union_t u; };
        const struct Other *p;      // another one
        #define X { 1; }
    ''')
    got = [(m, t) for m, t in parse_members(body)]
    want = [('a', 'uint32_t'), ('b', 'uint32_t'), ('c', 'uint32_t'),
            ('flag', 'unsigned'), ('fn', 'bool'), ('named', None),
            ('inner', 'int'), ('u', 'union_t'), ('p', 'Other')]
    point(got == want, 'parser: members of a sample struct',
          [] if got == want else ['got %s' % got])
    rows = parse_table(strip('''
        SF_U(T, f, 0, 3), SF_SUBA(T, g, sub_fields), /* SF_BOOL(T, h) */
        { .name = "v{/*", .off = offsetof(T, v), .count = '}' }, SF_END
    '''))
    want = [('SF_U', 'T', 'f', None), ('SF_SUBA', 'T', 'g', 'sub_fields'),
            ('offsetof', 'T', 'v', None)]
    point(rows == want, 'parser: rows of a sample table',
          [] if rows == want else ['got %s' % rows])


def check(core, point):
    selftest(point)

    src = Source()
    for root, dirs, files in os.walk(core):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                path = os.path.join(root, f)
                with open(path, encoding='utf-8') as fh:
                    src.add(os.path.relpath(path, core), fh.read())

    reach = reachable(src, SAVE_ROOT)
    point(SAVE_ROOT in src.funcs, 'the save path starts at %s' % SAVE_ROOT)
    tables = written_tables(src, reach)
    unwritten = sorted(set(src.tables) - tables)
    point(not unwritten, 'every descriptor table is written by a save',
          ['%s (%s:%d) is never written: its rows save nothing' %
           (t, src.tables[t][0], src.tables[t][1]) for t in unwritten])

    # Members named by the written tables, by type.
    in_table = {}
    for t in sorted(tables):
        for _, typ, member, _ in src.tables[t][2]:
            in_table.setdefault(typ, {}).setdefault(member, []).append(t)

    def struct(name):
        defs = src.structs.get(name, [])
        return defs[0] if len(defs) == 1 else None

    # The checked structs: the list, the tables' types, and the struct
    # types of saved members, transitively.
    checked, why, todo = [], {}, []

    def want(name, reason):
        if name not in why:
            why[name] = reason
            checked.append(name)
            todo.append(name)

    for s in STRUCTS:
        want(s, None)
    for typ in sorted(in_table):
        want(typ, 'described by %s' % ', '.join(
            sorted({t for ts in in_table[typ].values() for t in ts})))
    while todo:
        s = todo.pop(0)
        d = struct(s)
        if not d:
            continue
        for member, typ, _ in d[2]:
            if (s, member) in EXEMPT or typ not in src.structs:
                continue
            if member in in_table.get(s, {}) or (s, member) in CODE:
                want(typ, 'type of saved %s.%s' % (s, member))

    totals = {'members': 0, 'table': 0, 'code': 0}
    by_class = {c: 0 for c in CLASSES}
    for s in checked:
        defs = src.structs.get(s, [])
        if len(defs) != 1:
            point(False, '%s: %s' % (s, 'no definition found' if not defs
                                     else 'defined %d times' % len(defs)))
            continue
        rel, line, members = defs[0]
        notes, nt, nc, ne = [], 0, 0, 0
        names = [m for m, _, _ in members]
        for m, _, mline in members:
            tab = in_table.get(s, {}).get(m)
            code = CODE.get((s, m))
            ex = EXEMPT.get((s, m))
            if tab and ex:
                notes.append('%s.%s is in %s and exempt (%s): drop the '
                             'exemption' % (s, m, ', '.join(tab), ex[0]))
            elif tab and code:
                notes.append('%s.%s is in %s and in CODE: drop the CODE '
                             'entry' % (s, m, ', '.join(tab)))
            elif code and ex:
                notes.append('%s.%s is both in CODE and exempt' % (s, m))
            elif tab:
                nt += 1
            elif code:
                nc += 1
            elif ex:
                ne += 1
                by_class[ex[0]] = by_class.get(ex[0], 0) + 1
            else:
                notes.append('%s.%s (%s:%d) is not saved: add it to a '
                             'descriptor table, to CODE, or to EXEMPT with '
                             'its class and a reason' % (s, m, rel, mline))
        dup = sorted({m for m in names if names.count(m) > 1})
        if dup:
            notes.append('%s: members parsed twice: %s' % (s, dup))
        totals['members'] += len(names)
        totals['table'] += nt
        totals['code'] += nc
        point(not notes, '%s (%s%s): %d members: %d saved (%d table, %d '
              'code), %d exempt' % (s, rel, '; ' + why[s] if why[s] else '',
                                    len(names), nt + nc, nt, nc, ne), notes)

    # Every entry of the lists names a checked struct's member, and its
    # function holds it.
    notes = []
    for (s, m), (fns, how) in sorted(CODE.items()):
        d = struct(s)
        if s not in why or not d or m not in [x[0] for x in d[2]]:
            notes.append('CODE %s.%s: no such member of a checked struct'
                         % (s, m))
            continue
        if fns is None:
            typ = {x[0]: x[1] for x in d[2]}[m]
            if typ not in why:
                notes.append('CODE %s.%s: its type %s is not checked'
                             % (s, m, typ))
            continue
        for f in fns:
            if f not in src.funcs and f not in src.vars:
                notes.append('CODE %s.%s: no function %s' % (s, m, f))
            elif f not in reach:
                notes.append('CODE %s.%s: %s is not on the save path from %s'
                             % (s, m, f, SAVE_ROOT))
            elif f in src.vars and f not in src.funcs:
                if m not in decl_members(src, f, ('path', 'live')):
                    notes.append('CODE %s.%s: declaration %s does not name '
                                 '%s' % (s, m, f, m))
            elif not any(uses(b, m) for b in src.funcs[f]):
                notes.append('CODE %s.%s: %s does not use ->%s or .%s'
                             % (s, m, f, m, m))
    point(not notes, 'CODE: %d members, each written on the save path'
          % len(CODE), notes)

    notes = []
    for (s, m), (cls, reason, fn) in sorted(EXEMPT.items()):
        d = struct(s)
        if s not in why or not d or m not in [x[0] for x in d[2]]:
            notes.append('EXEMPT %s.%s: no such member of a checked struct'
                         % (s, m))
        if cls not in CLASSES or not reason:
            notes.append('EXEMPT %s.%s: class %r (one of %s) and a reason'
                         % (s, m, cls, ', '.join(CLASSES)))
        if fn and fn in src.vars and fn not in src.funcs:
            if any(layout_names(b, m) for b in src.vars[fn]):
                pass
            elif m not in decl_members(src, fn, ('path', 'live', 'map')):
                notes.append('EXEMPT %s.%s: declaration %s does not name '
                             '%s' % (s, m, fn, m))
        elif fn and fn not in src.funcs:
            notes.append('EXEMPT %s.%s: no function %s' % (s, m, fn))
        elif fn and not any(uses(b, m) for b in src.funcs[fn]):
            notes.append('EXEMPT %s.%s: %s does not use ->%s or .%s'
                         % (s, m, fn, m, m))
    point(not notes, 'EXEMPT: %d members, each with a class and a reason'
          % len(EXEMPT), notes)

    print('# %d structs, %d members: %d saved (%d by tables, %d by code), '
          '%d exempt (%s)' %
          (len(checked), totals['members'], totals['table'] + totals['code'],
           totals['table'], totals['code'], sum(by_class.values()),
           ', '.join('%s %d' % kv for kv in by_class.items())))


if __name__ == '__main__':
    sys.exit(run_on_dir(__doc__, check))
