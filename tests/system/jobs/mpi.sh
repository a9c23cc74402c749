#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mpi.sh: the guest side of tests/system/mpi.sh.  Every guest runs an ssh
# server (dropbear, the run's key from /job/files) for Open MPI's launcher
# and reports its RDMA device's octet counters before and after; guest 0
# runs mpi-check on all NGUESTS guests (one rank each) through libfabric's
# verbs;ofi_rxm provider (pml cm, mtl ofi: no fallback to TCP; MPI_Init
# fails instead), over the e810's irdma device in $MODE.
. /job/files/lib.sh
mkdir -p /root/.ssh /etc/dropbear
cp /job/files/mpi-key /root/.ssh/id_ed25519
cp /job/files/mpi-key.pub /root/.ssh/authorized_keys
chmod 700 /root/.ssh
chmod 600 /root/.ssh/id_ed25519 /root/.ssh/authorized_keys
dropbear -R -E -p 22 2> /tmp/dropbear.log &
dev=$(rdma_active 30) || { echo "no ACTIVE RDMA device"; exit 1; }
octets() {
	rdma statistic show link "$dev/1" | tr ' ' '\n' |
		awk '$0 == "ip4OutOctets" || $0 == "ip4InOctets" { n = $0; next } n { print n, $0; n = "" }' |
		tr '\n' ' '
}
echo "counters before: $(octets)"
vm-barrier sshd-up
rc=0
if [ "$GUEST_ID" = 0 ]; then
	hosts=$(i=0; while [ $i -lt "$NGUESTS" ]; do printf 'g%d:1,' $i; i=$((i + 1)); done)
	RSH="ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
	timeout 600 mpirun --allow-run-as-root -np "$NGUESTS" --host "${hosts%,}" \
		--mca plm_rsh_agent "$RSH" --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include "verbs;ofi_rxm" \
		python3 /job/files/mpi-check.py "${BYTES:-1048576}" "${ROUNDS:-10}" > /tmp/mpi.log 2>&1
	rc=$?
	cat /tmp/mpi.log
	echo "mpirun exit $rc"
fi
vm-barrier mpi-done
echo "counters after: $(octets)"
exit $rc
