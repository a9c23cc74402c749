#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: TCP through two e810 guests with the driver's default offloads
# (Tx checksum, TSO, Rx checksum, RSS hash): guest 0 sends MB MiB of random
# data to guest 1 at MTU 1500, then at MTU 9000 (multi-buffer Rx); both ends'
# MD5 must match, no Tx timeout or hang, clean kernel log.
# Env: MB (default 256, a multiple of 8).  Under TCG (~10-20 Mbit/s) the
# default takes ~3-4 min per MTU.
set -u
. "$(dirname "$0")/lib.sh"

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
MB=${MB:-256}
dev=$(net-up) || { echo "net-up failed"; exit 1; }
ethtool -k "$dev" | grep -E '^(tx-checksumming|tcp-segmentation-offload|rx-checksumming):'
dd if=/dev/urandom of=/tmp/chunk bs=1M count=8 2>/dev/null
cat > /tmp/sink <<'EOT'
#!/bin/sh
dd bs=65536 2>/tmp/dd.err | md5sum > /tmp/rx.md5
EOT
chmod +x /tmp/sink
rc=0
for mtu in 1500 9000; do
	ip link set dev "$dev" mtu $mtu
	port=$((5000 + mtu / 100))
	vm-barrier "mtu$mtu"
	if [ "$GUEST_ID" = 1 ]; then
		nc -l -p $port -e /tmp/sink &
		pid=$!
		vm-barrier "listen$mtu"
		wait $pid
		echo "mtu $mtu md5 $(cut -d' ' -f1 /tmp/rx.md5)"
	else
		vm-barrier "listen$mtu"
		sleep 1
		t0=$(cut -d' ' -f1 /proc/uptime)
		i=0; while [ $i -lt $((MB / 8)) ]; do cat /tmp/chunk; i=$((i + 1)); done |
			nc "$PEER_IP" $port || rc=1
		t1=$(cut -d' ' -f1 /proc/uptime)
		echo "$t0 $t1" | awk -v mb=$MB -v mtu=$mtu \
			'{ printf "mtu %d: %d MiB in %.1f s (%.1f Mbit/s)\n", mtu, mb, $2 - $1, mb * 8.388608 / ($2 - $1) }'
		i=0; while [ $i -lt $((MB / 8)) ]; do cat /tmp/chunk; i=$((i + 1)); done |
			md5sum | { read sum rest; echo "mtu $mtu md5 $sum"; }
	fi
	vm-barrier "done$mtu"
done
ip -s link show "$dev"
exit $rc
EOS

vm_run --guests 2 --nic e810 --script "$OUT/job.sh" --env "MB=${MB:-256}" --timeout $((240 + ${MB:-256} * 8))
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^mtu (1500|9000) md5 [0-9a-f]{32}$' 2
	assert_clean_dmesg $g
	bad=$(grep -iE 'tx_timeout|tx timeout|Tx Unit Hang|hang' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g: $bad"
done
for mtu in 1500 9000; do
	s0=$(sed -n "s/^mtu $mtu md5 //p" "$OUT/run/g0/output.log")
	s1=$(sed -n "s/^mtu $mtu md5 //p" "$OUT/run/g1/output.log")
	[ -n "$s0" ] && [ "$s0" = "$s1" ] || fail "MTU $mtu: sent md5 '$s0', received '$s1'"
done
grep -h '^mtu .*Mbit' "$OUT/run/g0/output.log"
pass_fail
