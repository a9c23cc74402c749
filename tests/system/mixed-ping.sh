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

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
MB=${MB:-16}
dev=$(net-up) || { echo "net-up failed"; exit 1; }
echo "netdev $dev nic $NIC peer $PEER_NIC"
dd if=/dev/urandom of=/tmp/data bs=1M count=$MB 2>/dev/null
echo "local md5 $(md5sum < /tmp/data | cut -d' ' -f1)"
cat > /tmp/sink <<'EOT'
#!/bin/sh
dd bs=65536 2>/dev/null | md5sum > /tmp/rx.md5
EOT
chmod +x /tmp/sink
vm-barrier up
ping -c 200 -i 0.05 -W 5 "$PEER_IP" > /tmp/ping.log 2>&1
rc=$?
tail -2 /tmp/ping.log
for s in 0 1; do
	vm-barrier "tcp$s"
	if [ "$GUEST_ID" = $s ]; then
		vm-barrier "listen$s"
		sleep 1
		nc "$PEER_IP" 5001 < /tmp/data || rc=1
	else
		nc -l -p 5001 -e /tmp/sink &
		pid=$!
		vm-barrier "listen$s"
		wait $pid
		echo "received md5 $(cut -d' ' -f1 /tmp/rx.md5)"
	fi
	vm-barrier "tcpdone$s"
done
exit $rc
EOS

vm_run --guests 2 --nic0 e810 --nic1 virtio --env "MB=${MB:-16}" \
	--script "$OUT/job.sh" --timeout 400
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
