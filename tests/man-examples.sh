#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# man-examples.sh: the EXAMPLES sections of the man pages are true.  Each
# page is rendered as a reader sees it (mandoc), and every command shown
# after a "$ " prompt is run, in order, in one scratch directory, with
# clustercron and ctab from this build and a private daemon for ctab to
# talk to; what the command prints (standard output and error together)
# must be the lines the page shows under it.  A table shown in ctab(5)'s
# EXAMPLES must pass ctab -T without a word.

. "$top_srcdir/tests/daemon/lib.sh"
needs mandoc

dmn_setup a </dev/null
dmn_start a
CTAB_SOCKET=$T/a/sock
CTAB_COPY_DIR=$T/a/copies
export CTAB_SOCKET CTAB_COPY_DIR
mkdir -p "$T/bin" "$T/work"
ln -s "$CLUSTERCRON" "$T/bin/clustercron"
ln -s "$CTAB" "$T/bin/ctab"
for p in at atq atrm; do
	ln -s "$CTAB" "$T/bin/$p"
done

# examples PAGE: the literal blocks of PAGE's EXAMPLES section as
# rendered, less their indentation, a blank line after each block.
examples()
{
	mandoc -Tascii "$1" | col -b | expand | awk '
	    /^[A-Z]/ { inex = ($0 == "EXAMPLES"); next }
	    !inex { next }
	    /^           / { sub(/^           /, ""); print; lit = 1; next }
	    lit { print ""; lit = 0 }
	    END { if (lit) print "" }'
}

# check_commands PAGE: run PAGE's "$ " commands and compare.
check_commands()
{
	_page=$1
	_n=0
	examples "$_page" >"$T/ex"
	# One file of commands and one of expected output per command; a
	# line ending in a backslash goes on on the next.
	awk -v dir="$T" '
	    function flush() { if (n) close(dir "/cmd." n); }
	    /^\$ / && !cont { flush(); n++; sub(/^\$ /, "")
		print > (dir "/cmd." n); printf "" > (dir "/want." n)
		cont = /\\$/; next }
	    cont { print > (dir "/cmd." n); cont = /\\$/; next }
	    /^$/ { next }
	    n { print > (dir "/want." n) }
	    END { flush(); print n > (dir "/ncmd") }' "$T/ex"
	_count=$(cat "$T/ncmd")
	while [ "$_n" -lt "$_count" ]; do
		_n=$((_n + 1))
		_got=$(cd "$T/work" && PATH=$T/bin:$PATH sh "$T/cmd.$_n" 2>&1)
		same "${_page##*/}: $(head -n 1 "$T/cmd.$_n")" "$_got" \
		    "$(cat "$T/want.$_n")"
	done
	[ "$_count" -gt 0 ] || fail "${_page##*/}: no command in EXAMPLES"
}

check_commands "$top_builddir/man/clustercron.8"
check_commands "$top_builddir/man/ctab.1"
check_commands "$top_builddir/man/at.1"

# ctab(5)'s example table is a table ctab installs as it is.
examples "$top_srcdir/man/ctab.5" >"$T/ctab5.tab"
[ -s "$T/ctab5.tab" ] || fail "ctab.5: no table in EXAMPLES"
run "$CTAB" -T "$T/ctab5.tab"
same "ctab.5: the example table passes ctab -T" "$rc:$err" "0:"

dmn_stop a
finish
