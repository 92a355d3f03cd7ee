#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# flags.sh: the daemon's command line, which takes the flags of
# Debian's cron (-f, -l, -x) and of cronie's crond (-i, -m, -p, -P,
# -s, -V, -h) with their meaning, or refuses them saying what to use.
# --help names every option and verb; --version the version.  Each
# accepted flag is shown at work against a daemon started without it:
# -l reads in cron.d exactly the names Debian's cron -l reads (found by
# running Debian's cron 3.0pl1-162 with -l over a cron.d holding these
# names), -x turns on the debug log, -i does without inotify, -p runs a
# table of any mode, -P passes the daemon's PATH to jobs, -s logs the
# output instead of mailing it, -m replaces the mailer or turns mail
# off, -N names the node.

. "$top_srcdir/tests/daemon/lib.sh"
# It shows what -x adds to the log against a daemon without it: not
# with DMN_DEBUG's -d on every daemon.
DMN_DEBUG=

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# ---- what needs no daemon.
version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' \
    "$top_srcdir/configure.ac")
for v in -V --version; do
	run "$CLUSTERCRON" $v
	same "$v: exit 0" "$rc" 0
	same "$v: the version on standard output" "$out$err" \
	    "clustercron $version"
done
for h in -h --help; do
	run "$CLUSTERCRON" $h
	same "$h: exit 0, nothing on standard error" "$rc$err" 0
	for o in '-c file' -d -f '-h, --help' -i -l '-m mailer' '-N node' -P \
	    -p -s '-V, --version' '-x flags'; do
		contains "$h: option $o" "$out" "^  $o  "
	done
	for verb in next status jobs history drain pause resume; do
		contains "$h: verb $verb, its usage" "$out" \
		    "^       clustercron $verb "
		contains "$h: verb $verb, what it does" "$out" "^  $verb  "
	done
done
run "$CLUSTERCRON" -q
same "an unknown flag: exit 1" "$rc" 1
contains "... the usage on standard error, verbs too" "$err" \
    '^       clustercron (next|status) '
same "... nothing on standard output" "$out" ""

run "$CLUSTERCRON" -x test -f -c /nonexistent
same "-x test refused" "$rc" 1
contains "... naming what to use" "$err" \
    '^clustercron: -x test: .*ctab -T$'
run "$CLUSTERCRON" -x ext,bogus -f -c /nonexistent
same "an unknown -x flag refused" "$rc" 1
contains "... listing the known ones" "$err" \
    '^clustercron: -x bogus: unknown debugging flag; each of ext, sch, proc, pars, load, misc and bit'
run "$CLUSTERCRON" -c -f
same "cronie's -c refused" "$rc" 1
contains "... saying what -c is here" "$err" \
    "^clustercron: -c -f: -c names the configuration file; cronie's -c"
run "$CLUSTERCRON" -m sendmail -f -c /nonexistent
same "-m with a relative mailer refused" "$rc" 1
contains "... saying why" "$err" "^clustercron: -m sendmail: .*absolute path"

# ---- two daemons, one with the flags, one without.
# Names in cron.d, each a table of a job that never fires: which ones
# Debian's cron -l read (lsb), and which it reads without -l (plain).
lsb="1abc __ab-c _a-b _foo-bar a-b a.-b a.b-c a1 a__b-c abc fo.o-b_a-r
foo.bar-baz x.dpkg-bak x.dpkg-new x.dpkg-tmp x.ucf-old"
plain="1abc ABC Ab-c Foo_Bar __ab-c _a-b _foo-bar a-b a1 a__b-c a_b ab-C
abc"
others="a+b a.b foo.sh x.dpkg-old x.dpkg-dist x.rpmsave a~ .hidden
foo.bar-Baz a-.b foo-bar.baz"

cat >"$T/mailer" <<EOF
#!/bin/sh
cat >>$T/mailer.out
EOF
chmod 755 "$T/mailer"
for n in with without; do
	dmn_setup $n <<EOF
table-check-interval = 1s
EOF
	sed -i "s|^store = .*|store = sqlite:$T/$n.db|" "$T/$n/clustercron.conf"
	for f in $lsb $plain $others; do
		echo "0 0 1 1 * $ME true" >"$T/$n/cron.d/$f"
	done
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=$ME
* * * * * * $ME echo "\$PATH" >$O/path.$n; echo out one $n; echo out two $n
EOF
	# Writable by others: run only with -p.
	printf 'CLUSTERCRON_SECONDS=yes\n* * * * * * %s touch %s/loose.%s\n' \
	    "$ME" "$O" $n >"$T/$n/cron.d/loose"
	chmod 666 "$T/$n/cron.d/loose"
done
oldpath=$PATH
PATH=/opt/cctest/bin:$PATH
dmn_start with -x ext,sch -l -i -p -P -s -N other
PATH=$oldpath
dmn_start without

# -N: the node's name.
contains "-N names the node" "$(cat "$T/with.log")" \
    '\(CRON\) STARTUP \(clustercron [^,]*, node other, '
# -x: the debug log (CLAIMS lines at each fire).
wait_for 10 in_log with '\(CRON\) CLAIMS \(' || fail "-x: no debug line"
wait_for 10 test -s "$O/path.without" || fail "the job does not run"
n=$(count_lines "$T/without.log")
wait_for 10 at_least $((n + 6)) "$T/without.log" || fail "without: no more lines"
in_log without 'CLAIMS \(' && fail "no debug line without -x or -d"

# -l: the names of cron.d that are read.
loaded()
{
	sed -n "s|.*LOAD ($T/$1/cron.d/\\(.*\\))\$|\\1|p" "$T/$1.log" |
	    grep -v '^loose$' | sort
}
same "-l reads Debian's cron -l's names" "$(loaded with)" \
    "$(printf '%s\n' $lsb | sort)"
same "without -l, Debian's cron's names" "$(loaded without)" \
    "$(printf '%s\n' $plain | sort)"

# -i: no inotify, the periodic check instead.
contains "-i said" "$(cat "$T/with.log")" \
    'INFO \(inotify disabled \(-i\): checking tables every 1s\)'
ntest=$((ntest + 1))
if ls -l "/proc/$(dmn_pid with)/fd" | grep -q inotify; then
	fail "-i: an inotify descriptor is open"
elif ! ls -l "/proc/$(dmn_pid without)/fd" | grep -q inotify; then
	fail "without -i: no inotify descriptor"
else
	echo "ok: -i: no inotify descriptor, one without it"
fi
echo "0 0 1 1 * $ME true" >"$T/with/cron.d/late"
wait_for 10 in_log with "LOAD \\($T/with/cron.d/late\\)" ||
    fail "-i: a new table is not picked up"

# -p: a table writable by others runs.
wait_for 10 test -f "$O/loose.with" || fail "-p: the loose table did not run"
contains "without -p: refused" "$(cat "$T/without.log")" \
    "BAD FILE MODE \\($T/without/cron.d/loose\\)"
test -f "$O/loose.without" && fail "without -p: the loose table ran"

# -P: the daemon's PATH.
wait_for 10 test -s "$O/path.with" || fail "-P: the job does not run"
same "-P: the job has the daemon's PATH" "$(cat "$O/path.with")" \
    "/opt/cctest/bin:$oldpath"
same "without -P: cron's" "$(cat "$O/path.without")" "/usr/bin:/bin"

# -s: output logged, not mailed.
wait_for 10 in_log with "\\($ME\\) CMDOUT \\(out two with\\)" ||
    fail "-s: no CMDOUT lines"
contains "-s: each line of output" "$(cat "$T/with.log")" \
    "\\($ME\\) CMDOUT \\(out one with\\)"
wait_for 10 test -e "$T/mail.0" || fail "without -s: no mail"
dmn_stop with
dmn_stop without
same "-s: no mail of its output" "$(grep -lx 'out one with' "$T"/mail.*)" ""
contains "without -s: mailed" "$(cat "$T"/mail.*)" '^out one without$'

# -m: another mailer; -m off: none.
rm -f "$T"/mail.*
dmn_start without -m "$T/mailer"
wait_for 10 test -s "$T/mailer.out" || fail "-m: the mailer was not used"
contains "-m: the message went to it" "$(cat "$T/mailer.out")" \
    '^out one without$'
dmn_stop without
same "-m: not to the sendmail key's" "$(ls "$T" | grep -c '^mail\.')" 0
: >"$T/mailer.out"
dmn_start without -m off
n=$(count_lines "$T/without.log")
wait_for 10 at_least $((n + 9)) "$T/without.log" || fail "-m off: no runs"
dmn_stop without
same "-m off: no mail at all" "$(cat "$T/mailer.out"; ls "$T" | grep '^mail\.')" ""

finish
