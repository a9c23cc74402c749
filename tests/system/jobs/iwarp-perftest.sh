#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp-perftest.sh: the perftest runs of /job/files/runs.txt (NAME|ARGS,
# the same on both sides), guest 0 serving; resources back to zero.
# -F: a bandwidth report whose clock calibration fails under host load
# (perftest_parameters.c:print_report_bw(), "Can't produce a report")
# prints zeros instead of exiting 1 and dropping the connections under
# its peer.  What a run says on stderr is echoed ("stderr NAME: ...").
. /job/files/lib.sh
up
echo "device $IBDEV"
PAIR_ERR=1
rc=0
while IFS='|' read -r name cmd; do
	[ -n "$name" ] || continue
	t0=$(date +%s)
	pair "$name" 0 240 "$cmd -F -R -d $IBDEV" "$cmd -F -R -d $IBDEV $PEER_IP"
	# The result table: the lines after the "#bytes" header.
	rows=$(awk '/^ #bytes/ { t = 1; next } t && /^-+$/ { t = 0 } t && /^ *[0-9]/' /tmp/$name.log | wc -l)
	echo "run $name: exit $r rows $rows ($(( $(date +%s) - t0 )) s)"
	sed -n '/^ #bytes/,/^-*$/p' /tmp/$name.log | sed "s/^/table $name: /"
	sed "s/^/stderr $name: /" /tmp/$name.err
	[ $r = 0 ] && [ $rows -gt 0 ] || { tail -15 /tmp/$name.log; rc=1; }
	vm-barrier "done-$name"
done < /job/files/runs.txt
echo "--- rdma res after"
rdma resource show
rdma resource show | grep -qE 'pd 0 cq 0 qp 0 cm_id 0 mr 0' || { echo "resources left"; rc=1; }
exit $rc
