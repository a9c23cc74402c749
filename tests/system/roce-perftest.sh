#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: perftest over RoCEv2 between two guests on the emulated
# E810 in RoCEv2 mode (irdma's default).  Connections through rdma_cm (-R:
# CM MADs on the device's GSI QP) for ib_send_bw, ib_write_bw, ib_read_bw
# (64 KiB, ITERS iterations, and with QPS queue pairs), ib_write_lat and
# ib_read_lat (64 B), and ib_write_bw once without rdma_cm (perftest's own
# TCP exchange of QPN, PSN and GID; -x picks the RoCEv2 GID of the
# address).  Each run must exit 0 on both sides and the client print its
# table (echoed as "table: ...", stderr as "stderr: ..."); resources return
# to the GSI QP only, the kernel logs stay clean.  perftest runs with -F
# (see iwarp-perftest.sh).
set -u
. "$(dirname "$0")/lib.sh"

ITERS=${ITERS:-200}
QPS=${QPS:-4}

RUNS="send_bw|ib_send_bw -R -s 65536 -n $ITERS
write_bw|ib_write_bw -R -s 65536 -n $ITERS
read_bw|ib_read_bw -R -s 65536 -n $ITERS
write_bw_q$QPS|ib_write_bw -R -q $QPS -s 65536 -n $ITERS
send_bw_q$QPS|ib_send_bw -R -q $QPS -s 65536 -n $ITERS
write_lat|ib_write_lat -R -s 64 -n $ITERS
read_lat|ib_read_lat -R -s 64 -n $ITERS
write_bw_gid|ib_write_bw -x GIDX -s 65536 -n $ITERS"
printf '%s\n' "$RUNS" > "$OUT/runs.txt"

perftest_pair_job roce-perftest roce
while IFS='|' read -r name cmd; do
	assert_output 1 "^run $name: exit 0 rows 1 "
	case $name in
	write_bw*|read_bw*|read_lat) assert_output 0 "^run $name: exit 0 rows " ;;
	*) assert_output 0 "^run $name: exit 0 rows 1 " ;;
	esac
done < "$OUT/runs.txt"
for g in 0 1; do
	assert_rdma_guest $g abnormal
	assert_output $g '^qps after: 0$'
done
perftest_record
pass_fail
