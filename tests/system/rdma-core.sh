#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: their rdma-core in the guests (scripts/ci --rdma-core).
# Debian's rdma-core source (the image's version) is built on the host with
# a visible marker in rping, libibverbs and the irdma provider
# (tests/tools/build-rdma-core), then used from outside as a user would:
#  - the cmake build tree, then
#  - a DESTDIR install of it (prefix /usr),
# each through scripts/ci running verified rping between the guests
# (iWARP).  Every guest must print the markers (so rping, libibverbs and the
# provider that took the device are theirs), scripts/ci's report must name
# the shared folder's libraries as the ones loaded, and none of the image's.
set -u
. "$(dirname "$0")/lib.sh"

MARK="e810 system test marker"
B=$TOP/build/rdma-core-build
I=$TOP/build/rdma-core-inst
t0=$(date +%s)
"$TOP/tests/tools/build-rdma-core" --marker "$MARK" --install "$I" "$B" > "$OUT/build.log" 2>&1 ||
	{ tail -20 "$OUT/build.log"; fail "build-rdma-core failed"; pass_fail; }
echo "rdma-core built in $(( $(date +%s) - t0 )) s"

for layout in build-tree install; do
	dir=$B
	[ $layout = install ] && dir=$I/usr
	"$TOP/scripts/ci" --rdma-core "$dir" --junit "$OUT/$layout.xml" --out "$OUT/$layout" \
		--timeout 400 "$TOP/tests/system/ci/rping-pair.sh" 3 > "$OUT/$layout.log" 2>&1
	rc=$?
	cat "$OUT/$layout.log"
	[ $rc = 0 ] || fail "$layout: scripts/ci exit $rc"
	for g in 0 1; do
		o=$OUT/$layout/run/g$g/output.log
		grep -h '^e810-ci: rdma-core' "$o" | sed "s/^/g$g $layout: /"
		grep -q "^rping: $MARK" "$o" || fail "$layout g$g: rping is not theirs (no marker)"
		grep -q "^libibverbs: $MARK" "$o" || fail "$layout g$g: libibverbs is not theirs"
		grep -q "^libirdma: $MARK irdma[0-9]" "$o" || fail "$layout g$g: the device was not taken by their provider"
		for lib in 'libibverbs\.so' 'librdmacm\.so' 'libirdma-rdmav'; do
			grep -q "^e810-ci: rdma-core: loads /mnt/rdma-core/.*$lib" "$o" ||
				fail "$layout g$g: the report does not show $lib loaded from /mnt/rdma-core"
		done
		if grep -q '^e810-ci: rdma-core: loads /usr/' "$o"; then
			fail "$layout g$g: the image's rdma-core was loaded: $(grep -m1 'loads /usr/' "$o")"
		fi
		grep -q 'couldn.t open config directory' "$o" && fail "$layout g$g: libibverbs config directory warning"
		grep -q 'job: rping exit 0, [1-9]' "$o" || fail "$layout g$g: rping did not verify"
	done
done
pass_fail
