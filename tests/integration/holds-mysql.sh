#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# holds-mysql.sh: six nodes register and let go of the same six jobs at
# random on a private MariaDB; none finds a job gone while it holds it,
# and the store ends with the jobs the nodes hold, no more.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"
mdb_init
mdb_start
. "${top_srcdir:-.}/tests/integration/holds.sh"

holds_storm "$MDB_URL" "$MDB_CNF" 6 6 300
