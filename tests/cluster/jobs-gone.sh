#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# jobs-gone.sh: jobs whose tables go leave the store and the jobs
# listing, their runs kept: two daemons on one private MariaDB
# (tests/daemon/gone.sh).

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
. "$top_srcdir/tests/daemon/gone.sh"

gone_test
finish
