#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: NVMe over Fabrics over iWARP between two guests on the
# emulated E810, with the guest kernel's own modules.  Guest 0 is the
# target (nvmet + nvmet-rdma, a brd ramdisk as namespace 1, port 4420 on
# its e810 address, configured through configfs); guest 1 the host
# (nvme-rdma through nvme-cli: one I/O queue per vCPU, queue depth 128).
# The host runs fio with data verification (sequential 128 KiB and random
# 4 KiB, write then read, iodepth > 1, two jobs each) and writes 64 MiB
# through the block device that it reads back and the target reads from
# its ramdisk: all three checksums must match.  Then disconnect and
# reconnect (the data is still there), and a target-side port removal
# while fio runs: the host must recover when the port returns and fio
# must finish without an error.  Afterwards `rdma res` is back to its
# baseline on both sides and the kernel logs are clean: no WARN, no AE,
# no timeouts, no error recovery before the port removal.
# Environment: SEQ_MB (per job, default 16), RAND_MB (per job, default 4),
# PORT_DOWN (seconds the port stays removed, default 4).
set -u
. "$(dirname "$0")/lib.sh"

SEQ_MB=${SEQ_MB:-16}
RAND_MB=${RAND_MB:-4}
PORT_DOWN=${PORT_DOWN:-4}

cat > "$OUT/job.sh" <<EOS
#!/bin/sh
. /job/files/nvmeof
sh /job/files/bringup || exit 1
dev=\$(rdma link show | awk '/state ACTIVE/ { split(\$2, a, "/"); print a[1]; exit }')
# Resource counts; CQs of ib_core's shared CQ pool (ib_cq_pool_get(),
# nvme-rdma's queues) stay allocated until the device goes away, so an
# idle pool CQ (users 0) does not count.
res() {
	rdma res show | awk -v d="\$dev:" '\$2 == d {
		for (i = 3; i < NF; i += 2)
			if (\$i ~ /^(pd|qp|cm_id|mr)\$/) printf "%s %s ", \$i, \$(i + 1)
		}'
	echo "cq \$(rdma res show cq | grep -c "dev \$dev " ) pool-idle \$(rdma res show cq | grep "dev \$dev " | grep -c 'users 0 .*comm \[ib_core\]')" |
		awk '{ print "cq", \$2 - \$4 }'
}
mark() { echo "nvmeof-test: \$*" > /dev/kmsg; echo "== \$*"; }
baseline() {
	t=0
	while [ "\$(res)" != "\$before" ] && [ \$t -lt 100 ]; do sleep 0.2; t=\$((t + 1)); done
	after=\$(res)
	echo "res after: \$after"
	rdma res show cq | sed "s/^/cq: /"
	[ -n "\$before" ] && [ "\$before" = "\$after" ] && echo "res counts back to baseline"
}
before=\$(res)
echo "res before: \$before"
rc=0
if [ \$GUEST_ID = 0 ]; then
	nvmet_setup rdma \$GUEST_IP 256 || { echo "target setup failed"; vm-barrier up; exit 1; }
	echo "target up: \$(cat \$NVMET/ports/1/addr_traddr):\$PORT"
	vm-barrier up
	vm-barrier written
	echo "target md5 \$(dd if=/dev/ram0 bs=1M skip=160 count=64 2>/dev/null | md5sum | cut -d' ' -f1)"
	vm-barrier compared
	vm-barrier io-running
	sleep 3
	mark "port removed"
	nvmet_port_del || { echo "port removal failed"; rc=1; }
	sleep $PORT_DOWN
	nvmet_port_add || { echo "port re-add failed"; rc=1; }
	mark "port back"
	vm-barrier io-done
	vm-barrier disconnected
	nvmet_teardown
	baseline
	exit \$rc
fi
vm-barrier up
FIO="fio --ioengine=libaio --direct=1 --group_reporting --minimal --verify=crc32c --verify_fatal=1 --numjobs=2"
fio_run() {
	name=\$1
	shift
	\$FIO --name=\$name --filename=/dev/\$NVME_DEV "\$@" > /tmp/fio.\$name 2>&1
	r=\$?
	echo "fio \$name exit \$r: \$(grep '^3;' /tmp/fio.\$name | cut -d';' -f3-9,47-49)"
	grep -v '^3;' /tmp/fio.\$name | head -5
	[ \$r = 0 ] || rc=1
}
SEQ="--bs=128k --iodepth=8 --size=${SEQ_MB}M --offset_increment=${SEQ_MB}M"
RAND="--bs=4k --iodepth=16 --size=${RAND_MB}M --offset=$((2 * SEQ_MB))M --offset_increment=${RAND_MB}M"
t0=\$(cut -d' ' -f1 /proc/uptime)
nvme_connect rdma \$PEER_IP --reconnect-delay=1 --ctrl-loss-tmo=120 || { echo "connect failed"; exit 1; }
echo "namespace \$NVME_DEV: \$((\$(cat /sys/block/\$NVME_DEV/size) / 2048)) MiB, io queues \$(ls -d /sys/class/nvme/nvme*/ 2>/dev/null | wc -l) ctrl"
nvme list 2>&1 | grep -i nvme
echo "connected after \$(awk -v a=\$t0 -v b=\$(cut -d' ' -f1 /proc/uptime) 'BEGIN { print b - a }') s"
echo "during connect: res \$(res)"
fio_run seqwrite --rw=write \$SEQ --do_verify=0
fio_run seqread --rw=read \$SEQ
fio_run randwrite --rw=randwrite \$RAND
fio_run randread --rw=randread \$RAND --verify_header_seed=0
dd if=/dev/urandom of=/tmp/pattern bs=1M count=64 2>/dev/null
echo "pattern md5 \$(md5sum < /tmp/pattern | cut -d' ' -f1)"
dd if=/tmp/pattern of=/dev/\$NVME_DEV bs=1M seek=160 conv=fsync 2>/dev/null || { echo "dd write failed"; rc=1; }
echo 3 > /proc/sys/vm/drop_caches
echo "readback md5 \$(dd if=/dev/\$NVME_DEV bs=1M skip=160 count=64 2>/dev/null | md5sum | cut -d' ' -f1)"
rm -f /tmp/pattern
vm-barrier written
vm-barrier compared
nvme_disconnect && echo "disconnected" || { echo "disconnect failed"; rc=1; }
nvme_connect rdma \$PEER_IP --reconnect-delay=1 --ctrl-loss-tmo=120 && echo "reconnected" ||
	{ echo "reconnect failed"; rc=1; }
fio_run seqread2 --rw=read \$SEQ
mark "port flap"
\$FIO --name=flap --filename=/dev/\$NVME_DEV --rw=read \$SEQ --time_based --runtime=$((PORT_DOWN + 10)) > /tmp/fio.flap 2>&1 &
fpid=\$!
sleep 1
vm-barrier io-running
r=0; wait \$fpid || r=\$?
echo "fio flap exit \$r: \$(grep '^3;' /tmp/fio.flap | cut -d';' -f3-9)"
grep -v '^3;' /tmp/fio.flap | head -5
[ \$r = 0 ] || rc=1
vm-barrier io-done
fio_run afterflap --rw=randread \$RAND --verify_header_seed=0
nvme_disconnect && echo "disconnected" || { echo "disconnect failed"; rc=1; }
vm-barrier disconnected
baseline
exit \$rc
EOS

vm_run --guests 2 --nic e810 --mem 1024 --smp 2 --extras --env COLDPLUG=0 \
	--file "$TOP/guest-driver/bringup" --file "$TOP/guest-driver/nvmeof" \
	--trace 'e810_rdma_cqp_err' --trace 'e810_rdma_stag_err' --trace 'e810_rdma_qhash' --trace 'e810_steer_quad' \
	--qemu-arg '-d guest_errors' \
	--script "$OUT/job.sh" --timeout 900

H=$OUT/run/g1/output.log
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^res counts back to baseline'
	assert_clean_dmesg $g
done
for p in seqwrite seqread randwrite randread seqread2 flap afterflap; do
	assert_output 1 "^fio $p exit 0: "
	grep "^fio $p exit" "$H" | head -1
done
pm=$(sed -n 's/^pattern md5 //p' "$H")
rm=$(sed -n 's/^readback md5 //p' "$H")
tm=$(sed -n 's/^target md5 //p' "$OUT/run/g0/output.log")
echo "md5: pattern $pm readback $rm target $tm"
[ -n "$pm" ] && [ "$pm" = "$rm" ] && [ "$pm" = "$tm" ] || fail "64 MiB pattern: md5 $pm, read back $rm, on the target $tm"
assert_output 1 '^reconnected$'
assert_output 1 '^namespace nvme[0-9]+n1: 256 MiB'
assert_output 0 '^== port back'
for g in 0 1; do
	# A keep-alive in flight when the host itself removes the controller
	# (nvme disconnect) is cancelled by that teardown (host-aborted:
	# BLK_STS_TRANSPORT, and nvme_keep_alive_end_io then prints a bogus
	# RTT): that pair right after "Removing ctrl" is not an error.
	awk '/Removing ctrl/ { rm = NR }
		/long keepalive RTT|failed nvme_keep_alive_end_io error=4/ && rm && NR - rm <= 3 { next }
		{ print }' "$OUT/run/g$g/dmesg.log" > "$OUT/run/g$g/dmesg.checked"
	d=$OUT/run/g$g/dmesg.checked
	# Before the port removal nothing may go wrong; after it, the host's
	# error recovery and reconnect are expected, timeouts and AEs are not.
	pre=$(sed -n '/nvmeof-test: port/q;p' "$d")
	bad=$(echo "$pre" | grep -iE 'error recovery|reconnect|timeout|timed out|abort|reset' | grep -iE 'nvme' | head -3)
	[ -z "$bad" ] || fail "g$g nvme before the port removal: $bad"
	bad=$(grep -iE 'irdma|infiniband|iw_cm|ib_core' "$d" |
		grep -iE 'fail|error|timeout|timed out|warn|unable|invalid|ae_id' | head -3)
	[ -z "$bad" ] || fail "g$g irdma says: $bad"
	bad=$(echo "$pre" | grep -iE 'nvme.*(timeout|timed out|I/O error|critical|fail)' | head -3)
	[ -z "$bad" ] || fail "g$g nvme says: $bad"
	# While the port is away the host's reconnects are refused: expected.
	bad=$(sed -n '/nvmeof-test: port/,$p' "$d" | grep -iE 'nvme.*(timeout|timed out|I/O error|critical|fail)' |
		grep -vE 'Connect rejected|connection establishment failed \(-104\)|Failed reconnect attempt' | head -3)
	[ -z "$bad" ] || fail "g$g nvme after the port removal: $bad"
	errs=$(grep -cE '^e810_rdma_(cqp|stag)_err' "$OUT/run/g$g/trace.log")
	[ "$errs" = 0 ] || fail "g$g: $errs refused RDMA ops: $(grep -m3 -E '^e810_rdma_(cqp|stag)_err' "$OUT/run/g$g/trace.log" | tr '\n' ';')"
	gerr=$(grep -iE 'rdma|iwarp|qp' "$OUT/run/g$g/qemu.log" 2>/dev/null | head -3)
	[ -z "$gerr" ] || fail "g$g: RDMA engine guest errors: $(echo "$gerr" | tr '\n' ';')"
done
for g in 0 1; do
	# Every quad hash entry irdma added (connections, the listener) is
	# deleted again by the end, or replaced by its offloaded QP.
	left=$(awk '/^e810_rdma_qhash/ { k = $5 " " $7 " " $9
		if ($3 == 0) delete live[k]; else live[k] = 1 }
		/^e810_steer_quad qhash-replaced/ { delete live["1 " $7 " " $10] }
		END { for (k in live) print k }' "$OUT/run/g$g/trace.log" | head -3)
	[ -z "$left" ] || fail "g$g: quad hash entries left (type lport rport): $(echo $left)"
done
grep -qE 'nvme nvme[0-9]+: Successfully reconnected' "$OUT/run/g1/dmesg.log" ||
	fail "g1: no reconnect after the port came back"
pass_fail
