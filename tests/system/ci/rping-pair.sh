#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A scripts/ci job as a user would write one: verified rping between the
# two guests (guest 0 serves), with what scripts/ci puts in the environment.
set -u
echo "job: guest $GUEST_ID $GUEST_IP peer $PEER_IP dev $RDMA_DEV netdev $NETDEV mode $MODE gid $GID_INDEX args $*"
count=${1:-5}
if [ "$GUEST_ID" = 0 ]; then
	rping -s -a "$GUEST_IP" -C "$count" -S 2000 -v -V > /tmp/rping.log 2>&1 &
	rdma-listen-wait 30 || { echo "job: no listener"; exit 1; }
	vm-barrier listening
	wait $!
	rc=$?
else
	vm-barrier listening
	sleep 1
	rping -c -a "$PEER_IP" -C "$count" -S 2000 -v -V > /tmp/rping.log 2>&1
	rc=$?
fi
cat /tmp/rping.log
echo "job: rping exit $rc, $(grep -c 'ping data' /tmp/rping.log) verified pings"
# What suites expect of a system: /dev/fd and the std links, the kernel's
# configuration; and a JUnit file of the job's own for the report.
for f in /dev/fd/0 /dev/stdin /dev/stdout /dev/stderr "/boot/config-$(uname -r)"; do
	[ -e "$f" ] && echo "job: has $f" || echo "job: lacks $f"
done
echo "job: config says CONFIG_INFINIBAND_IRDMA=$(sed -n 's/^CONFIG_INFINIBAND_IRDMA=//p' "/boot/config-$(uname -r)" 2>/dev/null)"
if [ -n "${JUNIT_DIR:-}" ]; then
	cat > "$JUNIT_DIR/pair.xml" <<XML
<?xml version="1.0"?>
<testsuite name="pair"><testcase classname="pair" name="rping-g$GUEST_ID"/><testcase classname="pair" name="always-skipped"><skipped/></testcase></testsuite>
XML
fi
exit $rc
