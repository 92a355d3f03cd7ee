#!/bin/sh
# Every man page is clean under mandoc -Tlint -Wstyle.
. "$top_srcdir/tests/lib/common.sh"
needs mandoc
for page in "$top_srcdir"/man/*.[1-9] "$top_builddir"/man/*.[1-9]; do
	[ -f "$page" ] || continue
	run mandoc -Tlint -Wstyle "$page"
	same "$(basename "$page"): mandoc -Tlint -Wstyle" "$out$err" ""
done
finish
