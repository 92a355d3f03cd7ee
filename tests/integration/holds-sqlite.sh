#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# holds-sqlite.sh: holds-mysql.sh on a SQLite file shared by six
# processes.

T=$(mktemp -d "${TMPDIR:-/tmp}/ccholds.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
. "${top_srcdir:-.}/tests/integration/holds.sh"

holds_storm "sqlite:$T/holds.db" "" 6 6 300
