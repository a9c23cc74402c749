#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: scripts/demo ends with the ladder diagram of the first iWARP
# connection and writes the report.  Runs the demo once (into this test's
# directory) and checks:
#  - the demo succeeded, the text diagram fits 100 columns and has no colour
#    codes (stdout is not a terminal here);
#  - report.html exists, is self-contained (no external resource), holds the
#    ladder as inline SVG naming every step: TCP SYN, SYN-ACK, the MPA request
#    and reply with their fields (revision, CRC, markers, peer-to-peer,
#    IRD/ORD, RTR type), the RTR, the first SEND, RDMA WRITE, RDMA READ
#    request and response, the close (FIN/RST);
#  - driver functions from both guests' ftrace on the diagram (the active
#    side's irdma_send_mpa_request, the passive side's irdma_accept or an
#    iw_cm event), each guest's clock aligned;
#  - the throughput plot (inline SVG) and the versions (QEMU, kernel,
#    rdma-core, DDP package).
set -u
. "$(dirname "$0")/lib.sh"

OUT=$OUT/demo "$TOP/scripts/demo" > "$OUT/demo.log" 2>&1
VM_RC=$?
D=$OUT/demo
R=$D/report.html
[ $VM_RC = 0 ] || tail -30 "$OUT/demo.log"

# The text diagram: from its title to the "Report:" line.
sed -n '/^The first iWARP connection:/,/^Report: /p' "$OUT/demo.log" > "$OUT/ladder.txt"
[ -s "$OUT/ladder.txt" ] || fail "no ladder diagram in the demo's output"
wide=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' \
	"$OUT/ladder.txt")
[ "$wide" = 0 ] || fail "$wide diagram lines wider than 100 columns"
! grep -q $'\033' "$OUT/demo.log" || fail "colour codes in the demo's output (not a terminal)"
for s in 'TCP SYN' 'MPA Request' 'MPA Reply' 'RTR' 'SEND' 'RDMA WRITE' 'RDMA READ Request' \
	'RDMA READ Response' 'irdma_send_mpa_request'; do
	grep -q -- "$s" "$OUT/ladder.txt" || fail "text diagram lacks '$s'"
done

[ -s "$R" ] || { fail "no $R"; pass_fail; }
grep -q '<svg[^>]*class="ladder"' "$R" || fail "no inline SVG ladder"
grep -q '<svg[^>]*class="throughput"' "$R" || fail "no inline SVG throughput plot"
grep -q '<polyline points="[0-9]' "$R" || fail "throughput plot has no data"
! grep -qiE '(src|href)="(https?:)?//|@import|url\(http' "$R" || fail "report loads external resources"
for step in syn syn-ack mpa-request mpa-reply rtr send write read-request read-response close; do
	grep -q "data-step=\"$step\"" "$R" || fail "ladder lacks step '$step'"
done
# The MPA frames' fields, as the diagram prints them (on the request and the reply).
for field in 'rev 2' 'CRC on' 'markers off' 'peer-to-peer \(P2P\) yes' 'IRD [0-9]+ ORD [0-9]+' 'RTR type [A-Z]'; do
	n=$(grep -cE -- "$field" "$R")
	[ "$n" -ge 2 ] || fail "MPA field '$field' on $n lines of the report, expected >= 2"
done
grep -qE '>(TCP FIN|TCP FIN, ACK|TCP RST|TCP RST, ACK)<' "$R" || fail "no FIN/RST arrow"
grep -qE 'RTR: .*<|zero-length' "$R" || fail "RTR not shown as a zero-length operation"
# Driver functions from both sides, both clocks aligned.
grep -qE '>irdma_send_mpa_request\*?<' "$R" || fail "active side's irdma_send_mpa_request not on the diagram"
grep -qE '>(irdma_accept|irdma_handle_rcv_mpa|iw_cm: CONNECT_REQUEST)<' "$R" ||
	fail "no passive-side driver entry on the diagram"
n=$(grep -o 'guest clock + [0-9.]* s = capture clock' "$R" | wc -l)
[ "$n" = 2 ] || fail "$n of 2 guest clocks aligned"
for v in 'QEMU' 'guest kernel' 'rdma-core' 'DDP package'; do
	grep -q "<th>$v</th>" "$R" || fail "report lacks the $v version"
done
echo "demo-report: $(grep -c 'class="step"' "$R") steps, $(grep -c 'class="func"' "$R") driver entries;" \
	"$(grep -o 'guest clock + [^=]*= capture clock[^,]*' "$R" | sed 's/ = capture clock//' | paste -sd ';' | sed 's/;/; /g')"
pass_fail
