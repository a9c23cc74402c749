#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ice-tcp.sh: the guest side of tests/system/ice-tcp.sh.
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
