#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# verbs-lifecycle.sh: guest-driver/verbs-lifecycle LOOPS times (MR_MIB,
# FILL), then processes that die or see irdma unloaded holding objects.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
dev=$(rdma_active)
res() { rdma_res $dev; }
# hold LOG: a process holding objects in the background ($pid), once it
# says so.
hold() {
	/job/files/verbs-lifecycle -d "$dev" -m 64 -H > $1 2>&1 &
	pid=$!
	t=0
	while ! grep -q '^holding' $1 && [ $t -lt 600 ]; do sleep 0.2; t=$((t + 1)); done
}
before=$(res)
echo "res before: $before"
fill=
[ "$FILL" = 1 ] || fill=-F
t0=$(uptime_s)
/job/files/verbs-lifecycle -d "$dev" -n "$LOOPS" -m "$MR_MIB" $fill
rc=$?
echo "verbs-lifecycle exit $rc after $(since $t0) s"
sleep 1
res_baseline res "$before" 0
# A process that dies holding objects: the kernel destroys them all.
hold /tmp/hold.log
cat /tmp/hold.log
echo "res holding: $(res)"
kill -9 $pid
wait $pid 2>/dev/null
t=0
while [ "$(res)" != "$before" ] && [ $t -lt 150 ]; do sleep 0.2; t=$((t + 1)); done
echo "res after kill: $(res)"
[ -n "$before" ] && [ "$before" = "$(res)" ] && echo "killed process's objects released"
# irdma unloaded under a process holding objects: the core takes them
# away (disassociate) or waits for it; then irdma comes back.
hold /tmp/hold2.log
echo "second holder: $(grep '^holding' /tmp/hold2.log)"
unreg_begin "rmmod irdma under a holder"
( rmmod irdma; echo "rmmod exit $?" > /tmp/rmmod.rc ) &
t=0
while [ ! -e /tmp/rmmod.rc ] && [ $t -lt 50 ]; do sleep 0.2; t=$((t + 1)); done
[ -e /tmp/rmmod.rc ] && echo "rmmod returned while the holder lived"
kill -9 $pid
wait $pid 2>/dev/null
t=0
while [ ! -e /tmp/rmmod.rc ] && [ $t -lt 150 ]; do sleep 0.2; t=$((t + 1)); done
cat /tmp/rmmod.rc 2>/dev/null
unreg_end
modprobe irdma
rdma-wait "$dev" 30 >/dev/null 2>&1
rdma link show
/job/files/verbs-lifecycle -d "$dev" -n 1 -m 64 -X -F > /tmp/again.log 2>&1
echo "after reload: $(tail -1 /tmp/again.log)"
grep '^FAIL' /tmp/again.log
echo "res after reload: $(res)"
[ "$(res)" = "$before" ] && echo "reloaded device clean"
rdma res show
exit $rc
