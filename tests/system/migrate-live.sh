#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: live migration of a guest to a second QEMU on the same host
# (scripts/vm's vm-migrate), with irdma up.  RoCEv2: guest 1 moves while
# an rping -V connection runs through it; the device carries the QP and
# the connection completes with all its data verified.  iWARP: the move
# is refused while the connection is open, with the device's blocker
# message, and the connection is unharmed; once it is closed the move goes
# through.  Then, in both modes, the moved guest's RDMA link is ACTIVE and
# it serves a new rping -V connection; kernel logs clean on both guests,
# and the device's trace shows its state saved and loaded at the move.
set -u
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-50}
DURING=${DURING:-500}
for mode in ${MODES:-roce iwarp}; do
	mode_job migrate-live $mode \
		--file "$TOP/images/rootfs/usr/local/bin/vm-migrate:usr/local/bin/vm-migrate" \
		--env COUNT="$COUNT" --env DURING="$DURING" \
		--trace 'e810_migration_*' --timeout 600
	assert_output 1 '^during: data flowing'
	assert_output 1 "^during: client data lines $DURING exit 0\$"
	assert_output 0 "^during: server data lines $DURING exit 0\$"
	if [ $mode = roce ]; then
		assert_output 1 '^migrate during: rc 0 migrated g1 '
		assert_output 1 '^during: rping still running after the move'
	else
		assert_output 1 '^migrate during: rc 1 .*offloaded iWARP connection'
		assert_output 1 '^migrate idle: rc 0 migrated g1 '
		# The blocker came with the connection (the device's trace).
		grep -q '^e810_migration_blocked .*offloaded iWARP' "$OUT/run/g1/trace.log" ||
			fail "$mode: no e810_migration_blocked in g1's trace"
	fi
	assert_output 1 '^link after: .*state ACTIVE'
	assert_output 1 "^after: server data lines $COUNT exit 0\$"
	assert_output 0 "^after: client data lines $COUNT exit 0\$"
	# The move in the device's trace: its last save and the load that
	# follows, of the same size, loaded.
	mig=$(grep -E '^e810_migration_(save|load)' "$OUT/run/g1/trace.log" | tail -2 |
		sed -n 's/.*saved: \([0-9]*\) bytes/save \1/p; s/.*of \([0-9]*\) bytes loaded: ok \([01]\)/load \1 ok \2/p' |
		tr '\n' ' ')
	case $mig in
	"save "*" load "*" ok 1 ")
		set -- $mig
		[ "$2" = "$4" ] || fail "$mode: device state saved $2 bytes, loaded $4"
		;;
	*) fail "$mode: g1's trace does not end with a save and its load: '$mig'" ;;
	esac
	echo "$mode: $(grep -E '^(migrate|during|idle|after)' "$OUT/run/g1/output.log" | tr '\n' '|')"
	echo "$mode: device state at the move: $mig"
done
modes_done
pass_fail
