# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# trim.sh: bounded store (issue 12, point 3), sourced by trim-sqlite.sh
# and trim-mysql.sh once lib.sh is loaded and the store chosen.  Two
# hostile users fill the store as fast as their tables let them: one
# writes large outputs (within output-max) four times a second, the
# other runs three jobs a second.  What the store keeps of each stays
# under history-max-output-per-user and history-max-runs-per-user,
# trimmed oldest first every history-trim-interval, while a good user's
# history is untouched.  The store is read through ccstore usage.

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
B=cctb$$	# large outputs
C=cctc$$	# many runs
G=cctg$$	# good
mkdir -p "$T/home"
for u in $B $C $G; do
	dmn_useradd "$u" "$T/home/$u"
done
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"
MAXOUT=1048576
MAXRUNS=30

dmn_setup a <<EOF
output-max = 64K
history-max-output-per-user = 1M
history-max-runs-per-user = $MAXRUNS
history-trim-interval = 1s
EOF
table() {
	cat >"$T/a/spool/$1"
	chown "$1" "$T/a/spool/$1"
	chmod 600 "$T/a/spool/$1"
}
{
	printf 'CLUSTERCRON_SECONDS=yes\nMAILTO=""\n'
	for i in 1 2 3 4; do
		echo "* * * * * * head -c 60000 /dev/zero; echo $i >>$O/B"
	done
} | table "$B"
{
	printf 'CLUSTERCRON_SECONDS=yes\nMAILTO=""\n'
	for i in 1 2 3; do
		echo "* * * * * * echo $i >>$O/C"
	done
} | table "$C"
table "$G" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
*/5 * * * * * echo good; echo g >>$O/G
EOF

# usage OWNER FIELD: his runs (2) or bytes (3) in the store, 0 for none.
usage() {
	ccs usage |
	    awk -v o="$1" -v f="$2" '$1 == o { v = $f } END { print v + 0 }'
}
under() {
	[ "$(usage "$B" 3)" -le "$MAXOUT" ] &&
	    [ "$(usage "$C" 2)" -le "$MAXRUNS" ]
}

dmn_start a
# 80 runs of 60,000 bytes are 4.8 MB: kept, they would be far over.
wait_for 120 at_least 80 "$O/B" || fail "$B's jobs do not run"
wait_for 60 at_least 60 "$O/C" || fail "$C's jobs do not run"
b=$(usage "$B" 3)
echo "while they write: $(ccs usage | tr '\n' ';')"
[ "$b" -le $((MAXOUT + 2 * 1024 * 1024)) ] ||
    fail "while $B writes, the store keeps $b bytes of his (limit $MAXOUT)"
L="over history-max-runs-per-user $MAXRUNS or"
L="$L history-max-output-per-user $MAXOUT"
contains "the log names the user trimmed by his limits" "$(cat "$T/a.log")" \
    "\\($B\\) TRIMMED \\([0-9]+ runs, [0-9]+ bytes of output, $L\\)"

# The hostile tables go; the next pass leaves both users under their
# limits, with their newest runs.
dmn_stop a
rm -f "$T/a/spool/$B" "$T/a/spool/$C"
dmn_start a
wait_for 30 under ||
    fail "over the limits: $B keeps $(usage "$B" 3) bytes," \
    "$C $(usage "$C" 2) runs"
[ "$(usage "$B" 2)" -gt 0 ] || fail "$B keeps no run at all"
[ "$(usage "$C" 2)" -eq "$MAXRUNS" ] ||
    fail "$C keeps $(usage "$C" 2) runs, not his newest $MAXRUNS"
echo "after trimming: $(ccs usage | tr '\n' ';')"
dmn_stop a
same "the good user's every run is kept" "$(usage "$G" 2)" \
    "$(count_lines "$O/G")"
finish
