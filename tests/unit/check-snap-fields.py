#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Completeness of the saved state (docs/plan-migration.md, 1 and 3.1).

Every member of every struct whose state is saved (E810Core and what
hangs off it, down to the RDMA tables, the engine's QPs and their WQEs)
must be one of:

  * named in a descriptor table of its type, SF_*(Type, member, ...) or
    an explicit { .off = offsetof(Type, member) } row, that a save path
    writes (e810_snap_put_fields/put_sparse/put_sparse_map, or nested by
    SF_SUB/SUBA);
  * written by explicit save code: listed in CODE below with the
    function(s) that write it, each of which must exist, lie on the save
    path (reachable from e810_core_save) and use the member (->m or .m;
    a use, which catches renames and moved code, not proof of a write);
  * exempt: listed in EXEMPT below with its class (derived, scratch,
    host, phase-A) and a reason; where a function is named (the one that
    rebuilds or holds the member) it must exist and use the member.

The checked structs are STRUCTS, every type a written table describes,
and the struct type of every saved member, transitively.  Stale entries
(a struct or member that is gone, a member both in a table and exempt)
fail too.  Members are parsed from the C sources: arrays, bit-fields,
function pointers, several declarators per line, nested structs (named:
one member; anonymous: their members flattened).

Prints TAP, one test per struct with its counts.

Usage: check-snap-fields.py CORE_DIR
"""
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

# ---- members written by explicit code ------------------------------------
#
# (struct, member): (functions that write it, how).  A function of None
# says the member is the embedded base of a transport's QP or WQE, saved
# by the engine as its own checked struct (E810EngQp, E810EngWqe).

SPARSE = 'sparse key: an entry in the stream is a live one'
BASE = 'the engine saves its part (a checked struct)'

CODE = {
    ('E810Core', 'mac'): (['e810_core_save'], 'header; must match on load'),
    ('E810Core', 'link_up'): (['e810_core_save'], 'header'),
    ('E810Core', 'mem_used'): (['e810_core_save'],
                               'header; checked against mem_limit, the '
                               "load's allocations charge it again"),
    ('E810Core', 'regs'): (['e810_regs_save'], 'the dirty pages'),
    ('E810Core', 'regs_dirty'): (['e810_regs_save'], 'which pages'),
    ('E810Core', 'stats'): (['e810_counters_snap'], 'in the TXSCHED record'),
    ('E810Core', 'aq'): (['e810_aq_snap'], 'AQ record'),
    ('E810Core', 'fw'): (['e810_fw_core_snap', 'e810_fw_nvm_snap',
                          'e810_fw_ddp_snap', 'e810_fw_phy_snap',
                          'e810_fw_switch_save', 'e810_fw_sched_save'],
                         'FW_* records'),
    ('E810Core', 'lan'): (['e810_lan_save'], 'LAN record'),
    ('E810Core', 'txs'): (['e810_txsched_snap'], 'TXSCHED record'),
    ('E810Core', 'rdma'): (['e810_rdma_save'], 'RDMA record'),
    ('E810Core', 'puda'): (['e810_puda_save'], 'PUDA record'),

    ('E810Fw', 'core'): (['e810_fw_core_snap'], 'FW_CORE record'),
    ('E810Fw', 'nvm'): (['e810_fw_nvm_snap'], 'FW_NVM record'),
    ('E810Fw', 'ddp'): (['e810_fw_ddp_snap'], 'FW_DDP record'),
    ('E810Fw', 'sw'): (['e810_fw_switch_save'], 'FW_SWITCH record'),
    ('E810Fw', 'sched'): (['e810_fw_sched_save'], 'FW_SCHED record'),
    ('E810Fw', 'phy'): (['e810_fw_phy_snap'], 'FW_PHY record'),

    ('E810FwSwitch', 'vsi'): (['e810_fw_switch_save'], 'sparse'),
    ('E810FwSwitch', 'rule'): (['e810_fw_switch_save'], 'sparse'),
    ('E810FwSwitch', 'list'): (['e810_fw_switch_save'], 'sparse'),
    ('E810SwRule', 'in_use'): (['sw_rule_live'], SPARSE),
    ('E810VsiList', 'in_use'): (['sw_list_live'], SPARSE),

    ('E810FwSched', 'node'): (['e810_fw_sched_save'], 'sparse'),
    ('E810FwSched', 'txq'): (['e810_fw_sched_save'], 'sparse'),
    ('E810FwSched', 'rl'): (['e810_fw_sched_save'], 'sparse'),
    ('E810RlProfile', 'in_use'): (['sched_rl_live'], SPARSE),

    ('E810Lan', 'txq'): (['e810_lan_save'], 'sparse'),
    ('E810Lan', 'rxq'): (['e810_lan_save'], 'sparse'),
    ('E810RxRing', 'enabled'): (['lan_rxq_live'], SPARSE),

    ('E810TxSched', 'stats'): (['e810_txsched_snap'], 'counters'),

    ('E810Rdma', 'cqp_active'): (['e810_rdma_save'],
                                 'first: the rest only with it'),
    ('E810Rdma', 'ccqe_pending'): (['ccqe_save'], 'version 2'),
    ('E810Rdma', 'ccqe_res'): (['ccqe_save'], 'only when pending'),
    ('E810CqpResult', 'maj'): (['ccqe_save'], 'the pending CCQE'),
    ('E810CqpResult', 'min'): (['ccqe_save'], 'the pending CCQE'),
    ('E810CqpResult', 'retval'): (['ccqe_save'], 'the pending CCQE'),
    ('E810Rdma', 'fpm_committed'): (['e810_rdma_hmc_save'], 'HMC'),
    ('E810Rdma', 'obj'): (['e810_rdma_hmc_save'], 'the committed counts'),
    ('E810Rdma', 'sd'): (['e810_rdma_hmc_save'], 'each SD'),
    ('E810Rdma', 'cq'): (['e810_rdma_eq_save'], 'sparse'),
    ('E810Rdma', 'ceq'): (['e810_rdma_eq_save'], 'sparse'),
    ('E810Rdma', 'aeq'): (['e810_rdma_eq_save'], 'if valid'),
    ('E810Rdma', 'qp'): (['e810_rdma_qps_save'], 'sparse, last'),
    ('E810Rdma', 'mr'): (['e810_rdma_tables_save'],
                         'sparse over the allocated table'),
    ('E810Rdma', 'arp'): (['e810_rdma_tables_save'], 'sparse'),
    ('E810Rdma', 'ah'): (['e810_rdma_tables_save'],
                         'sparse over the allocated table'),
    ('E810Rdma', 'qhash'): (['e810_rdma_tables_save'], 'sparse'),
    ('E810Rdma', 'mcg'): (['e810_rdma_mcg_save'],
                          'sparse over the allocated table'),
    ('E810Rdma', 'eng'): (['e810_eng_save'], 'ENG record'),
    ('E810Rdma', 'roce'): (['roce_dev_save'],
                           'ENG record: whether it exists, its counters'),
    ('E810RdmaHmcObj', 'cnt'): (['e810_rdma_hmc_save'], 'once committed'),
    ('E810RdmaCq', 'valid'): (['cq_live'], SPARSE),
    ('E810RdmaEq', 'valid'): (['eq_live', 'e810_rdma_eq_save'],
                              SPARSE + ' (the AEQ: a flag)'),
    ('E810RdmaQp', 'valid'): (['qp_live'], SPARSE),
    ('E810RdmaMr', 'valid'): (['mr_live'], SPARSE),
    ('E810RdmaArp', 'valid'): (['arp_live'], SPARSE),
    ('E810RdmaAh', 'valid'): (['ah_live'], SPARSE),
    ('E810RdmaQhash', 'valid'): (['qhash_live'], SPARSE),
    ('E810RdmaMcg', 'valid'): (['mcg_live'], SPARSE),

    ('E810Puda', 'q'): (['e810_puda_save'], 'sparse: active, QP valid'),
    ('E810Puda', 'ip_id'): (['e810_puda_save'], 'first'),
    ('E810Puda', 'quad'): (['e810_rdma_port_save'],
                           'sparse: bound and QP valid'),
    ('E810Puda', 'bound'): (['quad_live'],
                            'the quad table\'s keys (of valid QPs)'),
    ('E810Puda', 'lpb'): (['e810_rdma_port_save'], 'the queued frames'),
    ('E810Puda', 'lpb_head'): (['e810_rdma_port_save'], 'loopback queue'),
    ('E810Puda', 'lpb_count'): (['e810_rdma_port_save'], 'loopback queue'),
    ('E810Puda', 'stats'): (['e810_puda_stats_snap'], 'counters'),
    ('E810PudaQ', 'active'): (['puda_q_live'], SPARSE),
    ('E810LpbFrame', 'data'): (['e810_rdma_port_save'], 'len bytes'),
    ('E810LpbFrame', 'len'): (['e810_rdma_port_save'], 'u32'),

    ('E810Eng', 'qp'): (['e810_eng_save'], 'the QPs in ascending id'),
    ('E810EngQp', 'id'): (['eng_qp_save'], 'the sparse index'),
    ('E810EngQp', 'rcv_sge'): (['eng_qp_save'], 'rcv_nsge of them'),
    ('E810EngQp', 'wq'): (['e810_eng_wq_at'],
                          'wq_cnt WQEs in ring order from wq_head'),
    ('E810EngQp', 'wq_size'): (['eng_qp_save'], 'u16'),
    ('E810EngQp', 'wq_head'): (['eng_qp_save'], 'u16'),
    ('E810EngQp', 'wq_cnt'): (['eng_qp_save'], 'u16'),
    ('E810EngWqe', 'sge'): (['eng_wqe_save'], 'nsge of them'),
    ('E810EngWqe', 'inl_data'): (['eng_wqe_save'], 'len bytes, if inl'),
    ('IwarpQp', 'eng'): (None, BASE),
    ('IwarpWqe', 'eng'): (None, BASE),
    ('RoceQp', 'eng'): (None, BASE),
    ('RoceQp', 'rd'): (['roce_save'], 'rd_cnt READs from rd_head'),
    ('RoceWqe', 'eng'): (None, BASE),
    ('E810Roce', 'stats'): (['roce_dev_save'], 'counters'),
}

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

EXEMPT = {
    ('E810Core', 'host'): ('host', "the destination's, from realize",
                           'e810_core_init'),
    ('E810Core', 'adapter'): ('host', "the destination's card, from realize",
                              'e810_core_join'),
    ('E810Core', 'own_adapter'): ('host', "the destination's card, from realize",
                                  'e810_core_join'),
    ('E810Core', 'pf_id'): ('host', "the destination's function number, from "
                            'realize', 'e810_core_join'),
    ('E810Core', 'reset_timer'): ('host', 'made at init; nothing is saved '
                                  'while an adapter reset is under way',
                                  'e810_core_init'),
    ('E810Core', 'busy'): ('derived', 'entry guard: false outside an entry',
                           'e810_leave'),
    ('E810Core', 'entry'): ('derived', "entry number: the destination's "
                            'goes on', 'e810_enter'),
    ('E810Core', 'mem_limit'): ('host', "the destination's rdma-mem-limit",
                                'e810_core_init'),
    ('E810Core', 'tx_budget'): ('host', 'set by the host after init',
                                'e810_core_init'),
    ('E810Core', 'gerr_window'): ('derived', 'log rate limit, starts afresh',
                                  'e810_guest_error'),
    ('E810Core', 'gerr_in_window'): ('derived', 'log rate limit, starts '
                                     'afresh', 'e810_guest_error'),

    ('E810Vector', 'core'): ('host', 'this core', 'e810_intr_reset'),
    ('E810Vector', 'timer'): ('host', 'made when a fire is deferred; the '
                              'load re-arms timer_at', 'e810_intr_timer_arm'),

    ('E810Aq', 'cmd'): ('scratch', 'the command being run (runs within one '
                        'MMIO write)', None),
    ('E810Aq', 'held'): ('derived', 'a fault holds a command: nothing is '
                         'saved then', 'e810_core_unmigratable'),
    ('E810Aq', 'resume'): ('scratch', 'set and cleared within the hold '
                           "timer's run", 'aq_hold_done'),
    ('E810Aq', 'timer'): ('host', 'made at init', 'e810_aq_init'),

    ('E810FwNvm', 'flash'): ('derived', 'synthetic read-only image, '
                             'rebuilt by the power-on reset',
                             'nvm_build_image'),
    ('E810FwNvm', 'sr'): ('derived', 'synthetic read-only image, rebuilt '
                          'by the power-on reset', 'nvm_build_image'),
    ('E810FwNvm', 'built'): ('derived', 'the image is there (power-on '
                             'reset)', 'e810_fw_nvm_reset'),

    ('E810FwSwitch', 'nvsi'): ('derived', 'count of the live VSIs',
                               'sw_load'),
    ('E810FwSwitch', 'nrules'): ('derived', 'count of the live rules',
                                 'sw_load'),
    ('E810FwSwitch', 'lk'): ('derived', 'lookup cache, invalidated',
                             'sw_load'),
    ('E810FwSwitch', 'vsi_dirty'): ('derived', 'chunks a reset zeroes, '
                                    'marked as entries load',
                                    'e810_fw_switch_load'),
    ('E810FwSwitch', 'rule_dirty'): ('derived', 'chunks a reset zeroes, '
                                     'marked as entries load',
                                     'e810_fw_switch_load'),
    ('E810FwSwitch', 'list_dirty'): ('derived', 'chunks a reset zeroes, '
                                     'marked as entries load',
                                     'e810_fw_switch_load'),
    ('E810FwSwitch', 'lut_dirty'): ('derived', 'a reset zeroes the LUTs; '
                                    'set by the load',
                                    'e810_fw_switch_load'),

    ('E810FwSched', 'nnodes'): ('derived', 'count of the live nodes',
                                'sched_load'),
    ('E810FwSched', 'node_dirty'): ('derived', 'chunks a reset zeroes, '
                                    'marked as entries load',
                                    'e810_fw_sched_load'),
    ('E810FwSched', 'txq_dirty'): ('derived', 'chunks a reset zeroes, '
                                   'marked as entries load',
                                   'e810_fw_sched_load'),
    ('E810SchedNode', 'mark'): ('scratch', 'subtree walks; 0 after the '
                                "load's sched_zero", None),
    ('E810SchedNode', 'nchildren'): ('derived', 'counted from the parents',
                                     'sched_load'),

    ('E810Lan', 'gather'): ('scratch', 'per-packet Tx gather buffer', None),
    ('E810Lan', 'txq_dirty'): ('derived', 'chunks a reset zeroes, marked '
                               'as rings load', 'e810_lan_load'),
    ('E810Lan', 'rxq_dirty'): ('derived', 'chunks a reset zeroes, marked '
                               'as rings load', 'e810_lan_load'),
    ('E810Lan', 'frame'): ('scratch', 'one Tx frame being built', None),
    ('E810Lan', 'rxframe'): ('scratch', 'one Rx frame being placed', None),
    ('E810RxRing', 'valid'): ('derived', 'e810_rxq_check of the context',
                              'lan_rxq_each'),

    ('E810TxSched', 'bh'): ('host', 'the bottom half, made at init',
                            'e810_txsched_init'),
    ('E810TxSched', 'grace'): ('host', 'timer made at init, stopped on load',
                               'e810_txsched_init'),
    ('E810TxSched', 'scheduled'): ('derived', 'mirrors the host bottom '
                                   'half; e810_core_resume schedules it',
                                   'e810_tx_schedule'),
    ('E810TxSched', 'blocked'): ('derived', "0: the source's backend is "
                                 'gone', 'txsched_check'),
    ('E810TxSched', 'queued'): ('derived', "0: what the source's backend "
                                'held is gone', 'txsched_check'),
    ('E810TxSched', 'blocked_at'): ('derived', '0 with blocked',
                                    'txsched_check'),
    ('E810TxSched', 'entry'): ('derived', 'renewed in the next entry point',
                               'tx_entry'),
    ('E810TxSched', 'budget'): ('derived', 'renewed in the next entry point',
                                'tx_entry'),
    ('E810TxSched', 'entry_sent'): ('derived', 'renewed in the next entry '
                                    'point', 'tx_entry'),

    ('E810Rdma', 'in_cqp'): ('derived', 'false: CQP ops run to completion '
                             'within an entry', None),
    ('E810Rdma', 'ccqe_timer'): ('host', 'started again by ccqe_load',
                                 'ccqe_load'),
    ('E810Core', 'faults'): ('host', 'armed by a test on each side (fault.h)',
                             None),
    ('E810Rdma', 'mcg_count'): ('derived', 'recounted as groups load',
                                'mcg_each'),
    ('E810Rdma', 'mr_dirty'): ('derived', 'chunks a reset zeroes, marked '
                               'as entries load', 'e810_rdma_tables_load'),
    ('E810Rdma', 'cq_dirty'): ('derived', 'chunks a reset zeroes, marked '
                               'as entries load', 'e810_rdma_eq_load'),
    ('E810Rdma', 'ah_dirty'): ('derived', 'chunks a reset zeroes, marked '
                               'as entries load', 'e810_rdma_tables_load'),
    ('E810Rdma', 'mcg_dirty'): ('derived', 'chunks a reset zeroes, marked '
                                'as entries load', 'e810_rdma_mcg_load'),
    ('E810RdmaHmcObj', 'max_cnt'): ('derived', "hmc_limits', by the reset",
                                    'e810_rdma_hmc_reset'),
    ('E810RdmaHmcObj', 'size_log2'): ('derived', "hmc_limits', by the reset",
                                      'e810_rdma_hmc_reset'),
    ('E810RdmaHmcObj', 'base'): ('derived', 'hmc_layout of the counts',
                                 'e810_rdma_hmc_load'),

    ('E810Puda', 'txbuf'): ('scratch', 'one frame being built', None),
    ('E810Puda', 'lpb_timer'): ('host', 'made at init; re-armed on load if '
                                'frames wait', 'e810_rdma_port_init'),

    ('E810Eng', 'timer'): ('host', 'made lazily, armed on load',
                           'e810_eng_timer_want'),
    ('E810Eng', 'armed'): ('derived', 'the earliest QP deadline',
                           'e810_eng_timer_want'),
    ('E810Eng', 'qp_end'): ('derived', 'above the QPs, as they load',
                            'eng_qp_load'),
    ('E810Eng', 'tx_next'): ('derived', '0 (fairness only)',
                             'e810_eng_load'),
    ('E810Eng', 'tx_any'): ('derived', "OR of the QPs' tx_pending",
                            'e810_eng_load'),
    ('E810Eng', 'conns'): ('phase-A', 'IwConns held: the save is refused '
                           'unless 0', 'e810_eng_unmigratable'),
    ('E810Eng', 'why'): ('scratch', "e810_eng_unmigratable's message",
                         None),
    ('E810EngQp', 'c'): ('host', 'this core', 'eng_qp_load'),
    ('E810EngQp', 'ops'): ('derived', "the CQP protocol's transport",
                           'eng_qp_load'),
    ('E810EngQp', 'in_run'): ('derived', 'false: a run is within one '
                              'entry', None),

    ('IwarpQp', 'conn'): ('phase-A', 'IwConn not carried: only whether there '
                         'is one, and a stream with one is refused',
                         'iw_save'),

    ('E810Roce', 'tx'): ('scratch', 'the frame being built', None),
}
EXEMPT.update({('E810TxQueueCtx', m): ('derived', 'unpacked from raw, as '
                                       'Add Tx LAN Queues does',
                                       'txq_unpack')
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


def part_members(body):
    """The members a flat part's path names (E810_SNAP_FLAT(name, fw.phy,
    ...): fw and phy)."""
    out = set()
    for m in re.finditer(r'\bE810_SNAP_FLAT\s*\(', body):
        args = split_top(body[m.end():match(body, m.end() - 1)], ',')
        if len(args) > 1:
            out.update(re.findall(r'\w+', args[1]))
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
    """Tables a save writes: passed to put_fields/put_sparse(_map) on the save
    path, and the tables those nest (SF_SUB, SF_SUBA)."""
    out = set()
    # The parts' tables (E810SnapPart: E810_SNAP_FLAT or .fields), which
    # e810_snap_put_part writes.
    for v in reach:
        for body in src.vars.get(v, ()):
            for m in re.finditer(r'\bE810_SNAP_FLAT\s*\(', body):
                args = split_top(body[m.end():match(body, m.end() - 1)], ',')
                if len(args) > 2 and args[2].strip() in src.tables:
                    out.add(args[2].strip())
            for m in re.finditer(r'\.(?:\w+_)?fields\s*=\s*(\w+)', body):
                if m.group(1) in src.tables:
                    out.add(m.group(1))
    for f in reach:
        for body in src.funcs.get(f, ()):
            for m in re.finditer(r'\be810_snap_put_(fields|sparse|sparse_map)\s*\(',
                                 body):
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
                if not any(m in part_members(b) for b in src.vars[f]):
                    notes.append('CODE %s.%s: part %s is not of %s'
                                 % (s, m, f, m))
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
        if fn and fn not in src.funcs:
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
