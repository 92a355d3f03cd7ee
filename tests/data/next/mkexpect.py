#!/usr/bin/python3
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# mkexpect.py: writes the expected instants of the tables in this
# directory from case lists (expression, zone, start, count), using an
# implementation independent of parser/next.c: Python's zoneinfo for
# the zones and a day-by-day enumeration of local times for the
# schedule.  The DST rules of DESIGN.md are applied here on their own:
# a wall-clock job fires at every occurrence of a matching local time;
# a fixed-time job at the first occurrence, or at the jump when the
# time is skipped.  Run it from this directory after changing a case
# list, then review the differences by hand before committing.
#
#	/usr/bin/python3 mkexpect.py cases.txt > table.tsv

import datetime as dt
import sys
from zoneinfo import ZoneInfo

UTC = dt.timezone.utc
MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
DAYS = "sun mon tue wed thu fri sat".split()
MACROS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}


def field(text, lo, hi, names=None):
    def num(s):
        if names and s.lower() in names:
            return names.index(s.lower()) + (1 if lo == 1 else 0)
        return int(s)
    out = set()
    for part in text.split(","):
        step = 1
        if "/" in part:
            part, st = part.split("/")
            step = int(st)
        if part == "*":
            a, b = lo, hi
        elif "-" in part:
            a, b = (num(x) for x in part.split("-"))
        else:
            a = b = num(part)
        out.update(range(a, b + 1, step))
    return out


def parse(expr):
    expr = MACROS.get(expr, expr)
    f = expr.split()
    if len(f) == 5:
        f = ["0"] + f
    sec = field(f[0], 0, 59)
    mins = field(f[1], 0, 59)
    hours = field(f[2], 0, 23)
    dom = field(f[3], 1, 31)
    mon = field(f[4], 1, 12, MONTHS)
    dow = {d % 7 for d in field(f[5], 0, 7, DAYS)}
    return dict(sec=sorted(sec), min=sorted(mins), hour=sorted(hours),
                dom=dom, mon=mon, dow=dow,
                both=f[3].startswith("*") or f[5].startswith("*"),
                fixed=not (f[1].startswith("*") or f[2].startswith("*")))


def day_ok(s, d):
    if d.month not in s["mon"]:
        return False
    a = d.day in s["dom"]
    b = (d.isoweekday() % 7) in s["dow"]
    return (a and b) if s["both"] else (a or b)


def occurrences(z, local):
    """UTC instants whose local time in z is `local' (naive)."""
    out = set()
    for fold in (0, 1):
        t = local.replace(tzinfo=z, fold=fold).astimezone(UTC)
        if t.astimezone(z).replace(tzinfo=None) == local:
            out.add(t)
    return sorted(out)


def reach(z, local):
    """First UTC instant whose local time is at least `local'."""
    a = local.replace(tzinfo=UTC) - dt.timedelta(hours=30)
    b = local.replace(tzinfo=UTC) + dt.timedelta(hours=30)
    while b - a > dt.timedelta(seconds=1):
        m = a + (b - a) // 2
        m = m.replace(microsecond=0)
        if m.astimezone(z).replace(tzinfo=None) >= local:
            b = m
        else:
            a = m
    return b


def fires(s, z, after, count):
    out = []
    start = (after - dt.timedelta(days=2)).astimezone(z).date()
    day = start
    extra = None
    while day.year <= 9999:
        if day_ok(s, day):
            for h in s["hour"]:
                for mi in s["min"]:
                    for sec in s["sec"]:
                        local = dt.datetime(day.year, day.month, day.day,
                                            h, mi, sec)
                        occ = occurrences(z, local)
                        if s["fixed"]:
                            occ = occ[:1] if occ else [reach(z, local)]
                        out.extend(t for t in occ if t > after)
        if extra is None and len(set(out)) >= count:
            extra = min(day, dt.date(9999, 12, 28)) + dt.timedelta(days=3)
        if extra is not None and day >= extra:
            break
        if day == dt.date(9999, 12, 31):
            break
        day += dt.timedelta(days=1)
    res = sorted(set(out))[:count]
    return res


def iso(t, z):
    lt = t.astimezone(z)
    off = int(lt.utcoffset().total_seconds())
    sign = "-" if off < 0 else "+"
    off = abs(off)
    return "%s%s%02d:%02d" % (lt.strftime("%Y-%m-%dT%H:%M:%S"), sign,
                              off // 3600, off // 60 % 60)


def main():
    for line in open(sys.argv[1]):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            print(line)
            continue
        expr, zone, start, count = line.split("\t")
        z = UTC if zone == "UTC" else ZoneInfo(zone)
        after = dt.datetime.fromisoformat(start.replace("Z", "+00:00"))
        s = parse(expr)
        res = fires(s, z, after, int(count))
        words = [iso(t, z) for t in res]
        if len(res) < int(count):
            words.append("none")
        print("\t".join([expr, zone, start, " ".join(words)]))


main()
