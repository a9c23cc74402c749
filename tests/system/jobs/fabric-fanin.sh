#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fabric-fanin.sh: NGUESTS guests on one switch.  Every guest reaches every
# other (ping over the switch), then guest 0 serves rdma_cm: one persistent
# rping server (-P, a thread per connection) and every other guest a client
# at the same moment, COUNT verified iterations of SIZE bytes each.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
rc=0
for p in $PEERS; do
	if ping -c 1 -W 5 "$p" > /dev/null 2>&1; then
		echo "ping $p ok"
	else
		echo "ping $p failed"
		rc=1
	fi
done
vm-barrier pinged || exit 1
SERVER=${PEERS%% *}
if [ "$GUEST_ID" = 0 ]; then
	SERVER=$GUEST_IP
	timeout 600 rping -s -P -a "$SERVER" -C "$COUNT" -v -V -S "$SIZE" > /tmp/server.log 2>&1 &
	pid=$!
	listen_wait fanin || rc=1
	vm-barrier listen || exit 1
	vm-barrier clients-done || rc=1
	# A persistent server never ends by itself: its count is per
	# connection; it is stopped once every client is done.
	kill "$pid" 2> /dev/null
	wait "$pid"
	n=$(grep -c 'server ping data: rdma-ping-' /tmp/server.log)
	echo "server data lines $n"
	grep -avE '^server ping data: rdma-ping-' /tmp/server.log | head -5
else
	vm-barrier listen || exit 1
	rping_client "$SERVER"
	echo "client data lines $n exit $r"
	[ "$r" = 0 ] || { rping_errors /tmp/client.log; rc=1; }
	vm-barrier clients-done || rc=1
fi
echo "--- rdma res after"
rdma resource show
stats "$(rdma_netdev)"
exit $rc
