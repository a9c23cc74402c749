#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fabric-b2b.sh: one guest whose card's two ports are cabled to each other
# (scripts/vm --ports 2, back to back, as SPDK's test hosts are).  Both
# ports come up in MODE with their irdma devices ACTIVE; then rdma_cm
# connects port 0 to port 1: an rping server on port 1's address, its
# client on port 0 (port 1 in a network namespace), COUNT verified
# iterations of SIZE bytes.
. /job/files/lib.sh
sh /job/files/bringup > /tmp/bringup.log 2>&1 || { cat /tmp/bringup.log; exit 1; }
cat /tmp/bringup.log
dev0=$(sed -n 's/^bringup: \(iWARP\|RoCEv2\) device \(irdma[0-9]*\)$/\2/p' /tmp/bringup.log)
dev1=$(sed -n 's/^bringup: port 1: \(iWARP\|RoCEv2\) device \(irdma[0-9]*\)$/\2/p' /tmp/bringup.log)
echo "devices: port 0 $dev0, port 1 $dev1"
rc=0
for d in $dev0 $dev1; do
	if rdma link show "$d/1" | grep -q 'state ACTIVE'; then echo "$d ACTIVE"; else echo "$d not ACTIVE"; rc=1; fi
done
[ -n "$dev0" ] && [ -n "$dev1" ] && [ "$dev0" != "$dev1" ] || { echo "not two devices"; exit 1; }
# One card: devlink's serial number (the PCI DSN) is the same on both.
echo "serials: $(devlink dev info | sed -n 's/^ *serial_number //p' | tr '\n' ' ')"
# The card resets its core (a fault on function 0): both functions are
# warned and reset, both ice instances rebuild (one downloads the package
# again, the other finds it) and both irdma devices register anew.  They
# are found again by their netdevs (the names may swap).
net0=$(rdma link show "$dev0/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
net1=$(rdma link show "$dev1/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
indices() { rdma dev show | sed -n 's/^\([0-9]*\): irdma.*/\1/p' | sort -n | tr '\n' ' '; }
dev_on() { rdma link show | awk -v n="$1" '$0 ~ "netdev " n "( |$)" && /state ACTIVE/ { sub("/.*", "", $2); print $2; exit }'; }
before=$(indices)
unreg_begin "core reset"
vm-monitor "qom-set nic0 fault core-reset" && echo "core reset armed"
t=0
while [ $t -lt 240 ]; do
	now=$(indices)
	d0=$(dev_on "$net0"); d1=$(dev_on "$net1")
	new=0
	for i in $now; do case " $before" in *" $i "*) ;; *) new=$((new + 1)) ;; esac; done
	[ $new -ge 2 ] && [ -n "$d0" ] && [ -n "$d1" ] && break
	sleep 0.5; t=$((t + 1))
done
echo "after the core reset ($((t / 2)) s): devices $before-> $now, port 0 ${d0:-none} ACTIVE, port 1 ${d1:-none} ACTIVE"
unreg_end
[ -n "$d0" ] && [ -n "$d1" ] && [ $new -ge 2 ] || rc=1
dev0=${d0:-$dev0} dev1=${d1:-$dev1}
# RoCEv2, through the cable: port 1 (its netdev and, in exclusive mode,
# its RDMA device) in a network namespace of its own, so that port 0's
# address reaches port 1's as another host's (in one namespace both
# addresses are local and rdma_cm loops the connection inside one port).
# iWARP cannot: irdma's iWARP connection manager looks addresses and
# routes up in the initial namespace only (irdma_cm.c: init_net), so a
# port moved out of it accepts nothing; there the connection goes to port
# 1's address from the initial namespace, as SPDK's tests connect (the
# device loops it inside port 1).
NS=
if [ "$MODE" = iwarp ]; then
	in_ns() { "$@"; }
else
NS=port1
in_ns() { ip netns exec $NS "$@"; }
rdma system set netns exclusive || rc=1
ip netns add $NS || rc=1
net1=$(rdma link show "$dev1/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
rdma dev set "$dev1" netns $NS || { echo "rdma dev set $dev1 netns failed"; rc=1; }
ip link set "$net1" netns $NS || rc=1
ip -n $NS link set lo up
ip -n $NS addr add "$GUEST_IP1/${PREFIX_LEN:-24}" dev "$net1" || rc=1
ip -n $NS link set "$net1" up
t=0
until ip netns exec $NS rdma link show "$dev1/1" 2>/dev/null | grep -q 'state ACTIVE' || [ $t -ge 50 ]; do
	sleep 0.2; t=$((t + 1))
done
fi
in_ns rdma link show
# serve LOG CMD...: a server on port 1 (bounded), its pid in $pid, once
# its rdma_cm listener is there.
serve() {
	local log=$1 t=0
	shift
	in_ns timeout 300 "$@" > "$log" 2>&1 &
	pid=$!
	until in_ns rdma resource show cm_id 2>/dev/null | grep -q LISTEN || [ $t -ge 150 ]; do
		sleep 0.2; t=$((t + 1))
	done
	sleep 1
}
serve /tmp/server.log rping -s -a "$GUEST_IP1" -C "$COUNT" -v -V -S "$SIZE"
rping_client "$GUEST_IP1"
echo "client data lines $n exit $r"
[ "$r" = 0 ] || { rping_errors /tmp/client.log; rc=1; }
rs=0; wait $pid || rs=$?
n=$(grep -c 'server ping data: rdma-ping-' /tmp/server.log)
echo "server data lines $n exit $rs"
[ "$rs" = 0 ] || { rping_errors /tmp/server.log; rc=1; }
# perftest between the ports the same way: ib_write_bw over rdma_cm,
# the server on port 1 (in its namespace in RoCEv2 mode).
serve /tmp/pt-server.log ib_write_bw -F -R -d "$dev1" -s 65536 -n 200
r=0; timeout 300 ib_write_bw -F -R -d "$dev0" -s 65536 -n 200 "$GUEST_IP1" > /tmp/pt-client.log 2>&1 || r=$?
rs=0; wait $pid || rs=$?
bw=$(awk '$1 == 65536 { print $4 }' /tmp/pt-client.log | tail -1)
echo "perftest write_bw port 0 -> port 1: client exit $r server exit $rs, ${bw:-no} MB/s"
[ "$r" = 0 ] && [ "$rs" = 0 ] && [ -n "$bw" ] || { tail -5 /tmp/pt-client.log /tmp/pt-server.log; rc=1; }
echo "rdma-stat $dev0: $(rdma statistic show link $dev0/1 | tr '\n' ' ')"
echo "rdma-stat $dev1: $(in_ns rdma statistic show link $dev1/1 | tr '\n' ' ')"
exit $rc
