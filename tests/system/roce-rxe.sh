#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the emulated E810 in RoCEv2 mode against Linux's Soft-RoCE
# (rdma_rxe over virtio-net), both ways.  Guest 0 has the e810 (irdma,
# RoCEv2 at boot), guest 1 a virtio-net NIC with an rxe device; rdma_cm
# connects them through each side's GSI QP 1 (irdma: the device's UD QP;
# rxe: its software one).  Round 0: rping server on the e810, client on
# rxe; round 1 the other way; COUNT verified iterations at every size in
# SIZES.  rxe checks the ICRC of every frame it takes (rxe_icrc_check), so
# a bad one shows as a hang; the capture is checked too
# (tests/wire/roce-check.py), and both kernel logs must stay clean.
set -u
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-50}
SIZES=${SIZES:-64 4096 65535}

vm_job roce-rxe --guests 2 --nic0 e810 --nic1 virtio --mode roce \
	--env COUNT="$COUNT" --env SIZES="$SIZES" --pcap "$OUT/link.pcap" --timeout 900
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	assert_rping_rounds $g
done
assert_rdma_dmesg 0 abnormal
bad=$(grep -iE 'rxe.*(fail|error|bad|invalid)' "$OUT/run/g1/dmesg.log" | head -3)
[ -z "$bad" ] || fail "g1 rxe says: $bad"
wire=$(/usr/bin/python3 "$TOP/tests/wire/roce-check.py" "$OUT/link.pcap")
wrc=$?
echo "wire: $wire"
[ $wrc = 0 ] || fail "RoCEv2 frames on the wire: $wire"
pass_fail
