#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hot-unplug.sh: the guest side of tests/system/hot-unplug.sh.  Guest 0's
# e810 is taken out of its PCIe slot while a verified rping runs to guest
# 1, then put back (vm-ctl hotplug: QEMU's device_del and device_add),
# CYCLES times.  Each time: ice's netdev and irdma's device go away, the
# rping on guest 0 ends, and once the card is back ice and irdma probe
# it again, the bring-up finds it in the mode it had, and a verified
# rping runs both ways.  The launcher's answers carry QEMU's RSS and fd
# count (the host side checks for a leak).
. /job/files/lib.sh
up || exit 1
CYCLES=${CYCLES:-3}
COUNT=${COUNT:-10}
SIZES=4096

# e810_fn: the PCI function of the card (empty when the slot is empty).
e810_fn() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ] && echo "${d##*/}"
	done
}

echo "mode before: $(mode)"
echo "function before: $(e810_fn)"
c=0
while [ $c -lt "$CYCLES" ]; do
	c=$((c + 1))
	if [ "$GUEST_ID" = 1 ]; then
		timeout 300 rping -s -a "$GUEST_IP" -C 100000 -v -V -S 4096 > /tmp/long.log 2>&1 &
		pid=$!
		listen_wait "long-$c"
		vm-barrier "listen-$c"
		vm-barrier "out-$c"
		# The peer's card went with its QPs: this end may never hear.
		kill $pid 2> /dev/null
		wait $pid
		echo "cycle $c: long server data lines $(grep -c 'server ping data' /tmp/long.log)"
		vm-barrier "back-$c"
	else
		vm-barrier "listen-$c"
		timeout 300 rping -c -a "$PEER_IP" -C 100000 -v -V -S 4096 > /tmp/long.log 2>&1 &
		pid=$!
		i=0
		until [ "$(grep -c '^ping data' /tmp/long.log)" -ge 20 ] || [ $i -ge 600 ]; do
			sleep 0.1; i=$((i + 1))
		done
		echo "cycle $c: data lines before $(grep -c '^ping data' /tmp/long.log)"
		t0=$(uptime_s)
		unreg_begin "hot-unplug, cycle $c"
		if [ "${HOTPLUG:-ctl}" = fault ]; then
			i=0
			while [ -n "$(e810_fn)" ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
		elif [ "${HOTPLUG:-ctl}" = surprise ]; then
			# gone from the bus first: the drivers' teardown meets a dead card
			vm-ctl hotplug self surprise | sed "s/^/cycle $c: /"
		else
			vm-ctl hotplug self unplug | sed "s/^/cycle $c: /"
		fi
		echo "cycle $c: unplug took $(since "$t0") s"
		echo "cycle $c: out: function '$(e810_fn)', ib devices '$(ls /sys/class/infiniband)'"
		# The card's users went with it: rping ends, nothing is left.
		i=0
		while kill -0 $pid 2> /dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		if kill -0 $pid 2> /dev/null; then
			echo "cycle $c: rping still running 30 s after the removal"
			kill $pid
		fi
		r=0; wait $pid || r=$?
		echo "cycle $c: rping exit $r, data lines $(grep -c '^ping data' /tmp/long.log)"
		vm-barrier "out-$c"
		t0=$(uptime_s)
		[ "${HOTPLUG:-ctl}" = fault ] || vm-ctl hotplug self plug | sed "s/^/cycle $c: /"
		i=0
		until [ -n "$(e810_fn)" ] || [ $i -ge 3000 ]; do sleep 0.1; i=$((i + 1)); done
		up
		unreg_end
		echo "cycle $c: back after $(since "$t0") s: function $(e810_fn), $IBDEV, $(mode)"
		peer_wait
		vm-barrier "back-$c"
	fi
	rping_rounds
	echo "rping after cycle $c: exit $?"
done
# QEMU after the last cycle, the card in use again.
[ "$GUEST_ID" = 0 ] && vm-ctl usage self | sed 's/^/final: /'
exit 0
