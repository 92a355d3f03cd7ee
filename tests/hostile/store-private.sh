#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# store-private.sh: the SQLite store holds every user's commands and
# the heads of their output, so no other user may read it, nor write
# where it lies, whatever path the configuration gives.  A throwaway
# user tries to read the store, its WAL and its shared-memory file.
# The store's own directory (nothing but its files in it) is made
# private, and so are files an older daemon left readable; a directory
# others may read or write, or one on the way that others may write, or
# a store file another user owns, is refused at start, saying which and
# why.  The admin verbs refuse the same.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make a throwaway user"
needs runuser
U=ccsp$$
dmn_useradd "$U" "$T/home/$U"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# starts_not NAME PATTERN WHY: daemon NAME refuses to start, saying
# PATTERN on its standard error.
starts_not()
{
	run "$CLUSTERCRON" -c "$T/$1/clustercron.conf"
	same "$3: the start fails" "$rc" 1
	contains "$3: says why" "$err" "$2"
	test -e "$T/$1/pid" && fail "$3: a pid file left behind"
}
# as_user FILE: the throwaway user can read FILE.
as_user()
{
	runuser -u "$U" -- cat "$1" >/dev/null 2>&1
}
mode_of()
{
	stat -c %a "$1"
}

# ---- a directory others may read, holding more than the store
mkdir -m 755 "$T/shared"
: >"$T/shared/other-file"
dmn_setup a </dev/null
sed -i "s|^store = .*|store = sqlite:$T/shared/cc.db|" "$T/a/clustercron.conf"
starts_not a "cannot open the store sqlite:$T/shared/cc.db: sqlite $T/shared/cc.db: directory $T/shared is readable by group or others \\(mode 0755\\).*a directory of its own" \
    "a store beside other files, in a directory others may read"
test -e "$T/shared/cc.db" && fail "... a store made there all the same"
same "... the directory left as it was" "$(mode_of "$T/shared")" 755

# ---- a directory others may write (a /tmp of its own)
mkdir -m 1777 "$T/tmp"
sed -i "s|^store = .*|store = sqlite:$T/tmp/cc.db|" "$T/a/clustercron.conf"
starts_not a "directory $T/tmp is writable by group or others \\(mode 1777\\)" \
    "a store in a directory others may write, sticky or not"

# ---- a directory on the way that others may write
mkdir -p "$T/open/db"
chmod 777 "$T/open"
chmod 700 "$T/open/db"
sed -i "s|^store = .*|store = sqlite:$T/open/db/cc.db|" "$T/a/clustercron.conf"
starts_not a "$T/open: writable by group or others \\(mode 0777\\), who could put another file in place of $T/open/db/cc.db" \
    "a directory on the way that others may write"

# ---- a store file another user owns
mkdir -m 700 "$T/theirs"
: >"$T/theirs/cc.db"
chown "$U" "$T/theirs/cc.db"
sed -i "s|^store = .*|store = sqlite:$T/theirs/cc.db|" "$T/a/clustercron.conf"
starts_not a "$T/theirs/cc.db: owned by uid $(id -u "$U"), neither root nor the running user" \
    "a store file another user owns"

# ---- the store's own directory, left open by an older daemon
mkdir -m 755 "$T/state"
dmn_setup b </dev/null
sed -i "s|^store = .*|store = sqlite:$T/state/cc.db|" "$T/b/clustercron.conf"
dmn_start b
dmn_stop b
# As an older clustercron left them: the files readable by all.
chmod 755 "$T/state"
chmod 644 "$T/state/cc.db"
for f in cc.db-wal cc.db-shm; do
	[ -e "$T/state/$f" ] || : >"$T/state/$f"
	chmod 644 "$T/state/$f"
done
as_user "$T/state/cc.db" || fail "setup: the user cannot read the old store"
cat >"$T/b/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * root echo secret-\$((6 * 7)) >>$O/b
EOF
dmn_start b
wait_for 10 at_least 2 "$O/b" || fail "the store's own directory: jobs run"
same "... the directory made private (search only)" \
    "$(mode_of "$T/state")" 711
for f in cc.db cc.db-wal cc.db-shm; do
	test -e "$T/state/$f" || continue
	same "... $f made private" "$(mode_of "$T/state/$f")" 600
	ntest=$((ntest + 1))
	if as_user "$T/state/$f"; then
		fail "... the user reads $f"
	else
		echo "ok: ... the user cannot read $f"
	fi
done
test -e "$T/state/cc.db-wal" || fail "... no WAL to look at"
runuser -u "$U" -- ls "$T/state" >/dev/null 2>&1 &&
    fail "... the user lists the store's directory"
dmn_stop b

# ---- a new store in a new directory: private from the start
mkdir -m 700 "$T/fresh"
dmn_setup c </dev/null
sed -i "s|^store = .*|store = sqlite:$T/fresh/cc.db|" "$T/c/clustercron.conf"
dmn_start c
same "a new store: the database file" "$(mode_of "$T/fresh/cc.db")" 600
test -e "$T/fresh/cc.db-wal" &&
    same "a new store: its WAL" "$(mode_of "$T/fresh/cc.db-wal")" 600
test -e "$T/fresh/cc.db-shm" &&
    same "a new store: its shared memory" "$(mode_of "$T/fresh/cc.db-shm")" 600
dmn_stop c

# ---- the admin verbs refuse the same store
chmod 755 "$T/fresh"
: >"$T/fresh/notes"
run "$CLUSTERCRON" status -c "$T/c/clustercron.conf"
same "status on a store in a directory others may read: exit 1" "$rc" 1
contains "... says why" "$err" \
    "^clustercron: status: store sqlite:$T/fresh/cc.db: sqlite $T/fresh/cc.db: directory $T/fresh is readable by group or others \\(mode 0755\\)"
finish
