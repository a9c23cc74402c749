#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcg-race.sh: mmio-race on this guest's e810 with ice unbound: BAR0 read
# on one vCPU while the other turns the function's memory decoding off
# and on, SECONDS long.
. /job/files/lib.sh
bdf=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ] && { bdf=${d##*/}; break; }
done
[ -n "$bdf" ] || { echo "no e810"; exit 1; }
if [ -e /sys/bus/pci/devices/$bdf/driver ]; then
	echo $bdf > /sys/bus/pci/devices/$bdf/driver/unbind || { echo "unbind failed"; exit 1; }
fi
echo "cpus $(grep -c ^processor /proc/cpuinfo), e810 at $bdf, no driver"
/job/files/mmio-race $bdf ${SECONDS:-30}
echo "mmio-race exit $?"
