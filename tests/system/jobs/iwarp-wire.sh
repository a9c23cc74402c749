#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp-wire.sh: a short rping (COUNT), one ib_write_bw and one ib_read_bw,
# guest 0 serving, for the capture (perftest with -F: see
# iwarp-perftest.sh).
. /job/files/lib.sh
up
rc=0
for name in rping write_bw read_bw; do
	case $name in
	rping) srv="rping -s -a $GUEST_IP -C $COUNT -v -V -S 4096"
	       cli="rping -c -a $PEER_IP -C $COUNT -v -V -S 4096" ;;
	write_bw) srv="ib_write_bw -F -R -n 20 -s 65536 -d $IBDEV"; cli="$srv $PEER_IP" ;;
	read_bw) srv="ib_read_bw -F -R -n 20 -s 65536 -d $IBDEV"; cli="$srv $PEER_IP" ;;
	esac
	pair $name 0 120 "$srv" "$cli"
	echo "run $name: exit $r"
	[ $r = 0 ] || { tail -10 /tmp/$name.log; rc=1; }
	vm-barrier "done-$name"
done
exit $rc
