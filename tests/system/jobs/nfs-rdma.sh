#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nfs-rdma.sh: guest 0 exports a tmpfs over NFS/RDMA, guest 1 mounts it;
# a FILE_MB MiB file copied each way and compared, also after a remount.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
dev=$(rdma_active)
res() { rdma_res_ulp $dev; }
baseline() { res_baseline res "$before"; }
md5() { md5sum < "$1" | cut -d' ' -f1; }
before=$(res)
echo "res before: $before"
rc=0
if [ $GUEST_ID = 0 ]; then
	modprobe nfsd && modprobe rpcrdma || { echo "modprobe failed"; vm-barrier up; exit 1; }
	mkdir -p /proc/fs/nfsd /export /var/lib/nfs /run/rpc_pipefs
	mount -t nfsd nfsd /proc/fs/nfsd || { echo "nfsd fs"; vm-barrier up; exit 1; }
	mount -t tmpfs -o size=256m tmpfs /export
	# No state to recover: the shortest lease and grace times.
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	echo "/export $PREFIX/24(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" > /etc/exports
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	rpc.mountd -N 2 -N 3 || { echo "rpc.mountd failed"; rc=1; }
	exportfs -ra || { echo "exportfs failed"; rc=1; }
	exportfs -v
	rpc.nfsd -N 3 -V 4.2 -p 2049 --rdma=20049 4 || { echo "rpc.nfsd failed"; rc=1; }
	echo "portlist: $(cat /proc/fs/nfsd/portlist | tr '\n' ' ')"
	dd if=/dev/urandom of=/export/from-server bs=1M count=$FILE_MB 2>/dev/null
	echo "server file md5 $(md5 /export/from-server)"
	vm-barrier up
	vm-barrier copied
	echo "client file on server md5 $(md5 /export/from-client)"
	vm-barrier compared
	vm-barrier unmounted
	rpc.nfsd 0
	exportfs -ua
	baseline
	exit $rc
fi
vm-barrier up
modprobe nfsv4 && modprobe rpcrdma || { echo "modprobe failed"; exit 1; }
mkdir -p /mnt/nfs
t0=$(uptime_s)
mount.nfs4 $PEER_IP:/ /mnt/nfs -o proto=rdma,port=20049,vers=4.2 || { echo "mount failed"; vm-barrier copied; exit 1; }
echo "mounted after $(since $t0) s"
grep ' /mnt/nfs ' /proc/mounts
grep -A3 'mounted on /mnt/nfs' /proc/self/mountstats | grep -E 'xprt|transport' | head -2
grep -q ' /mnt/nfs nfs4 .*proto=rdma' /proc/mounts && echo "transport rdma"
echo "during mount: res $(res)"
dd if=/dev/urandom of=/tmp/from-client bs=1M count=$FILE_MB 2>/dev/null
echo "client file md5 $(md5 /tmp/from-client)"
t0=$(uptime_s)
cp /tmp/from-client /mnt/nfs/from-client && sync || { echo "copy to server failed"; rc=1; }
t1=$(uptime_s)
cp /mnt/nfs/from-server /tmp/from-server || { echo "copy from server failed"; rc=1; }
t2=$(uptime_s)
awk -v a=$t0 -v b=$t1 -v c=$t2 -v n=$FILE_MB 'BEGIN { printf "write %.1f MB/s, read %.1f MB/s\n", n * 1.048576 / (b - a), n * 1.048576 / (c - b) }'
echo "server file at client md5 $(md5 /tmp/from-server)"
rm -f /tmp/from-server
vm-barrier copied
umount /mnt/nfs || { echo "umount failed"; rc=1; }
mount.nfs4 $PEER_IP:/ /mnt/nfs -o proto=rdma,port=20049,vers=4.2 || { echo "remount failed"; rc=1; }
echo "remount: client file md5 $(md5 /mnt/nfs/from-client), server file md5 $(md5 /mnt/nfs/from-server)"
ls -l /mnt/nfs
vm-barrier compared
umount /mnt/nfs || { echo "umount failed"; rc=1; }
vm-barrier unmounted
baseline
exit $rc
