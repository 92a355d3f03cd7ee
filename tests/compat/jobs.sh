#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# jobs.sh: one /etc/cron.d table of @reboot jobs run by Debian's cron and
# by ours, in turn, at the log levels of -L and with -n; what the jobs
# saw, what was logged and what was mailed must be the same.
#  - '%' input ends with a newline (a shell's `while read' gets the last
#    line) and a trailing '%' adds no empty line;
#  - the job lines (CMD, END, failures, pids) at each -L level, failures
#    in cron's words;
#  - every mail header but X-Cron-Env and our Auto-Submitted, the body,
#    and sendmail's arguments; "(failed)" in the subject at -L 4; the
#    full host name with -n.

. "$top_srcdir/tests/compat/lib.sh"

deb_fetch
ns_start

O=$T/jobout
cat >"$T/compat.tab" <<EOF
O=$O
@reboot root cat -A >\$O/in1%line1%line2
@reboot root cat -A >\$O/in2%a%b%
@reboot root while read l; do echo "[\$l]"; done >\$O/read%one%two
@reboot root echo fine; touch \$O/fine
@reboot root echo bad; touch \$O/bad; exit 3
@reboot root echo sig; touch \$O/sig; kill -9 \$\$
@reboot root touch \$O/quiet
EOF
NJOBS=7
ns_run cp "$T/compat.tab" /etc/cron.d/compat
dmn_setup a </dev/null
# The default mailer, as Debian's cron calls it.
sed -i '/^sendmail = /d' "$T/a/clustercron.conf"
cp "$T/compat.tab" "$T/a/cron.d/compat"

# done_by PID: every job has run and PID has no child left (every job
# and mailer reaped, every line logged).
done_by()
{
	[ "$(ls "$O" | wc -l)" -ge $NJOBS ] && ! children "$1"
}

# run_both NAME ARGS...: Debian's cron, then ours, with ARGS; the logs,
# mail and outputs in $T/r/{deb,cc}.NAME.
run_both()
{
	_name=$1
	shift
	rm -rf "$O"
	mkdir -p "$O" "$T/r"
	mail_dir "$T/r/deb.$_name.mail"
	deb_start "$@"
	wait_for 20 done_by "$DEB_PID" ||
	    fail "$_name: Debian's cron did not finish its jobs"
	deb_stop
	deb_log >"$T/r/deb.$_name.log"
	mv "$O" "$T/r/deb.$_name.out"

	mkdir -p "$O"
	mail_dir "$T/r/cc.$_name.mail"
	rm -f "$T/a/reboot"
	dmn_start a "$@"
	wait_for 20 done_by "$(dmn_pid a)" ||
	    fail "$_name: clustercron did not finish its jobs"
	dmn_stop a
	our_log a >"$T/r/cc.$_name.log"
	mv "$O" "$T/r/cc.$_name.out"
}

# job_lines WHO NAME: the lines about jobs, pids as PID, failures as
# "FAILED how", sorted (jobs run side by side).
job_lines()
{
	if [ "$1" = deb ]; then
		grep -E '^\([^)]*\) (CMD|END|error) \(' "$T/r/deb.$2.log" |
		    sed -E 's/^\(CRON\) error \((grandchild .*)\)$/FAILED \1/'
	else
		grep -E '^\([^)]*\) (CMD|END|FAILED) \(' "$T/r/cc.$2.log" |
		    sed -E 's/^\([^)]*\) FAILED \([^ ]* [^ ]* (grandchild [^;]*);.*/FAILED \1/'
	fi | sed -E 's/\[[0-9]+\]/[PID]/; s/#[0-9]+/#PID/' | LC_ALL=C sort
}

# mail_of WHO NAME SUBJECT: the message with that subject, X-Cron-Env
# and Auto-Submitted left out; mail_args likewise, its arguments.
mail_file()
{
	grep -lxF "Subject: $3" "$T/r/$1.$2.mail"/[0-9]* 2>/dev/null |
	    head -n 1
}

mail_of()
{
	_f=$(mail_file "$@")
	[ -n "$_f" ] && grep -vE '^(X-Cron-Env|Auto-Submitted): ' "$_f"
}

mail_args()
{
	_f=$(mail_file "$@")
	[ -n "$_f" ] && cat "$_f.args"
}

subjects()
{
	cat "$T/r/$1.$2.mail"/[0-9]* 2>/dev/null | grep '^Subject: ' |
	    LC_ALL=C sort
}

for lv in default 0 1 2 4 8 15; do
	if [ $lv = default ]; then
		run_both $lv
	else
		run_both $lv -L $lv
	fi
done
run_both fqdn -L 15 -n

# What the jobs saw on their standard input.
for f in in1 in2 read; do
	same "'%' input of $f as Debian's cron gives it" \
	    "$(od -c "$T/r/cc.default.out/$f")" \
	    "$(od -c "$T/r/deb.default.out/$f")"
done
same "the last input line ends with a newline" \
    "$(cat "$T/r/cc.default.out/in1")" "$(printf 'line1$\nline2$')"
same "while read gets every line" "$(cat "$T/r/cc.default.out/read")" \
    "$(printf '[one]\n[two]')"

# The log, level by level.
for lv in default 0 1 2 4 8 15 fqdn; do
	same "-L $lv: the job lines as Debian's cron logs them" \
	    "$(job_lines cc $lv)" "$(job_lines deb $lv)"
done
same "default level: one CMD line a job, nothing more" \
    "$(job_lines cc default | grep -cv '^(root) CMD (')" 0
same "default level: one CMD line a job" \
    "$(job_lines cc default | grep -c '^(root) CMD (')" $NJOBS
contains "-L 4: a failure names its fire and its job" \
    "$(cat "$T/r/cc.4.log")" \
    '^\(root\) FAILED \(a [0-9T:-]+Z grandchild #[0-9]+ failed with exit status 3; [0-9a-f]{32}: echo bad; touch \$O/bad; exit 3\)$'
contains "-L 4: a job killed by a signal" \
    "$(cat "$T/r/cc.4.log")" \
    '^\(root\) FAILED \(.* grandchild #[0-9]+ terminated by signal 9; '
contains "-L 15: CMD with the pid" "$(cat "$T/r/cc.15.log")" \
    '^\(root\) CMD \(\[[0-9]+\] touch \$O/quiet\)$'
same "no CLAIMED line by default (node-local jobs claim nothing anyway)" \
    "$(grep -c CLAIMED "$T/r/cc.default.log")" 0

# The mail.
bad='echo bad; touch $O/bad; exit 3'
for lv in default 4 fqdn; do
	same "-L $lv: the same subjects" "$(subjects cc $lv)" \
	    "$(subjects deb $lv)"
	for s in "Cron <root@ccnode> echo fine; touch \$O/fine" \
	    "Cron <root@ccnode> $bad" \
	    "Cron <root@ccnode> $bad (failed)" \
	    "Cron <root@ccnode.example.test> $bad (failed)"; do
		[ -n "$(mail_file deb $lv "$s")" ] || continue
		same "-L $lv: mail '$s' as Debian's cron writes it" \
		    "$(mail_of cc $lv "$s")" "$(mail_of deb $lv "$s")"
		same "-L $lv: sendmail's arguments for '$s'" \
		    "$(mail_args cc $lv "$s")" "$(mail_args deb $lv "$s")"
		d=$(mail_file deb $lv "$s")
		c=$(mail_file cc $lv "$s")
		same "-L $lv: Debian's X-Cron-Env lines are all in ours" \
		    "$(grep '^X-Cron-Env: ' "$d" | grep -vxFf "$c")" ""
	done
done
contains "default: a failed job's subject as cron words it" \
    "$(subjects cc default)" "^Subject: Cron <root@ccnode> echo bad; touch \\\$O/bad; exit 3$"
contains "-L 4: (failed) in the subject" \
    "$(subjects cc 4)" "^Subject: Cron <root@ccnode> echo bad; .* \(failed\)$"
contains "-n: the full host name" \
    "$(subjects cc fqdn)" "^Subject: Cron <root@ccnode.example.test> echo fine"
same "the mail of three jobs" "$(ls "$T/r/cc.default.mail" | grep -c '^[0-9]*$')" 3

finish
