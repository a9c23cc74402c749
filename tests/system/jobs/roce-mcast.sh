#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-mcast.sh: irdma in RoCEv2 mode; rdma_cm multicast with mckey.  For
# each size in SIZES a receiver in each guest joins GROUP and waits for
# COUNT datagrams; once both have joined, guest 1 also runs the sender
# (a full member as well), so guest 0's receiver gets them from the wire
# and guest 1's through the device's loopback.  Then the RDMA resources
# must be back where they were, and an IPv6 group is tried (rdma_cm has
# no RoCEv2 IPv6 multicast: the join must fail before the device).
. /job/files/lib.sh
MODE=roce sh /job/files/bringup || exit 1
IBDEV=$(ls /sys/class/infiniband | head -1)
NETDEV=$(rdma_netdev)
echo "netdev: $NETDEV"
ip -6 addr add "fd00::$((GUEST_ID + 1))/64" dev "$NETDEV" nodad 2>/dev/null
# The GIDs of the new address appear a moment later.
sleep 2
base=$(rdma_res "$IBDEV")
echo "res before: $base"

rc=0
for size in $SIZES; do
	timeout 180 mckey -m "$GROUP" -b "$GUEST_IP" -C "$COUNT" -S "$size" \
		> "/tmp/recv-$size.log" 2>&1 &
	rpid=$!
	# mckey's output reaches the file when it exits (no stdbuf in the
	# image): its join shows as the group in the netdev's multicast list
	# (rdma_cm's ip_mc_inc_group), the QP's attach (CREATE or
	# MODIFY_MCAST_GRP) follows with the join event, well within the 3 s
	# the sender waits after its own join.
	t=0
	while ! ip maddr show dev "$NETDEV" | awk -v g="$GROUP" '$1 == "inet" && $2 == g { f = 1 } END { exit !f }' &&
		[ $t -lt 300 ]; do
		sleep 0.2
		t=$((t + 1))
	done
	sleep 2
	echo "size $size: groups of $NETDEV: $(ip maddr show dev "$NETDEV" | awk '$1 == "inet" { printf "%s ", $2 }')"
	vm-barrier "joined-$size" || exit 1
	if [ "$GUEST_ID" = 1 ]; then
		s=0
		timeout 120 mckey -m "$GROUP" -b "$GUEST_IP" -s -C "$COUNT" -S "$size" \
			> "/tmp/send-$size.log" 2>&1 || s=$?
		echo "size $size: sender $(grep -c '^data transfers complete' "/tmp/send-$size.log") complete exit $s"
		[ $s = 0 ] || { tail -5 "/tmp/send-$size.log"; rc=1; }
	fi
	r=0
	wait $rpid || r=$?
	echo "size $size: receiver $(grep '^mckey: joined dgid' "/tmp/recv-$size.log")"
	echo "size $size: receiver $(grep -c '^data transfers complete' "/tmp/recv-$size.log") complete exit $r"
	[ $r = 0 ] || { tail -5 "/tmp/recv-$size.log"; rc=1; }
	vm-barrier "done-$size" || exit 1
done

# IPv6: rdma_cm refuses RoCEv2 IPv6 groups (cma_iboe_join_multicast:
# -ENOTSUPP), so nothing reaches the device; say what it did.
v6=$(timeout 60 mckey -m ff0e::e810 -b "fd00::$((GUEST_ID + 1))" -C 1 2>&1)
echo "ipv6 exit $?: $(echo "$v6" | grep -iE 'fail|error|joined' | head -2 | tr '\n' ' ')"
vm-barrier ipv6 || exit 1

res_baseline "rdma_res $IBDEV" "$base"
stats "$NETDEV"
exit $rc
