#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# admin-names.sh: a user names a job of theirs after another user's job
# (CLUSTERCRON_NAME is the user's to choose): the start of its identity
# as the listings show it, its whole identity, or its name.  The admin
# verbs naming a job must then refuse the word as ambiguous, never act
# on the user's job in place of the other, and accept owner:name (or
# owner:prefix) to say which.  A whole identity names its job alone.

. "$top_srcdir/tests/daemon/lib.sh"

dmn_setup a </dev/null
DB=sqlite:$T/cc.db
V=5e1f0a11ce000000000000000000000a	# the victim's job
ccs job "$V" alice '0 0 1 1 *' backup || fail "ccstore job"
ccs job 0b5e55ed00000000000000000000000b mallory '0 0 1 1 *' 5e1f0a11 &&
    ccs job 0b5e55ed00000000000000000000000c mallory '0 0 1 1 *' "$V" &&
    ccs job 0b5e55ed00000000000000000000000d mallory '0 0 1 1 *' backup ||
    fail "ccstore job"
adm() { run "$CLUSTERCRON" "$@" -c "$T/a/clustercron.conf"; }
# paused: the ids of the paused jobs, in order.
paused() { ccs jobs | awk '$3 == 1 { print $1 }' | sort | tr '\n' ' '; }

adm pause 5e1f0a11
same "a name that is another job's identity prefix: refused" "$rc" 1
contains "... as naming two jobs" "$err" "pause: 5e1f0a11 names 2 jobs:"
contains "... the victim's among them" "$err" "^  $V  alice  "
contains "... and the namesake" "$err" \
    '^  0b5e55ed00000000000000000000000b  mallory  0 0 1 1 \*  \(5e1f0a11\)$'
contains "... asking for owner:name" "$err" "give owner:name"
same "... nothing paused" "$(paused)" ""

adm pause "$V"
same "the whole identity, also a job's name: exit 0" "$rc" 0
same "... the job of that identity, alone" "$(paused)" "$V "
adm resume "$V"

adm pause alice:5e1f0a11
same "owner:prefix: exit 0" "$rc" 0
same "... that owner's job" "$(paused)" "$V "
adm resume alice:5e1f0a11
adm pause mallory:5e1f0a11
same "owner:name: that owner's job" "$(paused)" \
    "0b5e55ed00000000000000000000000b "
adm resume mallory:5e1f0a11
same "... resumed" "$(paused)" ""

adm pause backup
same "one name, two owners: refused" "$rc" 1
contains "... as naming two jobs" "$err" "pause: backup names 2 jobs:"
adm pause alice:backup
same "alice:backup: exit 0" "$rc" 0
same "... alice's" "$(paused)" "$V "
adm history alice:backup
same "history takes owner:name too" "$rc" 0
adm resume --job alice:backup
same "... and resume" "$(paused)" ""

adm pause nobody:backup
same "an owner with no such job: refused" "$rc" 1
same "... saying so" "$err" "clustercron: pause: no job nobody:backup"
finish
