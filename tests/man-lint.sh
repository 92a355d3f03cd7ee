#!/bin/sh
# Every man page is clean under mandoc -Tlint -Wstyle.  Our pages are
# indexed in a private manual tree so that cross-references between them
# must resolve; a reference to a system page (cron(8), syslog(3)) is not
# held against us, since which pages a machine has installed varies.
. "$top_srcdir/tests/lib/common.sh"
needs mandoc
needs makewhatis

for page in "$top_srcdir"/man/*.[1-9] "$top_builddir"/man/*.[1-9]; do
	[ -f "$page" ] || continue
	sec=${page##*.}
	mkdir -p "$T/man/man$sec"
	cp "$page" "$T/man/man$sec/"
done
makewhatis "$T/man" || exit 99
ours=$(cd "$T/man" && ls man*/* | sed 's|.*/||; s|\.\([1-9]\)$|(\1)|')

for page in "$T"/man/man*/*; do
	run env MANPATH="$T/man" mandoc -Tlint -Wstyle "$page"
	left=$(printf '%s\n%s\n' "$out" "$err" | grep -v '^$' |
	    grep -v 'outdated mandoc.db' | while IFS= read -r line; do
		case $line in
		*"referenced manual not found: Xr "*)
			ref=$(printf '%s' "$line" |
			    sed 's/.*not found: Xr \([^ ]*\) \([1-9]\).*/\1(\2)/')
			printf '%s\n' "$ours" | grep -qxF "$ref" &&
			    printf '%s\n' "$line"
			;;
		*)	printf '%s\n' "$line" ;;
		esac
	done)
	same "$(basename "$page"): mandoc -Tlint -Wstyle" "$left" ""
done
finish
