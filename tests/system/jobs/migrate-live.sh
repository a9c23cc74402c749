#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# migrate-live.sh: guest 1 moves to a new QEMU (vm-migrate: the launcher's
# live migration) while an rping -V connection from it to guest 0 runs;
# then, its connection closed, once more (iWARP: the first attempt is
# refused by the device's blocker), and the moved guest serves a new
# rping -V connection with its RDMA link ACTIVE.  MODE iwarp or roce;
# DURING iterations of 4 KiB for the connection the move happens under,
# COUNT for the one after.
. /job/files/lib.sh
up
vm-barrier up

# migrate TAG: vm-migrate with its answer on one line.
migrate() {
	out=$(vm-migrate 2>&1)
	mrc=$?
	echo "migrate $1: rc $mrc $(echo "$out" | tr '\n' ' ')"
	return $mrc
}

# The connection the move happens under: guest 0 serves, guest 1's client
# migrates once its data flows.
if [ "$GUEST_ID" = 0 ]; then
	timeout 300 rping -s -a "$GUEST_IP" -C "$DURING" -v -V -S 4096 > /tmp/during.log 2>&1 &
	pid=$!
	listen_wait during
	vm-barrier listen-during
	r=0; wait $pid || r=$?
	side=server n=$(grep -c 'server ping data: rdma-ping-' /tmp/during.log)
else
	vm-barrier listen-during || exit 1
	timeout 300 rping -c -a "$PEER_IP" -C "$DURING" -v -V -S 4096 > /tmp/during.log 2>&1 &
	pid=$!
	i=0
	until grep -q '^ping data' /tmp/during.log 2>/dev/null || [ $i -ge 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	echo "during: data flowing, $(grep -c '^ping data' /tmp/during.log) lines, the move starts"
	migrate during
	if kill -0 $pid 2>/dev/null; then
		echo "during: rping still running after the move"
	else
		echo "during: rping had ended when the move was over"
	fi
	r=0; wait $pid || r=$?
	side=client n=$(grep -c '^ping data: rdma-ping-' /tmp/during.log)
fi
COUNT=$DURING rping_teardown_race /tmp/during.log "$n" && r=0
echo "during: $side data lines $n exit $r"
[ $r = 0 ] || rping_errors /tmp/during.log
vm-barrier during-done

# Idle now (its QP destroyed): the move goes through in both modes.  The
# device may take a moment to drop its blocker after the last iWARP
# connection's teardown: a few attempts, counted.
if [ "$GUEST_ID" = 1 ] && [ "$MODE" = iwarp ]; then
	i=1
	until migrate idle; do
		[ $i -lt 5 ] || exit 1
		i=$((i + 1)); sleep 1
	done
	echo "idle: moved at attempt $i"
fi
if [ "$GUEST_ID" = 1 ]; then
	rdma link show | sed 's/^/link after: /'
fi

# A new connection, the moved guest serving.
pair after 1 60 "rping -s -a $GUEST_IP -C $COUNT -v -V -S 4096" \
	"rping -c -a $PEER_IP -C $COUNT -v -V -S 4096"
if [ "$GUEST_ID" = 1 ]; then
	side=server n=$(grep -c 'server ping data: rdma-ping-' /tmp/after.log)
else
	side=client n=$(grep -c '^ping data: rdma-ping-' /tmp/after.log)
fi
rping_teardown_race /tmp/after.log "$n" && r=0
echo "after: $side data lines $n exit $r"
[ $r = 0 ] || rping_errors /tmp/after.log
vm-barrier after-done
