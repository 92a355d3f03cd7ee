#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-schema.sh: the store's schema is fit for Galera, which
# replicates InnoDB tables only and needs a primary key on every table
# (rows of a table without one are found by a full scan on every node,
# and DELETEs of such rows can go wrong).  The store creates its schema
# on a plain private server (tests/integration/claimer jobs), and every
# table of it must be InnoDB with a primary key.  The same query first
# proves that it finds a table without a primary key, and one of another
# engine, in a database made for that.

. "${top_srcdir:-.}/tests/lib/galera.sh"
CLAIMER=${top_builddir:-.}/tests/integration/claimer
gal_init 1
gal_plain p1

# unfit DB: the tables of DB that are not InnoDB or have no primary key.
unfit()
{
	gal_root p1 "SELECT t.TABLE_NAME, t.ENGINE,
	    IF(k.CONSTRAINT_NAME IS NULL, 'no primary key', 'primary key')
	    FROM information_schema.TABLES t
	    LEFT JOIN information_schema.TABLE_CONSTRAINTS k
	    ON k.TABLE_SCHEMA = t.TABLE_SCHEMA AND
	    k.TABLE_NAME = t.TABLE_NAME AND
	    k.CONSTRAINT_TYPE = 'PRIMARY KEY'
	    WHERE t.TABLE_SCHEMA = '$1' AND t.TABLE_TYPE = 'BASE TABLE' AND
	    (k.CONSTRAINT_NAME IS NULL OR t.ENGINE <> 'InnoDB')
	    ORDER BY t.TABLE_NAME"
}

gal_sql p1 "CREATE TABLE cctest2.nokey (a INT) ENGINE=InnoDB;
    CREATE TABLE cctest2.aria (a INT PRIMARY KEY) ENGINE=Aria;
    CREATE TABLE cctest2.good (a INT PRIMARY KEY) ENGINE=InnoDB" ||
    gal_fail "cannot create the decoys"
got=$(unfit cctest2 | tr '\t' ' ' | tr '\n' /)
[ "$got" = "aria Aria primary key/nokey InnoDB no primary key/" ] ||
    gal_fail "the query does not find the unfit tables: '$got'"

"$CLAIMER" jobs "$GAL_URL_p1" "$GAL_CNF_p1" >"$T/jobs.out" 2>&1 ||
    gal_fail "the store did not open: $(cat "$T/jobs.out")"
tables=$(gal_sql p1 "SHOW TABLES" | tr '\n' ' ')
[ -n "$tables" ] || gal_fail "the store created no tables"
echo "$0: the store's tables: $tables"
bad=$(unfit cctest)
[ -z "$bad" ] || gal_fail "tables unfit for Galera: $bad"
exit 0
