/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive the admin queue the way the ice driver does, for unit tests:
 * rings of 192 descriptors with a 4 KiB buffer per slot in fake guest memory.
 */
#ifndef E810_AQ_UTIL_H
#define E810_AQ_UTIL_H

#include "fake-host.h"
#include "bytes.h"

#define AQ_LEN          192
#define ATQ_RING        (FAKE_MEM_BASE + 0x0000)
#define ARQ_RING        (FAKE_MEM_BASE + 0x2000)
#define ATQ_BUFS        (FAKE_MEM_BASE + 0x100000)           /* 192 x 4 KiB */
#define ARQ_BUFS        (FAKE_MEM_BASE + 0x400000)

typedef struct AqTest {
    FakeHost h;
    E810Core c;
    unsigned atq_ntu;           /* next ATQ slot to use */
    unsigned arq_ntc;           /* next ARQ slot to clean */
} AqTest;

/* A command as the test builds it and reads the answer back. */
typedef struct AqMsg {
    uint8_t desc[32];
    uint8_t buf[4096];
} AqMsg;

/* The MAC aq_test_init() gives the device, and a peer's on its link. */
extern const uint8_t aq_test_mac[6], aq_peer_mac[6];

void aq_test_init(AqTest *t);
/* (Re)start both rings as ice does at init and after a reset. */
void aq_test_rings(AqTest *t);
void aq_test_cleanup(AqTest *t);
/* New direct (no buffer) or indirect command with @opcode. */
void aq_msg_init(AqMsg *m, uint16_t opcode, uint16_t buf_len, bool rd);
/* Send and wait; returns the descriptor's retval, copies the result back. */
int aq_send(AqTest *t, AqMsg *m);
uint16_t aq_datalen(const AqMsg *m);
uint16_t aq_flags(const AqMsg *m);
/* Add VSI (0x0210) for the PF as ice_vsi_init does: LAN, queues
 * [first, first + nq), PF RSS LUT, and the PE (RDMA) filter if @pe; the
 * VSI number in *num.  Returns the descriptor's retval. */
int aq_add_pf_vsi(AqTest *t, uint16_t first, uint16_t nq, bool pe,
                  uint16_t *num);
/* Add Switch Rules (0x02A0): one MAC (destination @da) rule to @vsi. */
int aq_add_mac_rule(AqTest *t, uint16_t vsi, const uint8_t *da);
/* The scheduler as ice builds it: Get Default Topology (0x0400) gives the
 * root, TC and entry-point TEIDs; Add Elements (0x0401) one generic node
 * under @parent; Add Tx LAN Queues (0x0C30) queue @q (@qlen descriptors
 * at @ring, of @vsi) as a leaf under @parent.  TEIDs in *teid; each
 * returns the descriptor's retval. */
int aq_dflt_topo(AqTest *t, uint32_t teid[3]);
int aq_add_node(AqTest *t, uint32_t parent, uint32_t *teid);
int aq_add_txq(AqTest *t, uint32_t parent, uint16_t q, uint64_t ring,
               uint16_t qlen, uint16_t vsi, uint32_t *teid);
/* The messages of some scheduler commands, for the caller to add to and
 * send: Add Tx LAN Queues as aq_add_txq() sends it (the leaf's TEID then
 * at buf + 12); Disable Tx LAN Queues (0x0C31) of queue @q under @parent,
 * flushing the pipe; Add Tx RDMA Qsets (0x0C33) of qset @handle under
 * @parent (its TEID then at buf + 12). */
void aq_txq_msg(AqMsg *m, uint32_t parent, uint16_t q, uint64_t ring,
                uint16_t qlen, uint16_t vsi);
void aq_dis_txq_msg(AqMsg *m, uint32_t parent, uint16_t q);
void aq_add_qset_msg(AqMsg *m, uint32_t parent, uint16_t handle);
/* Take the next event from the ARQ; false if none.  Re-posts the slot. */
bool aq_event(AqTest *t, AqMsg *m);

/* Pack @width bits of @v at bit @lsb of @b, in the little-endian bit
 * order of ice's context packing (ice_pack_txq_ctx, ice_write_rxq_ctx). */
static inline void put_bits(uint8_t *b, unsigned lsb, unsigned width,
                            uint64_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = lsb + i;

        if ((v >> i) & 1) {
            b[bit / 8] |= 1u << (bit % 8);
        } else {
            b[bit / 8] &= ~(1u << (bit % 8));
        }
    }
}

static inline uint32_t aq_rd(AqTest *t, uint32_t off)
{
    return e810_mmio_read(&t->c, off, 4);
}

static inline void aq_wr(AqTest *t, uint32_t off, uint32_t v)
{
    e810_mmio_write(&t->c, off, v, 4);
}

#endif
