#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A scripts/ci job (docs/ci.md, "Recipes"): blktests' nvme group over the
# job's RDMA device, NVMe/RDMA target and host in one guest (traddr the
# guest's own address).  The e810 in either mode, or a reference (--rdma
# rxe|siw); blktests' own soft-RDMA set-up leaves a netdev that already has
# an RDMA device alone, so the device scripts/ci brought up is the one used.
# Its per-test results become a JUnit file in $JUNIT_DIR.
#
#   git clone https://github.com/linux-blktests/blktests && make -C blktests/src -k
#   scripts/ci --guests 1 --mode roce --extras --mem 1536 --timeout 3600 \
#       --packages bash,kmod,util-linux,coreutils,e2fsprogs,xfsprogs,gawk,grep,sed,procps,findutils,diffutils,gzip,udev,libc-bin,bsdextrautils,mount,uuid-runtime \
#       --kmods null_blk,loop,nvme_loop,nvmet_tcp --share blktests \
#       --junit report.xml tests/recipes/blktests-nvme.sh [TEST...]
#
# ARGs: the tests (default: the whole nvme group).
set -u
cd "$SHARE" || { echo "recipe: no blktests at \$SHARE (--share DIR)"; exit 1; }
[ -x ./check ] || { echo "recipe: $SHARE is not a blktests checkout"; exit 1; }
if [ -e /job/files/siw.ko ]; then
	# scripts/ci --rdma siw's module: blktests loads siw by name.
	mkdir -p "/usr/lib/modules/$(uname -r)/extra"
	cp /job/files/siw.ko "/usr/lib/modules/$(uname -r)/extra/"
	depmod -a
else
	export USE_RXE=1
fi
cat > config <<CFG
NVMET_TRTYPES=rdma
CFG
# Results and the tests' scratch files in the guest's tmpfs (a loop device
# over a file on the 9p share has no discard: nvme/019 fails there), then
# copied to the share.
rm -rf results /tmp/blktests-results
./check -o /tmp/blktests-results "${@:-nvme}"
rc=$?
echo "recipe: ./check exit $rc"
cp -a /tmp/blktests-results results 2>/dev/null
find results -name 'tmpdir.*' -prune -exec rm -rf {} + 2>/dev/null
# Per test, results/<dev>/nvme/NNN holds "key<TAB>value" lines: status
# (pass, fail, not run), reason...  One JUnit test case each.
awk -F '\t' -v out="$JUNIT_DIR/blktests.xml" '
	FNR == 1 { n = split(FILENAME, p, "/"); t = p[n - 1] "/" p[n]; names[t] = 1 }
	$1 == "status" { st[t] = $2 }
	$1 == "reason" { gsub(/[<>&"]/, "", $2); why[t] = $2 }
	END {
		print "<?xml version=\"1.0\"?>" > out
		print "<testsuites><testsuite name=\"blktests\">" > out
		for (t in names) {
			printf "<testcase classname=\"blktests\" name=\"%s\" time=\"0\">", t > out
			if (st[t] == "fail") printf "<failure message=\"fail\"/>" > out
			else if (st[t] != "pass") printf "<skipped message=\"%s\"/>", why[t] > out
			print "</testcase>" > out
		}
		print "</testsuite></testsuites>" > out
	}' results/*/nvme/[0-9][0-9][0-9]
echo "recipe: $(grep -h '^status' results/*/nvme/[0-9][0-9][0-9] 2>/dev/null | cut -f2 | sort | uniq -c | tr -s ' \n' ' ')"
for f in results/*/nvme/[0-9][0-9][0-9]; do
	echo "recipe: ${f#results/*/} $(sed -n 's/^status\t//p' "$f")"
done
exit $rc
