#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mixed-ping.sh: the guest side of tests/system/mixed-ping.sh.
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
