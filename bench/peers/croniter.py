#!/usr/bin/python3
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# croniter.py: the next-fire chains of bench/next.c computed by Debian's
# python3-croniter.  Run with /usr/bin/python3.
#
#	croniter.py zone print COUNT [START [EXPRFILE]]
#	croniter.py zone bench SECONDS

import os
import sys
import time
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

# This file's own name would shadow the module: look elsewhere.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") !=
            os.path.dirname(os.path.abspath(__file__))]
from croniter import croniter   # noqa: E402

START = 1767225600      # 2026-01-01T00:00:00Z
CHAIN = 500


def main():
    zone, mode, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    tz = timezone.utc if zone == "UTC" else ZoneInfo(zone)
    here = os.path.dirname(os.path.abspath(__file__))
    first = int(sys.argv[4]) if len(sys.argv) > 4 else START
    efile = sys.argv[5] if len(sys.argv) > 5 else \
        os.path.join(here, "exprs.txt")
    exprs = [l.rstrip("\n") for l in open(efile) if l.strip()]
    start = datetime.fromtimestamp(first, tz)
    if mode == "print":
        for e in exprs:
            it = croniter(e, start)
            out = [str(int(it.get_next(float))) for _ in range(int(arg))]
            print(e + "\t" + " ".join(out))
        return
    budget = float(arg)
    for e in exprs:
        n = 0
        t0 = time.perf_counter()
        while True:
            it = croniter(e, start)
            for _ in range(CHAIN):
                it.get_next(float)
            n += CHAIN
            el = time.perf_counter() - t0
            if el >= budget:
                break
        print("%s\t%s\t%d\t%.3f\t%.0f" % (zone, e, n, el, n / el))


main()
