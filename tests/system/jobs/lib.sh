# SPDX-License-Identifier: GPL-2.0-or-later
# Guest-side helpers of the system tests' jobs (tests/system/jobs/*.sh):
# the host's vm_job puts this file at /job/files/lib.sh; a job sources it.
# /bin/sh is dash.  Parameters reach a job as environment variables
# (vm_job ... --env NAME=VALUE), never through the host's shell.

# up: bring irdma up in iWARP mode, or RoCEv2 mode with MODE=roce
# (guest-driver/bringup); its log in /tmp/bringup.log, printed and the job
# ended if it fails.  IBDEV: the device.
up() {
	sh /job/files/bringup "$@" > /tmp/bringup.log 2>&1 || { cat /tmp/bringup.log; exit 1; }
	IBDEV=$(sed -n 's/^bringup: \(iWARP\|RoCEv2\) device \(irdma[0-9]*\)$/\2/p' /tmp/bringup.log)
}

# unreg_begin WHY / unreg_end: mark in the kernel log a stretch in which
# the job makes irdma unregister (rmmod, a reset, an unplug).  Only there
# does the host tolerate ib_core's race at unregistration (tests/system/
# lib.sh, ib_unreg_race); a stretch left open runs to the log's end.
unreg_begin() { echo "e810-test: irdma unregistration expected ($*)" > /dev/kmsg; }
unreg_end() { echo "e810-test: irdma unregistration over" > /dev/kmsg; }

# peer_wait [SECONDS]: wait (1 s pings, default 60 of them) until
# $PEER_IP answers again, as after a reset or an unplug.
peer_wait() {
	_t=0
	while [ $_t -lt "${1:-60}" ] && ! ping -c 1 -W 1 "$PEER_IP" > /dev/null 2>&1; do
		_t=$((_t + 1))
	done
}

# ib_ok: an RDMA device in iWARP mode (node type RNIC) has port 1 ACTIVE.
ib_ok() {
	for i in /sys/class/infiniband/*; do
		case "$(cat $i/node_type 2>/dev/null)" in
		*RNIC*) grep -q ACTIVE $i/ports/1/state && return 0 ;;
		esac
	done
	return 1
}

# listen_wait TAG [SECONDS]: wait for an rdma_cm listener on this guest
# (a server started in the background); says so and fails if none comes.
# rdma_listen() shows the ID as LISTEN before it has put the listen in
# place on the devices (cma.c: the state first, then cma_ib_listen() or
# cma_listen_on_all()); a server whose vCPU is preempted right there would
# reject a connection coming at once (IB CM: invalid service ID), so the
# peer is let go a moment later.
listen_wait() {
	rdma-listen-wait "${2:-30}" 2>/dev/null || { echo "$1: server not listening"; return 1; }
	sleep 1
}

# rdma_active [SECONDS]: wait until an RDMA port is ACTIVE; prints the
# device.
rdma_active() {
	rdma-wait '*' "${1:-30}"
}

# mode: the transport of the ACTIVE RDMA device (iWARP or RoCE; none).
mode() {
	case "$(cat /sys/class/infiniband/$(rdma_active 5)/node_type 2>/dev/null)" in
	*RNIC*) echo iWARP ;;
	*CA*) echo RoCE ;;
	*) echo none ;;
	esac
}

# dev_index: ib_core's index of the irdma device (a new one at each
# registration: after a reset or a re-plug).
dev_index() {
	rdma dev show 2>/dev/null | sed -n 's/^\([0-9]*\): irdma.*/\1/p' | head -1
}

# rdma_netdev: the netdev under the first ACTIVE RDMA link.
rdma_netdev() {
	rdma link show | awk '/state ACTIVE/ { for (i = 1; i < NF; i++) if ($i == "netdev") print $(i + 1); exit }'
}

# rdma_res [DEV]: "pd N cq N qp N cm_id N mr N" of DEV (default: all).
rdma_res() {
	rdma resource show | grep "^[0-9]*: ${1:-[^:]*}: " |
		sed -n 's/.*\(pd [0-9]* cq [0-9]* qp [0-9]* cm_id [0-9]* mr [0-9]*\).*/\1/p'
}

# rdma_res_ulp DEV: the counts a kernel ULP leaves behind, without the
# CQs of ib_core's shared CQ pool (ib_cq_pool_get(): they stay allocated
# until the device goes away) that are idle (users 0).
rdma_res_ulp() {
	rdma res show | awk -v d="$1:" '$2 == d {
		for (i = 3; i < NF; i += 2)
			if ($i ~ /^(pd|qp|cm_id|mr)$/) printf "%s %s ", $i, $(i + 1)
		}'
	echo "cq $(rdma res show cq | grep -c "dev $1 ") $(rdma res show cq | grep "dev $1 " | grep -c 'users 0 .*comm \[ib_core\]')" |
		awk '{ print "cq", $2 - $3 }'
}

# res_baseline CMD BASE [TRIES]: wait (0.2 s steps, default 100) until
# CMD prints BASE again; says "res after: ..." and, if it did, "res counts
# back to baseline".
res_baseline() {
	t=0
	while [ "$($1)" != "$2" ] && [ $t -lt "${3:-100}" ]; do sleep 0.2; t=$((t + 1)); done
	after=$($1)
	echo "res after: $after"
	[ -n "$2" ] && [ "$2" = "$after" ] && echo "res counts back to baseline"
}

# pair_run TAG SECONDS CMD: CMD bounded by SECONDS, its output in
# /tmp/TAG.log; with PAIR_ERR set its stderr apart in /tmp/TAG.err (a
# program whose stdout is a file writes it at exit, after its error
# lines: in one file those land above everything else it printed).
pair_run() {
	if [ -n "${PAIR_ERR:-}" ]; then
		timeout "$2" $3 > /tmp/$1.log 2> /tmp/$1.err
	else
		timeout "$2" $3 > /tmp/$1.log 2>&1
	fi
}

# pair TAG SERVER SECONDS SERVER-CMD CLIENT-CMD: one rdma_cm client/server
# run.  Guest SERVER starts SERVER-CMD in the background and, once it
# listens, lets the other guest run CLIENT-CMD (barrier listen-TAG); each
# bounded by SECONDS.  Output as pair_run leaves it, the exit status in $r.
pair() {
	if [ "$GUEST_ID" = "$2" ]; then
		pair_run "$1" "$3" "$4" &
		pid=$!
		listen_wait "$1"
		vm-barrier "listen-$1"
		r=0; wait $pid || r=$?
	else
		vm-barrier "listen-$1" || exit 1
		r=0; pair_run "$1" "$3" "$5" || r=$?
	fi
}

# stats: the device's statistics as the host's ethtool_stat / rdma_stat
# read them: ethtool -S of NETDEV, rdma statistic show on one line.
stats() {
	echo "rdma-stat: $(rdma statistic show | tr '\n' ' ')"
	ethtool -S "$1" | sed 's/^ */ethtool: /'
}

# uptime_s: seconds since boot (for durations: date has 1 s steps).
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# since T0: seconds from T0 (an uptime_s) to now.
since() {
	awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { print b - a }'
}

# rping_errors LOG: what an rping that failed said.  Its stdout reaches the
# log in 4 KiB blocks (a file: fully buffered, the rest at exit), its stderr
# at once: an error or event line lands where the last block ended, in the
# middle of the data lines (at 64 bytes, after line 54 of 100), and a tail
# of the log shows only data.  Every line that is not a whole data line,
# then the last one.
rping_errors() {
	grep -anvE '^(server )?ping data: rdma-ping-[0-9]+: []A-Za-z\^_`[]*$' "$1" |
		cut -c1-160 | head -20
	tail -1 "$1" | cut -c1-80
}

# rping_teardown_race LOG DATA-LINES: true if an rping that exited 255 ($r)
# after all its COUNT pings did so from its CM thread's
# rdma_get_cm_event(): rping up to rdma-core 58 (the images have 56.1)
# never stops that thread; main() destroys the event channel once the last
# event is acknowledged, and a thread not yet back in rdma_get_cm_event()
# then reads a closed fd, says "rdma_get_cm_event: Bad file descriptor" and
# exits -1 -- the process's status when that exit() comes before
# main()'s (glibc holds a later exit() until the first is done).  Fixed
# by rdma-core f3ae6534a ("rping: terminate CM event thread before
# exiting", v59.0).  Nothing else in rping prints that after the last
# ping.
rping_teardown_race() {
	[ "$r" = 255 ] && [ "$2" = "$COUNT" ] && grep -aq 'rdma_get_cm_event: ' "$1"
}

# rping_client ADDR: one rping client to ADDR, COUNT verified iterations
# of SIZE bytes (bounded: 600 s), its output in /tmp/client.log; sets n
# (its data lines) and r (its exit, 0 for rping's teardown race).
rping_client() {
	r=0
	timeout 600 rping -c -a "$1" -C "$COUNT" -v -V -S "$SIZE" > /tmp/client.log 2>&1 || r=$?
	n=$(grep -c '^ping data: rdma-ping-' /tmp/client.log)
	rping_teardown_race /tmp/client.log "$n" && r=0
}

# Two rounds (guest ROUND serves), COUNT verified rping iterations at each
# size in SIZES, with the data lines each side saw; non-zero if any failed.
rping_rounds() {
	local rc=0 round size tag side n
	for round in 0 1; do
		for size in $SIZES; do
			tag="round $round size $size"
			pair "rping-$round-$size" $round 300 \
				"rping -s -a $GUEST_IP -C $COUNT -v -V -S $size" \
				"rping -c -a $PEER_IP -C $COUNT -v -V -S $size"
			if [ $GUEST_ID = $round ]; then
				side=server
				n=$(grep -c 'server ping data: rdma-ping-' /tmp/rping-$round-$size.log)
			else
				side=client
				n=$(grep -c '^ping data: rdma-ping-' /tmp/rping-$round-$size.log)
			fi
			rping_teardown_race /tmp/rping-$round-$size.log "$n" && {
				echo "$tag: $side exit 255 after its $COUNT pings: rping's teardown race (rdma-core before 59.0), taken as exit 0"
				r=0
			}
			echo "$tag: $side data lines $n exit $r"
			[ $r = 0 ] || { rping_errors /tmp/rping-$round-$size.log; rc=1; }
			vm-barrier "done-$round-$size"
		done
	done
	return $rc
}

# fabric_done: the end of a job over the fabric, for guests on several
# hosts (vm-barrier spans one host's guests): no guest leaves while
# another may still reach it.  Each guest says it is done with an address
# of its own (10.0.0.200 + GUEST_ID); guest 0, once it answers for every
# other, says "all done" (10.0.0.250) and stays until every other has left
# (its address no longer answers); the others leave once they see it.
# Pings only (bounded: 600 s a wait), nothing a guest might lack.
fabric_done() {
	local dev j t
	dev=$(rdma_netdev)
	ip addr add "10.0.0.$((200 + GUEST_ID))/32" dev "$dev" || return 1
	if [ "$GUEST_ID" != 0 ]; then
		t=0
		until ping -c 1 -W 1 10.0.0.250 > /dev/null 2>&1; do
			t=$((t + 1)); [ $t -lt 600 ] || return 1
		done
		return 0
	fi
	for j in $(seq 1 $((NGUESTS - 1))); do
		t=0
		until ping -c 1 -W 1 "10.0.0.$((200 + j))" > /dev/null 2>&1; do
			t=$((t + 1)); [ $t -lt 600 ] || return 1
		done
	done
	ip addr add 10.0.0.250/32 dev "$dev" || return 1
	for j in $(seq 1 $((NGUESTS - 1))); do
		t=0
		while ping -c 1 -W 1 "10.0.0.$((200 + j))" > /dev/null 2>&1; do
			sleep 0.5
			t=$((t + 1)); [ $t -lt 1200 ] || return 1
		done
	done
}
