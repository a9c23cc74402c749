#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hot-unplug-card.sh: the guest side of tests/system/hot-unplug.sh's
# two-port leg.  The guest's whole card (both functions, --ports 2) leaves
# its slot and comes back (vm-ctl hotplug: QEMU's device_del of function
# 0 takes the slot's every function); both functions, both ice netdevs and
# both irdma devices go, and come back ACTIVE in $MODE.
. /job/files/lib.sh
fns() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ] && printf '%s ' "${d##*/}"
	done
}
active() { rdma link show | grep -c 'state ACTIVE'; }
vm-ctl usage self | sed 's/^/before: /'
echo "before: functions $(fns); ib devices $(ls /sys/class/infiniband | tr '\n' ' '); $(active) ACTIVE"
t0=$(uptime_s)
unreg_begin "hot-unplug of the two-port card"
vm-ctl hotplug self unplug | sed 's/^/card: /'
echo "out after $(since "$t0") s: functions '$(fns)', ib devices '$(ls /sys/class/infiniband)'"
t0=$(uptime_s)
vm-ctl hotplug self plug | sed 's/^/card: /'
i=0
until [ "$(fns | wc -w)" = 2 ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
up
i=0
until [ "$(active)" = 2 ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
unreg_end
echo "back after $(since "$t0") s: functions $(fns| wc -w), $(active) ACTIVE, $(mode)"
rdma link show
vm-ctl usage self | sed 's/^/after: /'
