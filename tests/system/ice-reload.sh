#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the ice driver unloads and loads again.  Two guests with an
# e810 each load ice by hand (COLDPLUG=0, so irdma stays out of it; see
# irdma-probe.sh for irdma reloads), then run "rmmod ice; modprobe ice"
# RELOADS times (default 5), bringing the netdev up with carrier each time.
# Every load must report the DDP package (loaded, or already present on the
# device), none may enter Safe Mode, the kernel log stays clean (lib.sh
# assert_ice_dmesg), and afterwards both guests ping each other without loss.
set -u
. "$(dirname "$0")/lib.sh"

RELOADS=${RELOADS:-5}


vm_job ice-reload --guests 2 --nic e810 --env COLDPLUG=0 --env RELOADS=$RELOADS \
	--timeout $((120 + RELOADS * 40))
for g in 0 1; do
	d=$OUT/run/g$g/dmesg.log
	assert_status $g 0
	assert_output $g '^load 0: [^ ]+ carrier 1$'
	assert_output $g '^reload [0-9]+: [^ ]+ carrier 1$' $RELOADS
	assert_output $g '^50 packets transmitted, 50 packets received, 0% packet loss'
	# One DDP line per load (the first boot downloads, later loads may find
	# the package still active in the device).
	n=$(grep -cE 'The DDP package was successfully loaded|DDP package already present on device' "$d")
	[ "$n" = $((RELOADS + 1)) ] || fail "g$g: $n DDP package lines for $((RELOADS + 1)) loads"
	n=$(grep -c 'ice: Intel(R) Ethernet Connection E800 Series' "$d")
	[ "$n" = $((RELOADS + 1)) ] || fail "g$g: ice loaded $n times, expected $((RELOADS + 1))"
	assert_ice_dmesg $g
done
grep -hE 'DDP package' "$OUT/run/g0/dmesg.log" | sed 's/^\[[ 0-9.]*\] /  g0: /' | sort | uniq -c
pass_fail
