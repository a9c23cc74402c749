#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: NFS over RDMA (RPC-over-RDMA, RFC 8166/8267) over iWARP
# between two guests on the emulated E810, the second kernel ULP next to
# NVMe-oF: svcrdma on the server, xprtrdma on the client, both from the
# guest kernel.  Guest 0 exports a tmpfs with the kernel NFS server
# (trixie's nfs-kernel-server: exportfs, rpc.mountd for the export cache,
# rpc.nfsd with an RDMA listener on port 20049, NFSv4.2 only, no rpcbind);
# guest 1 mounts it with mount.nfs4 -o proto=rdma.  The client copies a
# FILE_MB (default 48) MiB random file to the server and the server one to
# the client; checksums must match on both sides, also after a remount (no
# client cache).  The mount must be on RDMA (/proc/mounts, mountstats),
# `rdma res` back to its baseline after umount / server stop, kernel logs
# clean.
set -u
. "$(dirname "$0")/lib.sh"

FILE_MB=${FILE_MB:-48}

vm_job nfs-rdma --guests 2 --nic e810 --mem 1024 --smp 2 --extras --mode iwarp \
	--env PREFIX=10.0.0.0 --env FILE_MB="$FILE_MB" \
	--trace 'e810_rdma_cqp_err' --trace 'e810_rdma_stag_err' --qemu-arg '-d guest_errors' --timeout 600

S=$OUT/run/g0/output.log
C=$OUT/run/g1/output.log
assert_ulp_guests
assert_output 1 '^transport rdma$'
assert_output 0 '^portlist: .*rdma 20049'
grep -E '^(mounted|write|portlist)' "$S" "$C" | sed 's|.*/g\(.\)/output.log:|g\1: |'
cm=$(sed -n 's/^client file md5 //p' "$C")
sm=$(sed -n 's/^server file md5 //p' "$S")
cs=$(sed -n 's/^client file on server md5 //p' "$S")
sc=$(sed -n 's/^server file at client md5 //p' "$C")
rem=$(sed -n 's/^remount: //p' "$C")
echo "md5: client $cm -> server $cs; server $sm -> client $sc; after remount: $rem"
[ -n "$cm" ] && [ "$cm" = "$cs" ] || fail "client -> server copy: md5 $cm, on the server $cs"
[ -n "$sm" ] && [ "$sm" = "$sc" ] || fail "server -> client copy: md5 $sm, at the client $sc"
[ "$rem" = "client file md5 $cm, server file md5 $sm" ] || fail "after remount: $rem"
# The server runs without NFSv4 client recovery tracking: Debian's 7.3
# kernel has no legacy tracking, and nfsdcld started before nfsd never saw
# its upcall pipe appear in rpc_pipefs here (open fails with ENOENT, no
# inotify wake-up), so nfsd says so once and carries on; it matters only
# for reclaiming state after a server reboot, which this test does not do.
NFSD_EXPECTED='NFSD: Unable to initialize client recovery tracking! \(-110\)|NFSD: Is nfsdcld running'
for g in 0 1; do
	d=$OUT/run/g$g/dmesg.log
	bad=$(grep -iE 'irdma|infiniband|iw_cm|ib_core|rpcrdma|svcrdma|xprtrdma|nfs' "$d" |
		grep -iE 'fail|error|timeout|timed out|warn|unable|invalid|ae_id|not responding' |
		grep -vE "$NFSD_EXPECTED" | head -3)
	[ -z "$bad" ] || fail "g$g kernel says: $bad"
	assert_no_trace $g '^e810_rdma_(cqp|stag)_err' "refused RDMA ops"
	assert_no_rdma_gerr $g
done
pass_fail
