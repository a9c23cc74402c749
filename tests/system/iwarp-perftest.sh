#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: perftest over iWARP between two guests on the emulated E810,
# connections through rdma_cm (-R; iWARP has no other way).  Guest 0 runs
# the server, guest 1 the client: ib_send_bw, ib_write_bw, ib_read_bw and
# ib_write_lat sweep every power of two from 2 B to 8 MiB (-a) with ITERS
# counted iterations (counted, not timed: -D hung teardown elsewhere), then
# ib_write_bw and ib_send_bw once more with QPS queue pairs at QP_SIZES,
# ib_read_bw with QPS queue pairs and bidirectional (-b) ib_send_bw and
# ib_write_bw at 64 KiB.
# Each run must exit 0 on both sides and the client print its result table; the
# tables are echoed ("table: ...") for the record, with anything perftest
# said on stderr ("stderr: ...").  Resource counts return to zero, the
# kernel logs stay clean.  perftest runs with -F: under host load its
# clock calibration may fail, and without -F the side whose report it was
# exited 1 at once (its error above its whole stdout in the log), tearing
# the connections down under its peer: a flushed WQE and "Bad wc status 5"
# there (jobs/iwarp-perftest.sh).
set -u
. "$(dirname "$0")/lib.sh"

ITERS=${ITERS:-5}
QPS=${QPS:-4}
QP_SIZES=${QP_SIZES:-64 1048576}

# One line per run: NAME|ARGS (same on both sides).
RUNS="send_bw|ib_send_bw -a -n $ITERS
write_bw|ib_write_bw -a -n $ITERS
read_bw|ib_read_bw -a -n $ITERS
write_lat|ib_write_lat -a -n $ITERS"
for s in $QP_SIZES; do
	RUNS="$RUNS
write_bw_q$QPS-$s|ib_write_bw -q $QPS -s $s -n $ITERS
send_bw_q$QPS-$s|ib_send_bw -q $QPS -s $s -n $ITERS"
done
RUNS="$RUNS
read_bw_q$QPS-65536|ib_read_bw -q $QPS -s 65536 -n $ITERS
send_bw_bidir-65536|ib_send_bw -b -s 65536 -n $ITERS
write_bw_bidir-65536|ib_write_bw -b -s 65536 -n $ITERS"
printf '%s\n' "$RUNS" > "$OUT/runs.txt"

perftest_pair_job iwarp-perftest iwarp
while IFS='|' read -r name cmd; do
	case $cmd in
	*-a*) n=23 ;;	# 2 B .. 8 MiB
	*) n=1 ;;
	esac
	assert_output 1 "^run $name: exit 0 rows $n "
	# The passive side of ib_write_bw/ib_read_bw prints no table of its own.
	case $name in
	write_bw|read_bw|read_bw_q*|*bidir*) assert_output 0 "^run $name: exit 0 rows " ;;
	*) assert_output 0 "^run $name: exit 0 rows $n " ;;
	esac
done < "$OUT/runs.txt"
for g in 0 1; do
	assert_rdma_guest $g
done
perftest_record
pass_fail
