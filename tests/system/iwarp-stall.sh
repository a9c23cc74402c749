#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a stuck peer never freezes the guest.  rdma-mover
# (iwarp-mover.sh) moves TOTAL bytes (default 64 MiB) of mixed
# SEND/WRITE/READ from guest 1 to guest 0; once guest 1 has sent STALL
# (default 8) MiB, it stops guest 0 for STALL_LEN (default 4) s (its QEMU
# stops reading the
# link) and resumes it itself: guest 1 keeps running (ticks), its device
# stops sending while the backend is full and resumes once it drains, and
# every byte arrives verified.
export TEST_NAME=${TEST_NAME:-iwarp-stall}
export TOTAL=${TOTAL:-64M}
export STALL=${STALL:-8}
export STALL_LEN=${STALL_LEN:-4}
exec bash "$(dirname "$0")/iwarp-mover.sh"
