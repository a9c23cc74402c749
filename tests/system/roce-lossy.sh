#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: RoCEv2 over a lossy link.  rdma-mover (iwarp-mover.sh with
# RDMA_MODE=roce) moves TOTAL bytes (default 16 MiB) of mixed SEND/WRITE/
# READ between the two e810 guests in RoCEv2 mode through the link
# emulator (scripts/link-relay) dropping 1% of the frames and reordering,
# duplicating and corrupting some (a corrupted frame fails its ICRC and is
# dropped: the engine's go-back-N retransmission recovers); every byte is
# verified on both sides, and the relay must have done each impairment.
export TEST_NAME=${TEST_NAME:-roce-lossy}
export RDMA_MODE=roce
export TOTAL=${TOTAL:-16M}
export LINK=${LINK:-loss=1%,reorder=1%,dup=0.5%,corrupt=0.1%,seed=7}
exec bash "$(dirname "$0")/iwarp-mover.sh"
