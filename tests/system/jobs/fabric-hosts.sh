#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fabric-hosts.sh: guests of one fabric spread over two hosts (each host's
# switch joined by scripts/vm --uplink).  vm-barrier only spans a host, so
# the guests wait for each other over the fabric: every guest pings every
# peer until it answers; guest 0 serves rping (-P, a thread per client)
# until CLIENTS clients have moved COUNT verified iterations each; the
# guests listed in CLIENTS connect to it, retrying until it listens.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
rc=0
# A peer not up yet (it may restore later) is waited for: 120 tries.
for p in $PEERS; do
	t=0
	until ping -c 1 -W 2 "$p" > /dev/null 2>&1; do
		t=$((t + 1))
		[ $t -lt 120 ] || break
	done
	if [ $t -lt 120 ]; then echo "ping $p ok"; else echo "ping $p failed"; rc=1; fi
done
n_cli=$(echo $CLIENTS | wc -w)
if [ "$GUEST_ID" = 0 ]; then
	timeout 600 rping -s -P -a "$GUEST_IP" -C "$COUNT" -v -V -S "$SIZE" > /tmp/server.log 2>&1 &
	pid=$!
	listen_wait hosts || rc=1
	want=$((n_cli * COUNT))
	t=0
	while [ "$(grep -c 'server ping data: rdma-ping-' /tmp/server.log)" -lt $want ] && [ $t -lt 1200 ]; do
		sleep 0.5
		t=$((t + 1))
	done
	# The last client's teardown, then the persistent server goes.
	sleep 2
	kill "$pid" 2> /dev/null
	wait "$pid"
	echo "server data lines $(grep -c 'server ping data: rdma-ping-' /tmp/server.log)"
elif echo " $CLIENTS " | grep -q " $GUEST_ID "; then
	server=${PEERS%% *}
	try=0
	while :; do
		rping_client "$server"
		# Not listening yet: rdma_cm's connect is refused (rejected);
		# anything else is the answer.
		[ "$n" = 0 ] && [ $try -lt 30 ] && grep -aq 'REJECTED\|refused\|unreachable' /tmp/client.log || break
		try=$((try + 1))
		sleep 2
	done
	echo "client data lines $n exit $r (tries $((try + 1)))"
	[ "$r" = 0 ] || { rping_errors /tmp/client.log; rc=1; }
fi
# No guest leaves before every guest is done: one that ended would be
# missing from the others' pings.
fabric_done || { echo "fabric_done failed"; rc=1; }
stats "$(rdma_netdev)"
exit $rc
