/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the interface between the receive classifier
 * (rdma/port.c) and the offloaded iWARP data path.
 *
 * The classifier owns the decision "which consumer gets this TCP segment":
 * LAN, the ILQ (software connection manager), or an offloaded QP.  It
 * learns that a QP owns a connection from MODIFY_QP with TOECTXVALID (the
 * quad is read from the QP host context: local IP @184/192, SRCPORTNUM,
 * remote IP @32/40, DESTPORTNUM); the QP keeps it while it is in RTS,
 * CLOSING or TERMINATE, and in ERROR as long as the data path still has
 * the connection open (e810_iwarp_rx declines segments once it is not),
 * and loses it on DESTROY_QP.
 */
#ifndef E810_IWARP_HOOKS_H
#define E810_IWARP_HOOKS_H

#include "../types.h"
#include "../net/net.h"

/*
 * Implemented by the data path: a frame (parsed once at the device's
 * entry, untagged) whose TCP 4-tuple belongs to offloaded QP @qp_id.
 * The IPv4/IPv6 and TCP headers have been validated (lengths, no IPv4
 * options, checksums).  Return true if the frame was consumed (placed or
 * dropped by the engine); false sends it on to the ILQ steering path, as
 * if the QP did not own the quad.  Implemented in qpdp.c.
 */
bool e810_iwarp_rx(E810Core *c, uint32_t qp_id, const E810Frame *fr);

/*
 * Implemented by port.c, for the data path's use.
 *
 * e810_rx_loopback: a frame the engine transmits to its own port MAC (or
 * with a loopback AH).  It is queued and fed to e810_receive() from a
 * zero-delay timer, never synchronously, so a transmit inside a doorbell
 * or a receive never recurses into itself.  Copies the frame.
 */
void e810_rx_loopback(E810Core *c, const uint8_t *frame, size_t len);

/*
 * Transmit an engine-generated frame: loops it back when its destination
 * MAC is the port's own (or @loopback), else puts it on the wire when the
 * link is up.  False if it was dropped (counted).
 */
bool e810_rdma_xmit(E810Core *c, const uint8_t *frame, size_t len,
                    bool loopback);

/*
 * A datagram to a multicast group: on the wire (when the link is up) and,
 * with @loopback (the AH's DOLOOPBACK), to this port's own members as
 * well, through the loopback queue.  The statistics count it once.
 * False if the wire copy was dropped (counted).
 */
bool e810_rdma_xmit_group(E810Core *c, const uint8_t *frame, size_t len,
                          bool loopback);

#endif
