#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rdma-core-suite.sh: rdma-core's test suite (SUITE_DIR, from the image's
# python3-pyverbs) against the e810 in MODE (iwarp: --gid 0, the suite
# otherwise skips every iWARP GID; roce: the RoCEv2 GID of the address),
# one test at a time with PER seconds each (rdma-core-suite.py); a run the
# alarm cannot end is killed after PER + 30 s and resumed after that test.
. /job/files/lib.sh
up
[ -n "$IBDEV" ] || { echo "no RDMA device"; exit 1; }
if [ "$MODE" = roce ]; then
	GID=$(sed -n 's/^bringup: GID of [0-9.]*: index \([0-9]*\).*/\1/p' /tmp/bringup.log)
else
	GID=0
fi
echo "suite: $IBDEV mode $MODE gid $GID, python $(python3 -c 'import sys; print(sys.version.split()[0])'), pyverbs $(python3 -c 'import pyverbs, os; print(os.path.dirname(pyverbs.__file__))')"
rdma link show
rm -f /tmp/progress
n=0
rc=
while [ $n -lt 20 ]; do
	n=$((n + 1))
	# A wedged test ends the process; the next round resumes after it.
	SUITE_LAST_RC=$rc timeout -s KILL "${TOTAL:-900}" python3 /job/files/rdma-core-suite.py "$SUITE_DIR" /tmp/progress \
		"${PER:-60}" --dev "$IBDEV" --gid "$GID" -v > /tmp/suite.$n 2>&1
	rc=$?
	cat /tmp/suite.$n
	grep -q '^SUITE done' /tmp/suite.$n && break
	echo "suite: round $n ended with $rc before the end; resuming"
done
echo "--- dmesg (irdma)"
dmesg | grep -iE 'irdma|ice' | tail -40
# A process of the suite the kernel killed (a segfault) says where.
echo "--- dmesg (user-space faults)"
dmesg | grep -E 'segfault at|traps:|general protection|Killed process' | tail -10
