#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: an e810 guest and a virtio-net guest on one link (the e810
# must interoperate with a NIC that is not itself).  Both ping each other 200
# times with no loss, then the e810 guest sends MB MiB (default 16) over TCP
# to the virtio guest and the virtio guest sends the same back, MD5 checked
# on both ends.  Clean kernel logs (lib.sh assert_ice_dmesg on the e810 side).
set -u
. "$(dirname "$0")/lib.sh"


vm_job mixed-ping --guests 2 --nic0 e810 --nic1 virtio --env "MB=${MB:-16}" \
	--timeout 400
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^200 packets transmitted, 200 packets received, 0% packet loss'
	assert_clean_dmesg $g
	sent=$(sed -n 's/^local md5 //p' "$OUT/run/g$((1 - g))/output.log")
	got=$(sed -n 's/^received md5 //p' "$OUT/run/g$g/output.log")
	[ -n "$sent" ] && [ "$sent" = "$got" ] || fail "g$((1 - g)) -> g$g: sent md5 '$sent', received '$got'"
done
assert_output 0 '^netdev [^ ]+ nic e810 peer virtio$'
assert_output 1 '^netdev [^ ]+ nic virtio peer e810$'
assert_ice_dmesg 0
pass_fail
