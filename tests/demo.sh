#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# demo.sh: the README's first command, contrib/demo.sh, run on this
# build (CLUSTERCRON_DEMO_BUILD: nothing installed or built) without a
# terminal.  The commands it prints work as printed, from another
# directory: ctab -l lists the demo table (installed through the
# daemon's socket), ctab -e edits it, and the job every five seconds
# runs; SIGTERM, as ^C would, stops the daemon.

. "$top_srcdir/tests/lib/common.sh"

dpid=
trap 'kill "$dpid" 2>/dev/null; rm -rf "$T"' EXIT
CLUSTERCRON_DEMO_BUILD=$top_builddir TMPDIR=$T \
    sh "$top_srcdir/contrib/demo.sh" >"$T/demo.log" 2>&1 &
dpid=$!

# wait_line PATTERN: wait up to 10 s for a line of the demo's output.
wait_line() {
	_i=0
	until grep -q -- "$1" "$T/demo.log"; do
		_i=$((_i + 1))
		if [ "$_i" -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
			cat "$T/demo.log"
			return 1
		fi
		sleep 0.1
	done
}
wait_line '^demo.sh: \^C stops it' || { fail "demo.sh did not start"; finish; }
list=$(sed -n 's/^    \(CTAB_SOCKET=.* -l\)$/\1/p' "$T/demo.log")
edit=$(sed -n 's/^    \(CTAB_SOCKET=.* -e\)$/\1/p' "$T/demo.log")
d=$(echo "$T"/clustercron-demo.*)
contains "the printed ctab commands name absolute paths" "$list
$edit" "^CTAB_SOCKET=/[^ ]* /[^ ]*/ctab -l$"

run sh -c "cd / && $list"
same "ctab -l, as printed, exits 0" "$rc" 0
same "ctab -l, as printed, lists the demo table" "$out" "$(cat "$d/demo.crontab")"
contains "the demo table holds the example table" "$out" '^15 2 \* \* \*	echo nightly backup$'

printf '#!/bin/sh\necho "# edited" >>"$1"\n' >"$T/editor"
chmod 755 "$T/editor"
run sh -c "cd / && EDITOR=$T/editor $edit"
same "ctab -e, as printed, exits 0" "$rc" 0
run sh -c "cd / && $list"
same "ctab -l shows the edit" "$(printf '%s\n' "$out" | tail -n 1)" "# edited"

i=0
until [ -s "$d/demo.out" ] || [ "$i" -gt 120 ]; do
	sleep 0.1
	i=$((i + 1))
done
contains "the job every five seconds runs" "$(cat "$d/demo.out" 2>/dev/null)" \
    '^fire [0-9]{4}-[0-9]{2}-[0-9]{2}T'

kill -TERM "$dpid"
wait "$dpid"
same "SIGTERM stops demo.sh" "$?" 0
dpid=
same "and its daemon" "$(cat "$d/clustercron.pid" 2>/dev/null)" ""
finish
