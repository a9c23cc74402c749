#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: Soft-RoCE (rdma_rxe) between two guests with virtio-net.
# Guest 0 runs an rping server, guest 1 the client (100 verified pings of
# SIZE bytes); both must print the data pattern, exit 0, and log no kernel
# warning.  Checks the launcher, the image's RDMA user space and the barrier.
# Usage: tests/system/rxe-rping.sh [SIZE]   (env: E810_QEMU, E810_KERNEL)
set -u
. "$(dirname "$0")/lib.sh"
SIZE=${1:-1024}
COUNT=100

cat > "$OUT/g0.sh" <<EOS
#!/bin/sh
set -e
dev=\$(net-up)
rdma link add rxe0 type rxe netdev \$dev
rdma link show
# Listen, wait until the cm_id is listening, then let the client go.
rping -s -a \$GUEST_IP -C $COUNT -v -V -S $SIZE > /tmp/rping.log 2>&1 &
pid=\$!
i=0
until rdma resource show cm_id 2>/dev/null | grep -q LISTEN; do
	i=\$((i + 1)); [ \$i -lt 100 ] || { echo "server not listening"; exit 1; }
	sleep 0.1
done
vm-barrier listening
rc=0; wait \$pid || rc=\$?
cat /tmp/rping.log
echo "rping server exit \$rc"
exit \$rc
EOS

cat > "$OUT/g1.sh" <<EOS
#!/bin/sh
set -e
dev=\$(net-up)
rdma link add rxe0 type rxe netdev \$dev
# The peer may configure its address a few seconds later (the guests boot
# in parallel): ask again rather than let one lost ARP end the test.
i=0
until ping -c 1 -W 2 \$PEER_IP; do
	i=\$((i + 1)); [ \$i -lt 15 ] || exit 1
done
vm-barrier listening
rping -c -a \$PEER_IP -C $COUNT -v -V -S $SIZE
echo "rping client exit \$?"
EOS

vm_run --guests 2 --nic virtio --script "$OUT/g0.sh" --script1 "$OUT/g1.sh" --timeout 120
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
done
# rping -v prints one line per ping with the rotating ASCII pattern.
assert_output 0 'server ping data: rdma-ping-[0-9]+: [ -~]+' $COUNT
assert_output 1 '^ping data: rdma-ping-[0-9]+: [ -~]+' $COUNT
assert_output 0 '^rping server exit 0$'
assert_output 1 '^rping client exit 0$'
pass_fail
