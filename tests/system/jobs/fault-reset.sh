#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fault-reset.sh: the guest side of tests/system/fault-reset.sh.  Guest
# 0's card is reset four ways, one after the other (docs/faults.md): a
# core reset the card asks for (fault core-reset), one ice asks for
# itself (ethtool --reset ... -shared: a CORER, ice 7.x), a global reset
# (fault global-reset) and an RDMA-engine critical error that makes irdma
# ask ice for a PF reset (fault pf-reset).  After each, irdma must be
# registered again (a new ib_core device index), ACTIVE, in the mode it
# had, and a verified rping must run both ways.  Guest 1 is the peer.
. /job/files/lib.sh
up || exit 1
COUNT=${COUNT:-10}
SIZES=4096

# after_reset NAME: wait (bounded) for irdma to come back as a new device,
# ACTIVE, and report it.
after_reset() {
	local t=0 idx
	while [ $t -lt 240 ]; do
		idx=$(dev_index)
		if [ -n "$idx" ] && [ "$idx" != "$IDX" ] && rdma_active 1 > /dev/null 2>&1; then
			break
		fi
		sleep 0.5
		t=$((t + 1))
	done
	echo "$1: back after $((t / 2)) s: index $IDX -> ${idx:-none}, $(mode)"
	IDX=$idx
}

MODE0=$(mode)
echo "mode before: $MODE0"
IDX=$(dev_index)
nd=$(rdma_netdev)
n=0
# (rping_rounds has variables of its own: this loop's are "kind" and "n")
for kind in core-reset ethtool-corer global-reset pf-reset; do
	n=$((n + 1))
	if [ "$GUEST_ID" = 0 ]; then
		unreg_begin "$kind"
		case $kind in
		ethtool-corer)
			if ethtool --reset "$nd" irq-shared dma-shared filter-shared \
			    offload-shared ram-shared > /tmp/ethtool.log 2>&1; then
				echo "$kind: asked"
			else
				echo "$kind: ethtool --reset unsupported by this ice: $(cat /tmp/ethtool.log)"
				vm-barrier "reset-$n"
				continue
			fi ;;
		*)
			vm-monitor "qom-set nic0 fault $kind" && echo "$kind: armed" ;;
		esac
		after_reset "$kind"
		unreg_end
		# the link to the peer answers again before the rounds
		peer_wait
	fi
	vm-barrier "reset-$n"
	rping_rounds
	echo "rping after $kind: exit $?"
done
exit 0
