#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: iWARP connection management between two guests on the
# emulated E810.  Guest 0 listens, guest 1 connects:
#  - ucmatose with one connection, then with CONNS connections, MSGS
#    messages each way on every connection;
#  - CYCLES connect/disconnect cycles: a persistent rping server (-P), the
#    client runs rping -C 1 (connect, one verified ping, disconnect) CYCLES
#    times.
# Afterwards (servers stopped) the rdma resource counts (pd, cq, qp, cm_id,
# mr) are back to what they were after bring-up on both guests, and the
# kernel logs are clean.
set -u
. "$(dirname "$0")/lib.sh"

CONNS=${CONNS:-4}
MSGS=${MSGS:-5}
CYCLES=${CYCLES:-100}

cat > "$OUT/job.sh" <<EOS
#!/bin/sh
sh /job/files/bringup > /tmp/bringup.log 2>&1 || { cat /tmp/bringup.log; exit 1; }
res() { rdma resource show | sed -n 's/.*\(pd [0-9]* cq [0-9]* qp [0-9]* cm_id [0-9]* mr [0-9]*\).*/\1/p'; }
base=\$(res)
echo "resources at start: \$base"
listening() {
	i=0
	until rdma resource show cm_id 2>/dev/null | grep -q LISTEN; do
		i=\$((i + 1)); [ \$i -lt 300 ] || return 1
		sleep 0.1
	done
}
rc=0
for c in 1 $CONNS; do
	if [ \$GUEST_ID = 0 ]; then
		timeout 120 ucmatose -c \$c -C $MSGS > /tmp/uc.log 2>&1 &
		pid=\$!
		listening || echo "ucmatose server not listening"
		vm-barrier "uc-\$c"
		r=0; wait \$pid || r=\$?
	else
		vm-barrier "uc-\$c"
		r=0; timeout 120 ucmatose -s \$PEER_IP -c \$c -C $MSGS > /tmp/uc.log 2>&1 || r=\$?
	fi
	echo "ucmatose -c \$c: exit \$r, \$(grep -c 'test complete' /tmp/uc.log) complete"
	grep -q 'test complete' /tmp/uc.log && [ \$r = 0 ] || { tail -20 /tmp/uc.log; rc=1; }
	vm-barrier "uc-done-\$c"
done

t0=\$(date +%s)
if [ \$GUEST_ID = 0 ]; then
	# Only stderr: a buffered stdout flushed mid-line would hide lines.
	rping -s -P -a \$GUEST_IP -C 1 > /dev/null 2> /tmp/rping.log &
	pid=\$!
	listening || echo "rping server not listening"
	vm-barrier cycles
	vm-barrier cycles-done
	# The last disconnects reach the server's threads a little later.
	i=0
	until [ \$(grep -c '^server DISCONNECT EVENT' /tmp/rping.log) -ge $CYCLES ] || [ \$i -ge 100 ]; do
		i=\$((i + 1)); sleep 0.2
	done
	n=\$(grep -c '^server DISCONNECT EVENT' /tmp/rping.log)
	[ \$n -ge $CYCLES ] || { echo "rping server: \$n disconnects; before the kill:"; rdma resource show cm_id; rdma resource show qp; }
	kill \$pid; wait \$pid 2>/dev/null
	# One disconnect line per connection; the clients verify the data (-V).
	echo "rping server: \$(grep -c '^server DISCONNECT EVENT' /tmp/rping.log) connections served"
	grep -vE '^(server DISCONNECT EVENT|wait for RDMA_READ_ADV state 10)' /tmp/rping.log | head -5
else
	vm-barrier cycles
	ok=0
	i=0
	while [ \$i -lt $CYCLES ]; do
		i=\$((i + 1))
		if timeout 30 rping -c -a \$PEER_IP -C 1 -V -S 64 > /tmp/rping.log 2>&1; then
			ok=\$((ok + 1))
		else
			echo "cycle \$i failed:"; tail -5 /tmp/rping.log
		fi
	done
	vm-barrier cycles-done
fi
[ \$GUEST_ID = 1 ] && echo "cycles: \$ok of $CYCLES ok (\$(( \$(date +%s) - t0 )) s)"
[ \$GUEST_ID = 1 ] && [ \$ok != $CYCLES ] && rc=1
# Let the last disconnects and the deferred frees settle.
i=0
until [ "\$(res)" = "\$base" ] || [ \$i -ge 50 ]; do i=\$((i + 1)); sleep 0.2; done
end=\$(res)
echo "resources at end: \$end"
[ "\$end" = "\$base" ] || { echo "resources not back to baseline"; rdma resource show; rc=1; }
vm-barrier end
exit \$rc
EOS

vm_run --guests 2 --nic e810 --env COLDPLUG=0 --file "$TOP/guest-driver/bringup" \
	--script "$OUT/job.sh" --timeout ${TIMEOUT:-900}
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	bad=$(grep -iE 'irdma.*(fail|error|timeout|timed out)' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g irdma says: $bad"
	assert_output $g "^ucmatose -c 1: exit 0, 1 complete"
	assert_output $g "^ucmatose -c $CONNS: exit 0, 1 complete"
	assert_output $g "^resources at end: pd 0 cq 0 qp 0 cm_id 0 mr 0\$"
done
assert_output 1 "^cycles: $CYCLES of $CYCLES ok "
assert_output 0 "^rping server: $CYCLES connections served\$"
grep -hE '^(ucmatose|cycles|resources|rping server)' "$OUT/run/g1/output.log" "$OUT/run/g0/output.log"
pass_fail
