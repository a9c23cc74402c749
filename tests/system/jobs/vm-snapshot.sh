#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-snapshot.sh: a barrier first (the host reads when the job's first
# command ran), then what the host checks: the job's environment and
# files, the link, the guest's RNG and clock, a kernel message; exit
# status EXIT1 in guest 1.
vm-barrier go || exit 1
echo "job env: FOO=$FOO mode=$E810_MODE guest=$GUEST_ID run=$RUN"
echo "file: $(cat /job/files/token)"
echo "random: $(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
echo "clock: $(date +%s)"
echo "vm-snapshot marker g$GUEST_ID run $RUN" > /dev/kmsg
dev=$(net-up) || exit 1
vm-barrier net
ping -c 2 -W 5 "$PEER_IP" > /tmp/ping.log 2>&1 && echo "ping $PEER_IP over $dev: ok" || cat /tmp/ping.log
[ "$GUEST_ID" = 1 ] && exit "${EXIT1:-0}"
exit 0
