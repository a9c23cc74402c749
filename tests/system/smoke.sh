#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Smoke test of the guest image and launcher: one guest with virtio-net.
# Checks the image's tools, modules and ice DDP file, the job environment,
# vm-monitor and vm-barrier, and Soft-RoCE loopback (rping to itself).
# Usage: tests/system/smoke.sh   (env: E810_QEMU, E810_KERNEL)
set -u
. "$(dirname "$0")/lib.sh"

cat > "$OUT/g0.sh" <<'EOS'
#!/bin/sh
set -e
echo "env GUEST_ID=$GUEST_ID GUEST_IP=$GUEST_IP NIC=$NIC"
for t in ip rdma devlink ethtool rping ucmatose ibv_devinfo ib_write_bw ib_send_lat; do
	p=$(command -v $t) && echo "tool $t $p"
done
ip -V | grep -q iproute2 && echo "ip is iproute2"
test -s /lib/firmware/intel/ice/ddp/ice.pkg && echo "ddp ok"
for m in ice irdma rdma_rxe; do modprobe $m && echo "module $m loaded"; done
dev=$(net-up)
echo "netdev $dev"
vm-monitor "info network" | grep -q "n0" && echo "monitor ok"
vm-barrier alone && echo "barrier ok"
rdma link add rxe0 type rxe netdev $dev
ibv_devinfo -d rxe0 | grep -q PORT_ACTIVE && echo "rxe0 active"
rping -s -a $GUEST_IP -C 10 -V > /tmp/s.log 2>&1 &
i=0
until rdma resource show cm_id | grep -q LISTEN; do i=$((i+1)); [ $i -lt 100 ]; sleep 0.1; done
rping -c -a $GUEST_IP -C 10 -V -v | tail -1
wait
echo "loopback ok"
EOS

vm_run --script "$OUT/g0.sh" --timeout 90
assert_status 0 0
assert_clean_dmesg 0
assert_output 0 '^tool ' 9
assert_output 0 '^ip is iproute2$'
assert_output 0 '^ddp ok$'
assert_output 0 '^module .* loaded$' 3
assert_output 0 '^monitor ok$'
assert_output 0 '^barrier ok$'
assert_output 0 '^rxe0 active$'
assert_output 0 '^ping data: rdma-ping-9: '
assert_output 0 '^loopback ok$'
pass_fail
