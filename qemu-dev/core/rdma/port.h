/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: its port, as the transports and the PUDA see it (how
 * frames leave: rdma/port.c).  Frames come in the other way, through the
 * engine (E810EngOps.rx) and the PUDA's ILQ: the port's receive
 * classifier decides which consumer gets a segment (LAN, the ILQ, an
 * offloaded QP); it learns that a QP owns a connection from MODIFY_QP
 * with TOECTXVALID (the quad read from the QP host context) and keeps it
 * while the QP is in RTS, CLOSING or TERMINATE, and in ERROR as long as
 * the iWARP transport still has the connection open (it declines
 * segments once it is not), and loses it on DESTROY_QP.
 */
#ifndef E810_RDMA_PORT_H
#define E810_RDMA_PORT_H

#include "../types.h"
#include "../net/net.h"

/*
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
