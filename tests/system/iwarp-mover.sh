#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: bulk verified data over iWARP between two guests on the
# emulated E810.  Both guests bring irdma up in iWARP mode; guest 0 runs
# guest-driver/rdma-mover as the server, guest 1 connects with rdma_cm
# (MPA over our link, buffer address/rkey/length in the private data) and
# moves TOTAL bytes (default 256 MiB) mixing SEND/RECV, RDMA WRITE + SEND
# notification and RDMA READ, chunks of 1 B .. CHUNK at unaligned offsets,
# DEPTH WRs outstanding, signaled and unsignaled; the server verifies every
# byte sent or written to it, the client every byte it reads back.  Both
# must exit 0 with a summary of TOTAL bytes and 0 mismatches; the rdma
# resource counts must be back to their baseline and the kernel logs clean.
# Environment: TOTAL, CHUNK, SEED, DEPTH; MTU (of both guests' netdev);
# FLAP=SECS: the client guest takes its link down for FLAP_LEN (default 1)
# s, SECS seconds
# into the transfer (TCP retransmission in the engine); BIDI=1: each guest
# runs a server and a client, two connections moving data both ways at once.
# LINK=SPEC: the link between the guests goes through scripts/link-relay
# with these impairments (e.g. "loss=1%,reorder=1%,seed=7"); the relay must
# then have done at least one of each impairment it was asked for, and with
# loss the engines' statistics must show retransmitted segments.
# STALL=MIB: once its port has sent MIB MiB, the client guest stops the
# server guest (HMP stop) for STALL_LEN (default 4) s: the server's QEMU stops
# reading the link, the client's backend fills up; the client must stay
# responsive (it prints ticks and resumes the peer itself), its device
# must have stopped sending (trace e810_tx_blocked) and resumed, and the
# transfer completes verified.  Guest 1 is the stream client: QEMU's
# server side (guest 0) blocks in the socket write itself, outside the
# device, so the stuck peer is guest 0.
# RDMA_MODE=roce: the same over RoCEv2 (irdma's default mode, bringup with
# MODE=roce; roce-lossy.sh); with loss the RoCE engine must have gone back
# (trace e810_roce_retry).
set -u
. "$(dirname "$0")/lib.sh"

TOTAL=${TOTAL:-256M}
CHUNK=${CHUNK:-1M}
SEED=${SEED:-1}
DEPTH=${DEPTH:-8}
MTU=${MTU:-}
FLAP=${FLAP:-}
FLAP_LEN=${FLAP_LEN:-1}
BIDI=${BIDI:-0}
STALL=${STALL:-}
STALL_LEN=${STALL_LEN:-4}
LINK=${LINK:-}
RDMA_MODE=${RDMA_MODE:-iwarp}

"$TOP/guest-driver/build" -q || { echo "FAIL: $TEST_NAME: guest-driver/build"; exit 1; }

link_args=()
[ -n "$LINK" ] && link_args=(--link "$LINK")
params=()
for v in TOTAL CHUNK SEED DEPTH MTU FLAP FLAP_LEN BIDI STALL STALL_LEN; do params+=(--env "$v=${!v}"); done
trace_args=()
[ -n "$STALL" ] && trace_args=(--trace 'e810_tx_blocked' --trace 'e810_tx_resumed')
vm_job iwarp-mover --guests 2 --nic e810 --mem 1024 --mode "$RDMA_MODE" "${link_args[@]}" \
	"${params[@]}" --env "MODE=$RDMA_MODE" --file "$TOP/build/guest-driver/rdma-mover" \
	--trace 'e810_rdma_cqp_err' --trace 'e810_iw_tcp_stats' --trace 'e810_roce_retry' \
	"${trace_args[@]}" \
	--qemu-arg '-d guest_errors' --timeout 1200
min=$(numfmt --from=iec "$TOTAL")
for g in 0 1; do
	roles=server; [ $g = 1 ] && roles=client
	[ "$BIDI" = 1 ] && roles="server client"
	assert_status $g 0
	assert_output $g '^rdma-mover exit 0 ' $(echo $roles | wc -w)
	assert_output $g '^res counts back to baseline'
	for role in $roles; do
		sum=$(grep "^rdma-mover: $role summary:" "$OUT/run/g$g/output.log")
		if [ -z "$sum" ]; then
			fail "g$g: no $role summary"
			continue
		fi
		echo "g$g: $sum"
		tot=$(echo "$sum" | awk '{ print $5 }')
		[ "${tot:-0}" -ge "$min" ] || fail "g$g: total $tot bytes < $min"
		echo "$sum" | grep -q ' mismatches 0 errors 0$' || fail "g$g: mismatches/errors in: $sum"
		for op in send write read; do
			n=$(echo "$sum" | sed -n "s/.* $op \([0-9]*\) .*/\1/p" | head -1)
			[ "${n:-0}" -gt 0 ] || fail "g$g: no $op bytes"
		done
	done
	grep -E '^rdma-mover: (ERROR|MISMATCH)' "$OUT/run/g$g/output.log" | head -3
	# the engine's TCP figures per connection (retransmissions, reordering)
	grep '^e810_iw_tcp_stats' "$OUT/run/g$g/trace.log" | sed "s/^/g$g: /" | head -4
	assert_clean_dmesg $g
	bad=$(grep -iE 'irdma|infiniband|iw_cm|ib_core|ib_uverbs' "$OUT/run/g$g/dmesg.log" |
		grep -iE 'fail|error|timeout|timed out|warn|unable|invalid' | head -3)
	[ -z "$bad" ] || fail "g$g irdma says: $bad"
	assert_no_trace $g '^e810_rdma_cqp_err' "CQP ops failed"
	assert_no_rdma_gerr $g
done
if [ -n "$STALL" ]; then
	log1=$OUT/run/g1/output.log
	assert_output 1 '^peer stopped at '
	assert_output 1 '^peer continued at '
	ticks=$(grep -c '^stall tick ' "$log1")
	[ "$ticks" = $((STALL_LEN * 4)) ] || fail "g1: $ticks stall ticks, not $((STALL_LEN * 4))"
	# The longest gap between ticks (0.25 s asked), for the log only.
	awk '$1 == "stall" { if (p != "" && $4 - p > m) m = $4 - p; p = $4 }
	     END { printf "g1: %d ticks while the peer was stopped, longest gap %.2f s\n", NR ? n : 0, m }' \
		n="$ticks" "$log1"
	nb=$(grep -c '^e810_tx_blocked' "$OUT/run/g1/trace.log")
	nr=$(grep -c '^e810_tx_resumed' "$OUT/run/g1/trace.log")
	echo "g1: device tx blocked $nb times, resumed $nr times"
	[ "$nb" -gt 0 ] || fail "g1: the device never found its backend full (transfer over before the stall?)"
	[ "$nr" -gt 0 ] || fail "g1: the device never resumed"
	for g in 0 1; do
		bad=$(grep -iE 'rcu.*stall|blocked for more than|lockup' "$OUT/run/g$g/dmesg.log" | head -3)
		[ -z "$bad" ] || fail "g$g: $bad"
	done
fi
if [ -n "$LINK" ]; then
	cat "$OUT/run/link.log" 2>/dev/null
	/usr/bin/python3 - "$OUT/run/link.json" "$LINK" <<'PY' || fail "link emulator did not impair the link as asked"
import json, sys
st = json.load(open(sys.argv[1]))
want = {'loss': 'lost', 'dup': 'duplicated', 'reorder': 'reordered', 'corrupt': 'corrupted'}
asked = [k for k in (i.split('=')[0] for i in sys.argv[2].split(',')) if k in want]
done = {k: st['0->1'][want[k]] + st['1->0'][want[k]] for k in asked}
print('link emulator:', ', '.join(f'{want[k]} {v}' for k, v in done.items()))
sys.exit(0 if all(done.values()) else 1)
PY
	case "$RDMA_MODE,$LINK" in
	roce,loss=*|roce,*,loss=*)
		rtx=0
		for g in 0 1; do
			n=$(grep -c '^e810_roce_retry' "$OUT/run/g$g/trace.log")
			echo "g$g: RoCE go-back-N restarts $n"
			rtx=$((rtx + n))
		done
		[ "$rtx" -gt 0 ] || fail "lossy link but the RoCE engines never retransmitted"
		;;
	iwarp,loss=*|iwarp,*,loss=*)
		rtx=0
		for g in 0 1; do
			n=$(rdma_stat $g '(tcp)?RetransSegs')
			echo "g$g: RetransSegs ${n:-?}"
			rtx=$((rtx + ${n:-0}))
		done
		[ "$rtx" -gt 0 ] || fail "lossy link but no retransmitted segments in rdma statistic"
		;;
	esac
fi
pass_fail
