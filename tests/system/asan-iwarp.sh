#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the emulator with the device built with AddressSanitizer and UBSan
# (E810_QEMU_VARIANT=asan, build/qemu-build-asan) under a real workload.
# Two guests bring irdma up in iWARP mode, rping verifies data both ways,
# ib_write_bw and ib_read_bw move 64 KiB messages, then ice and irdma are
# unloaded and loaded again (PF reset, every object torn down) and rping
# runs once more.  Last, a hot-unplug with frames queued in a stalled
# backend: guest 1 writes to guest 0, stops guest 0 (its QEMU no longer
# reads the link, so guest 1's frames wait in QEMU with the device's sent
# callback), powers off its own e810's PCIe slot, and resumes guest 0 only
# once the device is gone: QEMU then hands on what is left of those frames,
# which must no longer reach into the freed device (e810_pci_exit purges
# them; trace e810_pci_exit says how many were held).  Passes only if the
# jobs pass, the kernel logs are clean and neither QEMU printed a sanitizer
# report (they abort on the first).
set -u
. "$(dirname "$0")/lib.sh"

ASAN_QEMU=${E810_STATE:-$TOP/build}/qemu-build-asan/qemu-system-x86_64
# Built every time (incremental: seconds when nothing changed), so the
# emulator under test has the device as it is now.
E810_QEMU_VARIANT=asan "$TOP/scripts/build-qemu" >"$OUT/build.log" 2>&1 ||
	{ tail -20 "$OUT/build.log"; fail "ASan QEMU build failed"; pass_fail; }

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
up() {
	sh /job/files/bringup > /tmp/bringup.log 2>&1 || { cat /tmp/bringup.log; exit 1; }
	IBDEV=$(sed -n 's/^bringup: iWARP device //p' /tmp/bringup.log)
}
# listen_wait TAG: the peer goes a second after the listener shows, as
# jobs/lib.sh's listen_wait (rdma_listen() shows LISTEN before the device
# listens: a connect at once was refused, "RDMA_CM_EVENT_REJECTED, error
# -104", and rping2's server then waited 300 s for it).
listen_wait() {
	rdma-listen-wait || echo "$1: server not listening"
	sleep 1
}
# pair TAG SERVER-CMD CLIENT-CMD: guest 0 serves, guest 1 connects.
pair() {
	if [ "$GUEST_ID" = 0 ]; then
		timeout 300 $2 > /tmp/$1.log 2>&1 &
		pid=$!
		listen_wait "$1"
		vm-barrier "listen-$1"
		r=0; wait $pid || r=$?
	else
		vm-barrier "listen-$1" || exit 1
		timeout 300 $3 > /tmp/$1.log 2>&1
		r=$?
	fi
	echo "$1: exit $r"
	[ $r = 0 ] || tail -5 /tmp/$1.log
	vm-barrier "done-$1"
}
up
pair rping1 "rping -s -a $GUEST_IP -C 20 -v -V -S 4096" "rping -c -a $PEER_IP -C 20 -v -V -S 4096"
echo "rping1 data lines $(grep -c 'ping data: rdma-ping-' /tmp/rping1.log)"
# -F: a failed clock calibration under host load does not end perftest
# (see iwarp-perftest.sh).
pair write_bw "ib_write_bw -F -R -d $IBDEV -s 65536 -n 20" "ib_write_bw -F -R -d $IBDEV -s 65536 -n 20 $PEER_IP"
pair read_bw "ib_read_bw -F -R -d $IBDEV -s 65536 -n 20" "ib_read_bw -F -R -d $IBDEV -s 65536 -n 20 $PEER_IP"
# Tear everything down and bring it up again: PF reset, objects freed.
modprobe -r irdma && modprobe -r ice && echo "unloaded"
up
pair rping2 "rping -s -a $GUEST_IP -C 20 -v -V -S 65535" "rping -c -a $PEER_IP -C 20 -v -V -S 65535"
echo "rping2 data lines $(grep -c 'ping data: rdma-ping-' /tmp/rping2.log)"
# Hot-unplug of guest 1's e810 while its frames wait in a stalled backend.
wb="ib_write_bw -F -R -d $IBDEV -s 65536 -n 100000"
if [ "$GUEST_ID" = 0 ]; then
	timeout 120 $wb > /tmp/unplug.log 2>&1 &
	pid=$!
	listen_wait unplug
	vm-barrier listen-unplug
	vm-barrier unplugged
	# Its peer's device is gone without a word on the wire: the server
	# would wait for its timeout (~100 s); its outcome is not the test's.
	kill $pid 2>/dev/null
	wait
	echo "unplug: server ended"
else
	vm-barrier listen-unplug || exit 1
	timeout 120 $wb $PEER_IP > /tmp/unplug.log 2>&1 &
	sleep 3
	vm-monitor -g 0 stop >/dev/null && echo "unplug: peer stopped"
	sleep 2
	bdf=
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ] && bdf=${d##*/}
	done
	slot=
	for s in /sys/bus/pci/slots/*; do
		[ "$(cat $s/address 2>/dev/null)" = "${bdf%.*}" ] && slot=$s
	done
	echo "unplug: $bdf in slot ${slot:-none}"
	[ -n "$slot" ] && echo 0 > $slot/power
	i=0
	while [ -e /sys/bus/pci/devices/$bdf ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
	[ -e /sys/bus/pci/devices/$bdf ] || echo "unplug: device gone"
	vm-monitor -g 0 cont >/dev/null && echo "unplug: peer continued"
	wait
	sleep 2
	vm-barrier unplugged
	echo "unplug: client ended"
fi
EOS

# TCG with ASan is slower: generous timeout.  ASan's own leak check at exit
# is off (QEMU's exit path does not free everything; not a device error).
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
vm_run --guests 2 --nic e810 --qemu "$ASAN_QEMU" --env COLDPLUG=0 \
	--trace 'e810_pci_exit' --trace 'e810_tx_blocked' \
	--file "$TOP/guest-driver/bringup" --script "$OUT/job.sh" --timeout 1200
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	for r in rping1 rping2 write_bw read_bw; do
		assert_output $g "^$r: exit 0\$"
	done
	assert_output $g '^rping[12] data lines 20$' 2
	assert_output $g '^unloaded$'
	assert_output $g '^unplug: (server|client) ended$'
	bad=$(grep -E 'AddressSanitizer|LeakSanitizer|runtime error:|SUMMARY: ' \
		"$OUT/run/g$g/qemu.log" 2>/dev/null | head -3)
	[ -z "$bad" ] || fail "g$g QEMU sanitizer report: $bad"
done
assert_output 1 '^unplug: peer stopped$'
assert_output 1 '^unplug: device gone$'
assert_output 1 '^unplug: peer continued$'
# The frames the backend held when the device went (the purge's work).
held=$(sed -n 's/.*e810_pci_exit unplugged with \([0-9]*\) frames held.*/\1/p' \
	"$OUT/run/g1/trace.log" | head -1)
echo "g1: unplugged with ${held:-?} frames held by the stalled backend"
[ "${held:-0}" -gt 0 ] || fail "g1: no frames were held at the unplug (nothing for the purge to do)"
pass_fail
