#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# snapshot-loadvm.sh: guest 1 drives guest 0's QEMU monitor (savevm,
# loadvm) and talks to guest 0 over the link; guest 0 serves rping on
# request.  Guest 0 waits for requests with nc, which holds no state the
# launcher keeps: rewound by loadvm to its wait, it simply waits again.
# MODE iwarp or roce; COUNT rping iterations of 4 KiB.
. /job/files/lib.sh
up
vm-barrier up
PORT=7000

if [ "$GUEST_ID" = 0 ]; then
	while :; do
		req=$(nc -l -p $PORT 2>/dev/null)
		case "$req" in
		rping*)
			n=${req#rping }
			timeout 300 rping -s -a "$GUEST_IP" -C "$n" -v -V -S 4096 > /tmp/r.log 2>&1
			echo "served rping $n: exit $? data lines $(grep -c 'server ping data' /tmp/r.log)"
			rdma link show | sed 's/^/link: /'
			;;
		done) break ;;
		esac
	done
	echo "--- rdma res after"
	rdma resource show
	exit 0
fi

# ask REQUEST: hand guest 0 a request, retried until its nc takes the
# connection (between two requests it is briefly not listening).
ask() {
	i=0
	until echo "$1" | nc -w 5 "$PEER_IP" $PORT 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 240 ] || { echo "guest 0 not listening"; exit 1; }
		sleep 0.5
	done
}

# client TAG COUNT: an rping client against guest 0; prints its result.
client() {
	ask "rping $2"
	i=0
	until rping -c -a "$PEER_IP" -C "$2" -v -V -S 4096 > /tmp/$1.log 2>&1; do
		# guest 0 may still be starting its server
		i=$((i + 1))
		if [ $i -ge 20 ] || ! grep -q 'cma event RDMA_CM_EVENT_REJECTED\|RDMA_CM_EVENT_UNREACHABLE\|connect error' /tmp/$1.log; then
			echo "$1: rping failed"; rping_errors /tmp/$1.log; return 1
		fi
		sleep 0.5
	done
	echo "$1: rping ok, data lines $(grep -c '^ping data' /tmp/$1.log)"
}

monitor() {
	out=$(vm-monitor -g 0 "$@" 2>&1)
	echo "monitor $*: rc $? ${out:-(no output)}" | tr '\n' ' '
	echo
}

# Guest 0 idle in its wait: save it.
ask ""
monitor savevm s1
client before "$COUNT" || exit 1

# A snapshot while a connection is open: iWARP refuses it (the device
# does not carry offloaded TCP connections), RoCEv2 carries the QP.
client during 2000 > /tmp/during.out 2>&1 &
pid=$!
# once the connection is up (the first data line), snapshot
i=0
until grep -q '^ping data' /tmp/during.log 2>/dev/null || [ $i -ge 600 ]; do
	sleep 0.1; i=$((i + 1))
done
monitor savevm s2
wait $pid
cat /tmp/during.out
echo "during: data lines $(grep -c '^ping data' /tmp/during.log)"

# Back to s1: guest 0 is idle again, its QPs gone; a new connection works.
# (Once guest 0 is done serving: it listens again.)
ask ""
monitor loadvm s1
client after "$COUNT" || exit 1
monitor info snapshots
ask done
exit 0
