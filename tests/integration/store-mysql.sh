#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# store-mysql.sh: the store's unit test programs, run against a private
# MariaDB server instead of a SQLite file: tests/unit/store on the
# databases cctest and cctest2, then tests/unit/store_at (one-shot
# jobs) on two fresh ones, cctest3 and cctest4.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"

mdb_init
mdb_start
"$MDB_CLIENT" --no-defaults --socket="$MDB_SOCK" -uroot <<EOF \
    >>"$T/install.log" 2>&1 || mdb_fail "cannot create databases"
CREATE DATABASE cctest3;
CREATE DATABASE cctest4;
GRANT ALL ON cctest3.* TO 'cctest'@'localhost';
GRANT ALL ON cctest4.* TO 'cctest'@'localhost';
EOF
CLUSTERCRON_TEST_MYSQL_CNF=$MDB_CNF
export CLUSTERCRON_TEST_STORE CLUSTERCRON_TEST_STORE2 CLUSTERCRON_TEST_MYSQL_CNF
for prog in store store_at; do
	if [ $prog = store ]; then
		CLUSTERCRON_TEST_STORE=$MDB_URL
		CLUSTERCRON_TEST_STORE2=$MDB_URL2
	else
		CLUSTERCRON_TEST_STORE="mysql:///cctest3?socket=$MDB_SOCK"
		CLUSTERCRON_TEST_STORE2="mysql:///cctest4?socket=$MDB_SOCK"
	fi
	"${top_builddir:-.}/tests/unit/$prog" >"$T/$prog.log" 2>&1
	rc=$?
	cat "$T/$prog.log"
	if [ $rc -ne 0 ] || grep -q '^not ok' "$T/$prog.log"; then
		mdb_fail "$prog unit test failed on MariaDB"
	fi
	# The password never reaches a message.
	pass=$(sed -n 's/^password=//p' "$MDB_CNF")
	if grep -q -- "$pass" "$T/$prog.log"; then
		mdb_fail "the password appeared in the output of $prog"
	fi
done
exit 0
