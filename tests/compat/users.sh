#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# users.sh: /etc/crontab and an /etc/cron.d file whose lines name a user
# the machine does not have, under Debian's cron and ours side by side.
# Debian's cron refuses each such table as a whole when it reads it
# ("bad username"), root's entries in it too, and does not look again
# when the user appears, only when the file changes; ours must do the
# same, and ctab -T -s must warn about the user.  The jobs are ordinary
# minute jobs, so this test waits for two or three minute boundaries.

. "$top_srcdir/tests/compat/lib.sh"

needs useradd

deb_fetch
ns_start
# A user name the machine does not have; it is added in the namespace
# only, never to the machine.
U=ccu$$
while ns_run id "$U" >/dev/null 2>&1; do
	U=${U}x
done

O=$T/jobout
mkdir -p "$O" "$T/home/$U"
chmod 777 "$O"
# Which daemon ran a job: ours gives CLUSTERCRON_NODE.
W='${CLUSTERCRON_NODE:-deb}'
cat >"$T/crontab" <<EOF
* * * * * $U touch $O/$W.crontab-user
* * * * * root touch $O/$W.crontab-root
EOF
cat >"$T/users" <<EOF
@reboot root touch $O/$W.reboot-same
* * * * * $U touch $O/$W.user
* * * * * root touch $O/$W.root
EOF
cat >"$T/tick" <<EOF
@reboot root touch $O/$W.reboot-other
* * * * * root echo tick >>$O/$W.tick
EOF
dmn_setup a </dev/null
cp "$T/crontab" "$T/a/crontab"
cp "$T/users" "$T/tick" "$T/a/cron.d/"
ns_run cp "$T/crontab" /etc/crontab
ns_run cp "$T/users" "$T/tick" /etc/cron.d/

run ns_run "$CTAB" -T -s "$T/users"
same "ctab -T -s: an unknown user is a warning, not an error" "$rc" 0
contains "ctab -T -s names the user's file, line and column" "$err" \
    "users:2:11: warning: no user $U on this machine"

deb_start
dmn_start a
DPID=$(dmn_pid a)

# ran WHAT: both daemons ran the job that touches $O/NAME.WHAT.
ran()
{
	test -e "$O/deb.$1" && test -e "$O/a.$1"
}
neither()
{
	! test -e "$O/deb.$1" && ! test -e "$O/a.$1"
}
idle()
{
	! children "$DEB_PID" && ! children "$DPID"
}
ticks()
{
	echo "$(count_lines "$O/deb.tick") $(count_lines "$O/a.tick")"
}
# ticked_after "D A": each daemon has run a minute since ticks said so.
ticked_after()
{
	set -- $1 $(ticks)
	[ "$3" -gt "$1" ] && [ "$4" -gt "$2" ]
}

wait_for 10 ran reboot-other || fail "@reboot of the good table did not run"
wait_for 10 idle
ntest=$((ntest + 1))
if neither reboot-same; then
	echo "ok: the table that names an unknown user is ignored whole"
else
	fail "@reboot of the table with an unknown user ran:" \
	    "$(ls "$O" | grep reboot-same)"
fi
contains "Debian's cron: bad username in /etc/cron.d/users" "$(deb_log)" \
    'bad username.*/etc/cron.d/users'
contains "Debian's cron: bad username in /etc/crontab" "$(deb_log)" \
    'bad username.*/etc/crontab'
contains "ours: bad username, file and line" "$(our_log a)" \
    "^\\(CRON\\) ERROR \\($T/a/cron.d/users:2: bad username $U: no such user\\)\$"
contains "ours: /etc/crontab's line" "$(our_log a)" \
    "^\\(CRON\\) ERROR \\($T/a/crontab:1: bad username $U: no such user\\)\$"
contains "ours: the table is ignored until it changes" "$(our_log a)" \
    "^\\(CRON\\) ERROR \\($T/a/cron.d/users: table ignored until it changes"

# The user appears: neither daemon looks again at a minute boundary.
ns_run useradd -M -d "$T/home/$U" -s /bin/sh -U "$U" >"$T/useradd.log" 2>&1 ||
    skip "useradd $U failed: $(cat "$T/useradd.log")"
uid=$(ns_run id -u "$U")
chown "$uid" "$T/home/$U"
t=$(ticks)
wait_for 75 ticked_after "$t" || fail "no minute ran after useradd"
wait_for 10 idle
for j in user root crontab-user crontab-root; do
	ntest=$((ntest + 1))
	if neither $j; then
		echo "ok: $j: not run once the user exists, the table unchanged"
	else
		fail "$j ran without the table changing: $(ls "$O")"
	fi
done
run ns_run "$CTAB" -T -s "$T/users"
same "ctab -T -s: no warning once the user exists" "$err" ""

# The tables change: both read them again, and run every entry.
touch "$T/a/crontab" "$T/a/cron.d/users"
ns_run touch /etc/crontab /etc/cron.d/users
for j in user root crontab-user crontab-root; do
	wait_for 75 ran $j || fail "$j did not run once its table changed"
done
deb_stop
dmn_stop a
ntest=$((ntest + 1))
if [ "$(stat -c %u "$O/a.user")" = "$uid" ] &&
    [ "$(stat -c %u "$O/deb.user")" = "$uid" ]; then
	echo "ok: the user's entries ran as the user"
else
	fail "the user's entries did not run as $U"
fi

finish
