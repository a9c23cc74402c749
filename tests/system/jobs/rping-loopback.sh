#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rping-loopback.sh: rping client and server on this guest's own address,
# COUNT verified pings.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
rping -s -a $GUEST_IP -v -V -C $COUNT > /tmp/srv.log 2>&1 &
spid=$!
listen_wait server || exit 1
rc=0
timeout 60 rping -c -a $GUEST_IP -v -V -C $COUNT || rc=$?
echo "rping client exit $rc"
src=0; wait $spid || src=$?
cat /tmp/srv.log
echo "rping server exit $src"
