#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# smoke.sh: the image's tools, modules, DDP file, job environment,
# monitor, barrier and a Soft-RoCE rping to itself.
. /job/files/lib.sh
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
listen_wait server 10
rping -c -a $GUEST_IP -C 10 -V -v | tail -1
wait
echo "loopback ok"
