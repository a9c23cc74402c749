#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp-mover.sh: rdma-mover moves TOTAL bytes (CHUNK, DEPTH, SEED) from
# the client (guest 1, or both with BIDI=1) to the server; MTU sets the
# netdev's, FLAP takes the client's link down FLAP_LEN s after FLAP s;
# STALL=MIB: once the client's port has sent MIB MiB, it stops guest 0
# (HMP stop: its QEMU no longer reads the link) for STALL_LEN s, printing
# a tick every 0.25 s meanwhile, and resumes it.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
dev=$(rdma_active)
if [ -n "$MTU" ]; then
	nd=$(rdma_netdev)
	ip link set dev $nd mtu $MTU && echo "mtu $MTU on $nd"
fi
before=$(rdma_res $dev)
echo "res before: $before"
args="-p 18515 -t $TOTAL -k $CHUNK -D $DEPTH"
srv=0; cli=0
{ [ $GUEST_ID = 0 ] || [ "$BIDI" = 1 ]; } && srv=1
{ [ $GUEST_ID = 1 ] || [ "$BIDI" = 1 ]; } && cli=1
t0=$(uptime_s)
if [ $srv = 1 ]; then
	/job/files/rdma-mover -s -a $GUEST_IP -S $((SEED + GUEST_ID)) $args > /tmp/server.log 2>&1 &
	spid=$!
	listen_wait server || { cat /tmp/server.log; exit 1; }
fi
vm-barrier listen
rc=0
if [ $cli = 1 ]; then
	if [ -n "$FLAP" ]; then
		( sleep $FLAP; vm-monitor "set_link n0 off"; echo "link off"; sleep $FLAP_LEN
		  vm-monitor "set_link n0 on"; echo "link on" ) &
	fi
	if [ -n "$STALL" ]; then
		# By bytes sent, not by time: mid-transfer at any speed.
		( nd=$(rdma_netdev)
		  txb() { ethtool -S $nd | awk '$1 == "tx_bytes.nic:" { print $2 }'; }
		  goal=$(( $(txb) + STALL * 1048576 ))
		  while [ "$(txb)" -lt $goal ]; do sleep 0.1; done
		  vm-monitor -g 0 stop >/dev/null; echo "peer stopped at $(uptime_s)"
		  i=0
		  while [ $i -lt $((STALL_LEN * 4)) ]; do
			echo "stall tick $i $(uptime_s)"; sleep 0.25; i=$((i + 1))
		  done
		  vm-monitor -g 0 cont >/dev/null; echo "peer continued at $(uptime_s)" ) &
		stall_pid=$!
	fi
	/job/files/rdma-mover -c $PEER_IP -S $((SEED + 1 - GUEST_ID)) $args > /tmp/client.log 2>&1
	r=$?
	cat /tmp/client.log
	echo "rdma-mover exit $r after $(since $t0) s"
	[ $r = 0 ] || rc=1
	# The peer is resumed before this guest waits at a barrier for it,
	# even when the transfer ended early.
	[ -z "${stall_pid:-}" ] || wait $stall_pid
fi
if [ $srv = 1 ]; then
	r=0; wait $spid || r=$?
	cat /tmp/server.log
	echo "rdma-mover exit $r after $(since $t0) s"
	[ $r = 0 ] || rc=1
fi
vm-barrier done
res_baseline "rdma_res $dev" "$before" 50
stats "$(rdma_netdev)"
exit $rc
