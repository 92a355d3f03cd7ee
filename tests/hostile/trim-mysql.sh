#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# trim-mysql.sh: trim.sh on a private MariaDB server.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
. "$top_srcdir/tests/hostile/trim.sh"
