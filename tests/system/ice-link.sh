#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the state ice reaches at boot and the link as the QEMU monitor
# sets it.  Two guests with an e810 each: the DDP package is loaded (no Safe
# Mode), the netdev is up with carrier, and the kernel log holds no warning
# and no ice failure beyond the few a device without QinQ makes
# unavoidable (lib.sh ICE_DMESG_EXPECTED).  Then each guest in turn has its
# QEMU drop the link ("set_link n0 off"): the guest's carrier must go to 0
# with ice logging "NIC Link is Down", and back to 1 ("NIC Link is up") on
# "set_link n0 on"; afterwards both ping each other without loss.
set -u
. "$(dirname "$0")/lib.sh"


vm_job ice-link --guests 2 --nic e810 --timeout 300
for g in 0 1; do
	d=$OUT/run/g$g/dmesg.log
	assert_status $g 0
	assert_output $g '^netdev [^ ]+ carrier 1 operstate up$'
	assert_output $g '^set_link off: carrier 0$'
	assert_output $g '^set_link on: carrier 1$'
	assert_output $g '^50 packets transmitted, 50 packets received, 0% packet loss'
	grep -q 'The DDP package was successfully loaded' "$d" || fail "g$g: no 'DDP package was successfully loaded'"
	[ "$(grep -c 'NIC Link is Down' "$d")" -ge 1 ] || fail "g$g: no 'NIC Link is Down'"
	[ "$(grep -c 'NIC Link is up' "$d")" -ge 2 ] || fail "g$g: fewer than 2 'NIC Link is up'"
	assert_ice_dmesg $g
done
pass_fail
