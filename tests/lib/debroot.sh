# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# debroot.sh: a fresh Debian 12 (bookworm) root for the package tests,
# unpacked from a tarball cached outside the tree.  Sourced by
# tests/package-install.sh and tests/package.sh; needs root.
#
# debroot_mirror: sets debroot_mirror to the Debian mirror of this
#	machine's own apt sources (/etc/apt/sources.list and the one-line
#	.list and deb822 .sources files of /etc/apt/sources.list.d): the
#	first enabled "deb" source whose suites include bookworm.
#	DEBIAN_MIRROR overrides it.  Nothing is written anywhere.
# debroot_tarball INCLUDES: sets debroot_tar to a tarball of a minbase
#	bookworm root with the packages INCLUDES (comma-separated) and
#	their dependencies added.  Tarballs are kept in
#	$CLUSTERCRON_ROOT_CACHE (default /var/cache/clustercron-tests),
#	named by mirror, package list and ISO week, so the root follows
#	the mirror's point releases a week late at most; a new one is
#	made with debootstrap, whose .debs come from and go to
#	/var/cache/apt/archives, and replaces the older ones.  When
#	debootstrap fails (no network), the newest older tarball of the
#	same mirror and packages is used.  Sets debroot_made to "cached"
#	or "debootstrap", and debroot_why on failure.

debroot_mirror()
{
	debroot_mirror=${DEBIAN_MIRROR:-}
	[ -n "$debroot_mirror" ] && return 0
	debroot_mirror=$(
	{
		for _f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$_f" ] || continue
			# deb [options] uri suite component...
			awk '$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) {
					while (i <= NF && $i !~ /\]$/)
						i++
					i++
				}
				if ($(i + 1) == "bookworm")
					print $i
			}' "$_f"
		done
		for _f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$_f" ] || continue
			awk '
			function flush() {
				gsub(/[ \t]+/, " ", types)
				gsub(/[ \t]+/, " ", suites)
				gsub(/[ \t]+/, " ", uris)
				sub(/^ /, "", uris)
				if ((" " types " ") ~ / deb / && enabled != "no" &&
				    (" " suites " ") ~ / bookworm / && uris != "") {
					split(uris, u, " ")
					print u[1]
				}
				types = suites = uris = enabled = key = ""
			}
			/^#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ {
				if (key == "types") types = types " " $0
				else if (key == "suites") suites = suites " " $0
				else if (key == "uris") uris = uris " " $0
				next
			}
			{
				key = tolower($0)
				sub(/:.*/, "", key)
				v = $0
				sub(/^[^:]*:[ \t]*/, "", v)
				if (key == "types") types = v
				else if (key == "suites") suites = v
				else if (key == "uris") uris = v
				else if (key == "enabled") enabled = tolower(v)
			}
			END { flush() }' "$_f"
		done
	} | grep -E '^(https?|ftp|file):' | head -n 1)
	[ -n "$debroot_mirror" ]
}

debroot_tarball()
{
	debroot_tar= debroot_made= debroot_why=
	if ! command -v debootstrap >/dev/null 2>&1; then
		debroot_why="debootstrap not found (apt-get install debootstrap)"
		return 1
	fi
	if ! debroot_mirror; then
		debroot_why="no bookworm source in /etc/apt: set DEBIAN_MIRROR"
		return 1
	fi
	_cache=${CLUSTERCRON_ROOT_CACHE:-/var/cache/clustercron-tests}
	mkdir -p "$_cache" || {
		debroot_why="cannot make $_cache"
		return 1
	}
	_m=$(printf '%s' "$debroot_mirror" |
	    sed -e 's,^[a-z]*://,,' -e 's,/*$,,' -e 's,[^A-Za-z0-9.-],_,g')
	_h=$(printf '%s' "$1" | md5sum | cut -c 1-8)
	_prefix=$_cache/bookworm-minbase-$_m-$_h
	debroot_tar=$_prefix-$(date -u +%G-W%V).tar
	if [ -f "$debroot_tar" ]; then
		debroot_made=cached
		return 0
	fi
	_work=$(mktemp -d "$_cache/debootstrap.XXXXXX") || {
		debroot_why="cannot write in $_cache"
		return 1
	}
	set -- --variant=minbase --include="$1"
	[ -d /var/cache/apt/archives ] && [ -w /var/cache/apt/archives ] &&
	    set -- "$@" --cache-dir=/var/cache/apt/archives
	echo "# debootstrap bookworm from $debroot_mirror into $_work"
	if debootstrap "$@" bookworm "$_work/root" "$debroot_mirror" \
	    >"$_work/log" 2>&1 &&
	    tar -C "$_work/root" -cf "$debroot_tar.tmp" . &&
	    mv "$debroot_tar.tmp" "$debroot_tar"; then
		debroot_made=debootstrap
		for _old in "$_prefix"-*.tar; do
			[ "$_old" = "$debroot_tar" ] || rm -f "$_old"
		done
	else
		debroot_why="debootstrap from $debroot_mirror failed: $(tail -n 3 "$_work/log" | tr '\n' ' ')"
		rm -f "$debroot_tar.tmp"
		debroot_tar=
		for _old in "$_prefix"-*.tar; do
			[ -f "$_old" ] && debroot_tar=$_old
		done
		[ -n "$debroot_tar" ] && debroot_made=cached &&
		    echo "# $debroot_why; using $debroot_tar"
	fi
	# debootstrap unmounts what it mounted; never remove a tree that
	# still has something mounted in it.
	if grep -q " $_work/" /proc/self/mounts; then
		echo "# $_work still has mounts: left in place" >&2
	else
		rm -rf "$_work"
	fi
	[ -n "$debroot_tar" ]
}
