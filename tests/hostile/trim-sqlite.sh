#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# trim-sqlite.sh: trim.sh on a SQLite store.

. "$top_srcdir/tests/daemon/lib.sh"
. "$top_srcdir/tests/hostile/trim.sh"
