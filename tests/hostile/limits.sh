#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# limits.sh: fair shares (issue 12, point 2), the entries of a table.  A
# user's table may hold at most max-entries entries: ctab refuses a
# larger one, naming the limit, and keeps the installed table; the log
# tells the administrator who hit it.  A spool file over the limit (put
# there by hand, or by a limit lowered since) is ignored as a whole, with
# a log line, while another user's table runs on.  output-max cannot
# be set above what the store keeps of a run's output.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
U=ccli$$
dmn_useradd "$U" "$T/home/$U"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

dmn_setup wide <<EOF
output-max = 8M
EOF
run "$CLUSTERCRON" -f -c "$T/wide/clustercron.conf"
same "output-max above what the store keeps: refused" "$rc" 1
contains "... naming the file, the line and the bound" "$err" \
    "wide/clustercron.conf:[0-9]+: output-max: .* to 4194304 bytes, not \"8M\""

dmn_setup a <<EOF
max-entries = 3
EOF
# Over the limit from the start: root's spool file, four entries.
{
	echo "CLUSTERCRON_SECONDS=yes"
	for i in 1 2 3 4; do
		echo "* * * * * * echo $i >>$O/root"
	done
} >"$T/a/spool/root"
chmod 600 "$T/a/spool/root"
dmn_start a
export CTAB_SOCKET="$T/a/sock"
as() { _u=$1; shift; runuser -u "$_u" -- env CTAB_SOCKET="$CTAB_SOCKET" "$@"; }

contains "a spool file over the limit is ignored, and the log says so" \
    "$(cat "$T/a.log")" \
    "\\(root\\) LIMIT \\(.*spool/root: 4 entries, more than max-entries 3: table ignored\\)"

cat >"$T/good" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * date >>$O/\$LOGNAME
# three entries: at the limit
0 0 1 1 * * true
0 0 2 1 * * true
EOF
chmod 644 "$T/good"
run as "$U" "$CTAB" "$T/good"
same "a table at the limit is installed" "$rc$err" 0

{ cat "$T/good"; echo "0 0 3 1 * * true"; } >"$T/big"
chmod 644 "$T/big"
run as "$U" "$CTAB" "$T/big"
same "a table over the limit is refused" "$rc" 1
contains "... naming the limit" "$err" \
    "table has 4 entries, more than the 3 allowed \\(max-entries\\)"
run as "$U" "$CTAB" -l
same "... and the installed table is untouched" "$out" "$(cat "$T/good")"
contains "the log says who hit the limit" "$(cat "$T/a.log")" \
    "\\($U\\) LIMIT \\(table of $U refused: 4 entries, max-entries 3\\)"

# The good table runs; the ignored one has had as long and ran nothing.
wait_for 15 at_least 3 "$O/$U" || fail "$U's every-second job does not run"
[ -e "$O/root" ] && fail "the table over the limit ran: $(head -3 "$O/root")"
finish
