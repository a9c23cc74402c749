#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a stuck peer never freezes the guest.  rdma-mover
# (iwarp-mover.sh) moves TOTAL bytes (default 64 MiB) of mixed
# SEND/WRITE/READ from guest 1 to guest 0; once guest 1 has sent STALL
# (default 8) MiB, it stops guest 0 for STALL_LEN (default 1) s (its QEMU
# stops reading the link) and resumes it itself: guest 1 keeps running
# (ticks), its device stops sending while the backend is full and resumes
# once it drains, and every byte arrives verified.  The stall stays well
# inside what the QP context lets TCP wait for a silent peer: 8
# retransmissions from RTOMIN 5 ms, doubling, end the connection about
# 2.5 s after the last ACK when our own backend is not backed up (then
# the time does not count) -- e.g. while the client waits for READ
# responses with a little data in flight.
export TEST_NAME=${TEST_NAME:-iwarp-stall}
export TOTAL=${TOTAL:-64M}
export STALL=${STALL:-8}
export STALL_LEN=${STALL_LEN:-1}
exec bash "$(dirname "$0")/iwarp-mover.sh"
