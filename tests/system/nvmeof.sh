#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: NVMe over Fabrics over iWARP (or RoCEv2: NVMEOF_MODE=roce,
# nvmeof-roce.sh) between two guests on the emulated E810, with the guest
# kernel's own modules.  Guest 0 is the
# target (nvmet + nvmet-rdma, a brd ramdisk as namespace 1, port 4420 on
# its e810 address, configured through configfs); guest 1 the host
# (nvme-rdma through nvme-cli: one I/O queue per vCPU, queue depth 128).
# The host runs fio with data verification (sequential 128 KiB and random
# 4 KiB, write then read, iodepth > 1, two jobs each) and writes 64 MiB
# through the block device that it reads back and the target reads from
# its ramdisk: all three checksums must match.  A controller reset
# (sysfs reset_controller) in the middle of a verified random-write run
# that reuses every MR of the queues many times: fio must not see an
# error, nor the log an AE or error recovery.  Then disconnect and
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
MODE=${NVMEOF_MODE:-iwarp}

vm_job nvmeof --guests 2 --nic e810 --mem 1024 --smp 2 --extras --mode "$MODE" \
	--env SEQ_MB="$SEQ_MB" --env RAND_MB="$RAND_MB" --env PORT_DOWN="$PORT_DOWN" \
	--file "$TOP/guest-driver/nvmeof" \
	--trace 'e810_rdma_cqp_err' --trace 'e810_rdma_stag_err' --trace 'e810_rdma_qhash' --trace 'e810_steer_quad' \
	--qemu-arg '-d guest_errors' --timeout 900

H=$OUT/run/g1/output.log
assert_ulp_guests
for p in seqwrite seqread randwrite randread reset seqread2 flap afterflap; do
	assert_output 1 "^fio $p exit 0: "
	grep "^fio $p exit" "$H" | head -1
done
pm=$(sed -n 's/^pattern md5 //p' "$H")
rm=$(sed -n 's/^readback md5 //p' "$H")
tm=$(sed -n 's/^target md5 //p' "$OUT/run/g0/output.log")
echo "md5: pattern $pm readback $rm target $tm"
[ -n "$pm" ] && [ "$pm" = "$rm" ] && [ "$pm" = "$tm" ] || fail "64 MiB pattern: md5 $pm, read back $rm, on the target $tm"
assert_output 1 '^reconnected$'
assert_output 1 '^controller reset: live after '
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
	# (The job's own marks, "nvmeof-test: controller reset", aside.)
	bad=$(echo "$pre" | grep -v 'nvmeof-test: ' |
		grep -iE 'error recovery|reconnect|timeout|timed out|abort|reset' | grep -iE 'nvme' | head -3)
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
	assert_no_trace $g '^e810_rdma_(cqp|stag)_err' "refused RDMA ops"
	assert_no_rdma_gerr $g
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
