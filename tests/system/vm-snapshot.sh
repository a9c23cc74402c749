#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: scripts/vm --mode's snapshots, on two virtio guests with
# --mode boot (the mechanism, whatever the NIC; iwarp-rping and roce-rping
# start e810 pairs from snapshots in both modes).  In a snapshot folder of
# its own (E810_SNAPSHOTS):
#  - the first run boots, saves both guests and goes on into its job;
#  - the second starts from the snapshot: the job runs with its own
#    environment and files, the output, dmesg and status ports work (a
#    non-zero status too), the link is there again, dmesg.log and
#    console.log begin with the boot, the guests' RNG differs from the
#    first run's and from each other's, their clock is the host's;
#  - a changed input (the kernel command line) makes another snapshot;
#  - a snapshot QEMU refuses (its stream's header overwritten) and one
#    whose file changed (a byte flipped in the RAM: the CRC) are
#    reported, the guests boot fresh, a new snapshot replaces them;
#  - while another run holds a key's lock, a run boots fresh and saves
#    nothing.
# The time from scripts/vm's start to the job's first command is printed
# for the runs with and without the snapshot.
set -u
. "$(dirname "$0")/lib.sh"

export E810_SNAPSHOTS=$OUT/snapshots
echo "token-$$" > "$OUT/token"

# pair NAME ARGS...: the job on two guests (--mode boot); scripts/vm's
# log in $OUT/NAME.log, its snapshot notes in $OUT/NAME.snap, the
# guests' files in $OUT/NAME/.
pair() {
	local name=$1
	shift
	vm_job vm-snapshot --guests 2 --mode boot --file "$OUT/token" --env FOO=bar \
		--env RUN="$name" --timeout 300 "$@" 2> "$OUT/$name.log"
	cat "$OUT/$name.log" >&2
	cp "$OUT/run/snapshot.log" "$OUT/$name.snap" 2>/dev/null || : > "$OUT/$name.snap"
	rm -rf "${OUT:?}/$name"
	cp -r "$OUT/run" "$OUT/$name"
}

# re NAME: the snapshot NAME as a regex (it has dots and a plus).
re() {
	sed 's/[.+]/\\&/g' <<< "$1"
}

# snap_note NAME REGEX: the run's snapshot notes have a line matching.
snap_note() {
	grep -qE -- "$2" "$OUT/$1.snap" || fail "$1: no snapshot note matching '$2': $(tr '\n' ';' < "$OUT/$1.snap")"
}

# job_ok NAME [G1-STATUS]: both jobs ran as expected.
job_ok() {
	local g
	assert_status 0 0
	assert_status 1 "${2:-0}"
	for g in 0 1; do
		assert_output $g "^job env: FOO=bar mode=boot guest=$g run=$1\$"
		assert_output $g "^file: token-$$\$"
		assert_output $g "^ping 10\.0\.0\.$((2 - g)) over .*: ok\$"
		grep -q "vm-snapshot marker g$g run $1\$" "$OUT/run/g$g/dmesg.log" ||
			fail "$1: g$g's kernel message not in dmesg.log"
		grep -q '] Linux version ' "$OUT/run/g$g/dmesg.log" ||
			fail "$1: g$g's boot messages not in dmesg.log"
		grep -q 'e810-init: bring-up boot exit 0 ' "$OUT/run/g$g/console.log" ||
			fail "$1: g$g's console.log lacks the bring-up"
		assert_clean_dmesg $g
	done
	[ "${2:-0}" = 0 ] || VM_RC=0
}

# first NAME: seconds from scripts/vm's start to the job's first command
# (the later guest's arrival at barrier "go").
first() {
	sed -n 's/^vm: g[01] at barrier go (+\([0-9.]*\) s)$/\1/p' "$OUT/$1.log" | sort -n | tail -1
}

# A: no snapshot yet: made after the bring-up, the job goes on.
pair A
snap_note A '^made boot-2g-.* in [0-9.]+ s \(saving'
job_ok A
snapA=$(sed -n 's/^made \(boot-2g-[^ ]*\) .*/\1/p' "$OUT/A.snap")
[ -f "$E810_SNAPSHOTS/$snapA/g0.mig" ] && [ -f "$E810_SNAPSHOTS/$snapA/g1.mig" ] ||
	fail "A: no snapshot files in $E810_SNAPSHOTS/$snapA"

# B: from the snapshot; guest 1's job exits 3.
pair B --env EXIT1=3
snap_note B "^used $(re "$snapA") "
job_ok B 3
for g in 0 1; do
	grep -q "restored from snapshot $snapA" "$OUT/B/g$g/console.log" || fail "B: g$g console.log lacks the restore"
	ra=$(sed -n 's/^random: //p' "$OUT/A/g$g/output.log")
	rb=$(sed -n 's/^random: //p' "$OUT/B/g$g/output.log")
	[ -n "$rb" ] && [ "$ra" != "$rb" ] || fail "B: g$g's RNG gave what it gave in A ($rb)"
	c=$(sed -n 's/^clock: //p' "$OUT/B/g$g/output.log")
	[ -n "$c" ] && [ $(( $(date +%s) - c )) -lt 120 ] && [ $(( c - $(date +%s) )) -lt 5 ] ||
		fail "B: g$g's clock says $c, the host $(date +%s)"
done
[ "$(sed -n 's/^random: //p' "$OUT/B/g0/output.log")" != "$(sed -n 's/^random: //p' "$OUT/B/g1/output.log")" ] ||
	fail "B: both guests' RNG gave the same"
echo "job's first command: +$(first A) s booting (run A), +$(first B) s from the snapshot (run B)"
echo "snapshot $snapA: $(du -m "$E810_SNAPSHOTS/$snapA"/g0.mig | cut -f1) MB + $(du -m "$E810_SNAPSHOTS/$snapA"/g1.mig | cut -f1) MB on disk"

# C: another kernel command line, another snapshot.
pair C --append vmsnap.test=1
snap_note C '^made boot-2g-'
job_ok C
snapC=$(sed -n 's/^made \(boot-2g-[^ ]*\) .*/\1/p' "$OUT/C.snap")
[ -n "$snapC" ] && [ "$snapC" != "$snapA" ] || fail "C: no new snapshot ($snapC)"

# D: A's guest 0 stream with its header overwritten: QEMU refuses it.
printf 'not a stream....' | dd of="$E810_SNAPSHOTS/$snapA/g0.mig" conv=notrunc status=none
pair D
snap_note D "^$(re "$snapA") removed \(it did not load: g0: .*\): booting fresh, making it again\$"
snap_note D "^made $(re "$snapA") "
job_ok D

# E: a byte of C's guest 1 RAM flipped: QEMU loads it, the CRC does not.
f=$E810_SNAPSHOTS/$snapC/g1.mig
off=$(( $(stat -c %s "$f") / 2 ))
b=$(dd if="$f" bs=1 skip=$off count=1 status=none | od -An -tu1 | tr -d ' ')
printf "\\$(printf %03o $(( (b ^ 0x40) & 255 )))" | dd of="$f" bs=1 seek=$off conv=notrunc status=none
pair E --append vmsnap.test=1
# (Should the byte be in a page's header, QEMU refuses it first.)
snap_note E "^$(re "$snapC") removed \(it did not load: (g1\.mig: CRC differs from the saved one|g1: .*)\)"
snap_note E "^made $(re "$snapC") "
job_ok E

# F: another run holds the key's lock (A's, its snapshot gone): this one
# boots fresh and saves nothing.
rm -rf "${E810_SNAPSHOTS:?}/$snapA"
exec 8> "$E810_SNAPSHOTS/$snapA.lock"
flock -x 8
pair F
exec 8>&-
snap_note F "^$(re "$snapA") is being made by another run: booting fresh, nothing saved\$"
job_ok F
[ ! -e "$E810_SNAPSHOTS/$snapA" ] || fail "F: $snapA made while another run held its lock"
pass_fail
