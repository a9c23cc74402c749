#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the launcher side of the out-of-process e810
# (docs/vfio-user.md, "Running with a stock QEMU").
#  1. the stock QEMUs (Debian's 11.1 from scripts/stock-qemu; the stock
#     build too when build/qemu-build-stock has it) list vfio-user-pci and
#     no e810;
#  2. a guest boots on Debian's stock QEMU with no NIC and runs its job;
#  3. scripts/vm --dry-run --device-backend vfio-user prints each server
#     before its QEMU, with the shared memfd and the vfio-user-pci device;
#  4. a server that says it listens but binds nothing: QEMU refuses the
#     device at once and scripts/vm reports it (qemu-crashed, "qemu refused
#     the vfio-user device", QEMU's "Failed to connect" line);
#  5. with e810-vfio-user (tests/system/lib.sh vfu_server):
#     two guests ping over their e810s out of process (ice-ping's job),
#     the capture comes from guest 0's server.
# Usage: tests/system/vfio-user-launch.sh   (needs root the first time:
# scripts/stock-qemu's chroot)
set -u
. "$(dirname "$0")/lib.sh"

Q=$("$TOP/scripts/stock-qemu" --which debian) || { fail "scripts/stock-qemu --which debian failed"; pass_fail; }
QS=("$Q")
[ -x "$TOP/build/qemu-build-stock/qemu-system-x86_64" ] && QS+=("$TOP/build/qemu-build-stock/qemu-system-x86_64")
for q in "${QS[@]}"; do
	devs=$("$q" -nodefaults -machine none -device help 2>&1)
	grep -q 'name "vfio-user-pci"' <<<"$devs" || fail "$q: no vfio-user-pci"
	! grep -q 'name "e810"' <<<"$devs" || fail "$q: has an e810 (not stock)"
done

# 2. a plain boot on Debian's QEMU.
printf '#!/bin/sh\necho "stock-ok $(uname -r)"\n' >"$OUT/job.sh"
vm_run --qemu "$Q" --nic none --script "$OUT/job.sh" --timeout 120
assert_status 0 0
assert_output 0 '^stock-ok '
grep -q "^$Q " "$OUT/run/g0/cmdline" || fail "g0 did not run $Q"

# 3. the command lines.
"$VM" --dry-run --qemu "$Q" --device-backend vfio-user --guests 2 --nic e810 \
	--vfu-server /opt/e810-vfio-user --pcap "$OUT/x.pcap" --trace 'e810_*' \
	--script "$OUT/job.sh" --out "$OUT/dry" >"$OUT/dry.txt" 2>&1 || fail "--dry-run exit $?"
order=$(grep '^/' "$OUT/dry.txt" | awk '{ print ($1 == "/opt/e810-vfio-user") ? "s" : "q" }' | tr -d '\n')
[ "$order" = sqsq ] || fail "dry-run order '$order', expected server, QEMU, server, QEMU"
grep -q -- '--link-listen .*net.sock .*--pcap .*--trace' "$OUT/dry.txt" || fail "g0's server: no --link-listen/--pcap/--trace"
grep -q -- '--link-connect .*net.sock' "$OUT/dry.txt" || fail "g1's server: no --link-connect"
[ "$(grep -c -- '-object memory-backend-memfd,id=mem0,size=512M,share=on' "$OUT/dry.txt")" = 2 ] ||
	fail "no shared memfd in both QEMUs"
[ "$(grep -c -- 'q35,memory-backend=mem0' "$OUT/dry.txt")" = 2 ] || fail "machine without memory-backend"
[ "$(grep -c '"driver":"vfio-user-pci","socket":{"type":"unix","path":"[^"]*vfu-g[01].sock"},"bus":"rp0"' \
	"$OUT/dry.txt")" = 2 ] || fail "no vfio-user-pci device in both QEMUs"
! grep -q -- '-device e810\|filter-dump\|-netdev' "$OUT/dry.txt" || fail "QEMU still has the e810, its netdev or filter-dump"

# 4. QEMU refuses a socket nobody listens on; the launcher says so.
cat >"$OUT/mute-server" <<'EOF'
#!/bin/sh
echo "e810-vfio-user: listening on $2" >&2
exec sleep 30
EOF
chmod +x "$OUT/mute-server"
"$VM" --out "$OUT/refuse" --qemu "$Q" --device-backend vfio-user --nic e810 \
	--vfu-server "$OUT/mute-server" --script "$OUT/job.sh" --timeout 60 >"$OUT/refuse.txt" 2>&1
rc=$?
[ $rc = 1 ] || fail "refused device: scripts/vm exit $rc, expected 1"
[ "$(cat "$OUT/refuse/g0/status" 2>/dev/null)" = qemu-crashed ] ||
	fail "refused device: status '$(cat "$OUT/refuse/g0/status" 2>/dev/null)', expected qemu-crashed"
grep -q 'qemu refused the vfio-user device (exit 1)' "$OUT/refuse.txt" || fail "no 'qemu refused' line"
grep -q "Failed to connect to '.*vfu-g0.sock'" "$OUT/refuse.txt" || fail "QEMU's error not shown"
pgrep -f "$OUT/mute-server" >/dev/null && fail "the mute server was left running"

# 5. with the server: ice over e810 out of process.
if vfu_server; then
	SERVER=$E810_VFU_SERVER
	vm_job ice-ping --qemu "$Q" --device-backend vfio-user --vfu-server "$SERVER" \
		--guests 2 --nic e810 --pcap "$OUT/link.pcap" --timeout 300
	for g in 0 1; do
		assert_status $g 0
		assert_output $g '^200 packets transmitted, 200 packets received, 0% packet loss'
		grep -q 'e810-vfio-user: listening on' "$OUT/run/g$g/vfu.log" || fail "g$g: no server line"
	done
	[ -s "$OUT/link.pcap" ] || fail "no capture from guest 0's server"
fi
pass_fail
