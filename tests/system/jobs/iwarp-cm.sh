#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp-cm.sh: ucmatose with 1 and CONNS connections (MSGS messages), then
# CYCLES rping connect/disconnect cycles; resources back to the start
# (MODE=roce: bringup leaves the function in RoCEv2 mode).
. /job/files/lib.sh
up
echo "rdma device: $IBDEV ($(ibv_devinfo -d $IBDEV | sed -n 's/.*transport:[[:space:]]*//p'))"
base=$(rdma_res)
echo "resources at start: $base"
rc=0
for c in 1 $CONNS; do
	pair "uc-$c" 0 120 "ucmatose -c $c -C $MSGS" "ucmatose -s $PEER_IP -c $c -C $MSGS"
	echo "ucmatose -c $c: exit $r, $(grep -c 'test complete' /tmp/uc-$c.log) complete"
	grep -q 'test complete' /tmp/uc-$c.log && [ $r = 0 ] || { tail -20 /tmp/uc-$c.log; rc=1; }
	vm-barrier "uc-done-$c"
done

t0=$(date +%s)
if [ $GUEST_ID = 0 ]; then
	# Only stderr: a buffered stdout flushed mid-line would hide lines.
	rping -s -P -a $GUEST_IP -C 1 > /dev/null 2> /tmp/rping.log &
	pid=$!
	listen_wait "rping"
	vm-barrier cycles
	vm-barrier cycles-done
	# The last disconnects reach the server's threads a little later.
	i=0
	until [ $(grep -c '^server DISCONNECT EVENT' /tmp/rping.log) -ge $CYCLES ] || [ $i -ge 100 ]; do
		i=$((i + 1)); sleep 0.2
	done
	n=$(grep -c '^server DISCONNECT EVENT' /tmp/rping.log)
	[ $n -ge $CYCLES ] || { echo "rping server: $n disconnects; before the kill:"; rdma resource show cm_id; rdma resource show qp; }
	kill $pid; wait $pid 2>/dev/null
	# One disconnect line per connection; the clients verify the data (-V).
	echo "rping server: $(grep -c '^server DISCONNECT EVENT' /tmp/rping.log) connections served"
	grep -vE '^(server DISCONNECT EVENT|wait for RDMA_READ_ADV state 10)' /tmp/rping.log | head -5
else
	vm-barrier cycles
	ok=0
	i=0
	while [ $i -lt $CYCLES ]; do
		i=$((i + 1))
		if timeout 30 rping -c -a $PEER_IP -C 1 -V -S 64 > /tmp/rping.log 2>&1; then
			ok=$((ok + 1))
		else
			echo "cycle $i failed:"; tail -5 /tmp/rping.log
		fi
	done
	vm-barrier cycles-done
fi
[ $GUEST_ID = 1 ] && echo "cycles: $ok of $CYCLES ok ($(( $(date +%s) - t0 )) s)"
[ $GUEST_ID = 1 ] && [ $ok != $CYCLES ] && rc=1
# Let the last disconnects and the deferred frees settle.
res_baseline rdma_res "$base" 50
end=$(rdma_res)
echo "resources at end: $end"
[ "$end" = "$base" ] || { echo "resources not back to baseline"; rdma resource show; rc=1; }
vm-barrier end
exit $rc
