#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# store-mysql.sh: the store's unit test program, run against a private
# MariaDB server instead of a SQLite file.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"

mdb_init
mdb_start
CLUSTERCRON_TEST_STORE=$MDB_URL
CLUSTERCRON_TEST_STORE2=$MDB_URL2
CLUSTERCRON_TEST_MYSQL_CNF=$MDB_CNF
export CLUSTERCRON_TEST_STORE CLUSTERCRON_TEST_STORE2 CLUSTERCRON_TEST_MYSQL_CNF
"${top_builddir:-.}/tests/unit/store" >"$T/store.log" 2>&1
rc=$?
cat "$T/store.log"
if [ $rc -ne 0 ] || grep -q '^not ok' "$T/store.log"; then
	mdb_fail "store unit test failed on MariaDB"
fi
# The password never reaches a message.
pass=$(sed -n 's/^password=//p' "$MDB_CNF")
if grep -q -- "$pass" "$T/store.log"; then
	mdb_fail "the password appeared in the output"
fi
exit 0
