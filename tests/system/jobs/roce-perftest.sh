#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-perftest.sh: irdma in RoCEv2 mode; the perftest runs of
# /job/files/runs.txt (NAME|COMMAND, GIDX = the RoCEv2 GID index of the
# address), guest 0 serving; only the GSI QP left afterwards.  -F and the
# stderr apart ("stderr NAME: ..."): as in iwarp-perftest.sh.
. /job/files/lib.sh
MODE=roce up
GIDX=$(sed -n 's/^bringup: GID of .*: index \([0-9]*\) .*/\1/p' /tmp/bringup.log)
echo "device $IBDEV gid index $GIDX"
rc=0
while IFS='|' read -r name cmd; do
	[ -n "$name" ] || continue
	cmd=$(echo "$cmd" | sed "s/GIDX/$GIDX/")
	t0=$(date +%s)
	if [ $GUEST_ID = 0 ]; then
		timeout 240 $cmd -F -d $IBDEV > /tmp/$name.log 2> /tmp/$name.err &
		pid=$!
		case $cmd in
		*-R*) listen_wait "$name" ;;
		*) sleep 2 ;;
		esac
		vm-barrier "listen-$name"
		r=0; wait $pid || r=$?
	else
		vm-barrier "listen-$name"
		case $cmd in *-R*) ;; *) sleep 2 ;; esac
		r=0; timeout 240 $cmd -F -d $IBDEV $PEER_IP > /tmp/$name.log 2> /tmp/$name.err || r=$?
	fi
	rows=$(awk '/^ #bytes/ { t = 1; next } t && /^-+$/ { t = 0 } t && /^ *[0-9]/' /tmp/$name.log | wc -l)
	echo "run $name: exit $r rows $rows ($(( $(date +%s) - t0 )) s)"
	sed -n '/^ #bytes/,/^-*$/p' /tmp/$name.log | sed "s/^/table $name: /"
	sed "s/^/stderr $name: /" /tmp/$name.err
	# The passive side of the READ and WRITE bandwidth runs and of
	# ib_read_lat prints no table of its own.
	[ $r = 0 ] && { [ $rows -gt 0 ] || [ $GUEST_ID = 0 ]; } || { tail -15 /tmp/$name.log; rc=1; }
	vm-barrier "done-$name"
done < /job/files/runs.txt
sleep 1
echo "--- rdma res after"
rdma resource show
echo "qps after: $(rdma resource show qp | grep -vc 'type GSI')"
exit $rc
