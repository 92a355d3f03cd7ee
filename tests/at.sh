#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at.sh: ctab as at, atq, atrm and batch (and ctab -A), as a person
# uses them, against two running daemons on one SQLite store: every
# option, every message and exit status, the job's script as at -c
# shows it, a key that makes submitting twice harmless, retries and
# back-off as stored, a job submitted through one node seen, printed
# and removed through the other, the daemon down, and the prompts of
# a terminal (tmux).  How the jobs run is tests/daemon/at-run.sh's;
# who may use at (at.allow, at.deny) and the comparison with Debian's
# at are tests/at-debian-cli.sh's.

. "$top_srcdir/tests/daemon/lib.sh"

for n in n1 n2; do
	dmn_setup $n </dev/null
done
dmn_start n1
dmn_start n2
mkdir -p "$T/bin" "$T/wd"
for p in at atq atrm batch; do
	ln -s "$CTAB" "$T/bin/$p"
done
CTAB_SOCKET=$T/n1/sock
export CTAB_SOCKET
PATH=$T/bin:$PATH
export PATH
UID_=$(id -u)
GID_=$(id -g)
# at's own format for an instant; a value and a directory quoted as at
# quotes them in a job's script.
when() { date -d "@$1" '+%a %b %e %H:%M:%S %Y'; }
quoted() { printf '%s' "$1" | sed 's|[^]a-zA-Z0-9%/{}=@+#,.:_[-]|\\&|g'; }
quoted_dir() { printf '%s' "$1" | sed 's|[^a-zA-Z0-9/]|\\&|g'; }
echo true >"$T/true"
echo false >"$T/false"
T2030=$(date -d '2030-01-01 12:00' +%s)
U2030=$(TZ=UTC date -d '2030-01-01 12:00' '+%a %b %e %H:%M:%S %Y')
T2031=$(date -d '2031-06-15 08:30' +%s)
printf 'echo from a file\n' >"$T/job"

# Submitting, from the standard input.
printf 'echo one\necho two\n' | (cd "$T/wd" && umask 027 &&
    env -i HOME="$T/wd" PATH="$PATH" CTAB_SOCKET="$CTAB_SOCKET" \
    FOO='a b$c' TERM=xterm DISPLAY=:0 LD_PRELOAD= TZ=UTC \
    at -t 203001011200) >"$T/out" 2>"$T/err"
same "at -t: exit 0" "$?" 0
same "... warning and job line on stderr, nothing on stdout" \
    "$(cat "$T/err")$(cat "$T/out")" \
    "warning: commands will be executed using /bin/sh
job 1 at $U2030"
run atq
same "atq lists it, at's layout" "$out" \
    "1	$(when "$T2030") a $ME"
run at -c 1
same "at -c: exit 0" "$rc" 0
same "... the script as at writes it" "$out" "#!/bin/sh
# atrun uid=$UID_ gid=$GID_
# mail $ME 0
umask 27
HOME=$(quoted "$T/wd"); export HOME
PATH=$(quoted "$PATH"); export PATH
CTAB_SOCKET=$(quoted "$CTAB_SOCKET"); export CTAB_SOCKET
FOO=a\\ b\\\$c; export FOO
TZ=UTC; export TZ
cd $(quoted_dir "$T/wd") || {
	 echo 'Execution directory inaccessible' >&2
	 exit 1
}
echo one
echo two"
contains "... TERM, DISPLAY and LD_PRELOAD left out" \
    "$(printf '%s\n' "$out" | grep -c -e ^TERM= -e ^DISPLAY= -e ^LD_PRELOAD=)" \
    '^0$'

# A job submitted on n1 is the cluster's: n2 lists and prints it.
CTAB_SOCKET=$T/n2/sock run atq
same "through n2: the same job, the same number" "$out" \
    "1	$(when "$T2030") a $ME"
CTAB_SOCKET=$T/n2/sock run at -c 1
contains "... and the same script" "$out" '^echo two$'

run at -f "$T/job" -q c -m -t 203106150830
same "-f, -q, -m: exit 0" "$rc" 0
same "... job 2" "$err" "warning: commands will be executed using /bin/sh
job 2 at $(when "$T2031")"
run at -c 2
contains "... mail even without output" "$out" "^# mail $ME 1$"
contains "... the commands of the file" "$out" "^echo from a file$"
run atq -q c
same "atq -q: that queue only" "$out" "2	$(when "$T2031") c $ME"
run at -M -t 203001011200 <"$T/true"
run at -c 3
contains "-M: no mail" "$out" "^# mail $ME -1$"
run atq -o %s 3
same "atq -o, one job named" "$out" "3	$T2030 a $ME"
run at -l 3
same "at -l is atq" "$out" "3	$(when "$T2030") a $ME"
run "$CTAB" -A -l 3
same "ctab -A -l too" "$out" "3	$(when "$T2030") a $ME"
run "$CTAB" -A -t 203001011200 <"$T/true"
same "ctab -A submits" "$(printf '%s\n' "$err" | tail -n 1)" \
    "job 4 at $(when "$T2030")"

# batch: now, queue b, no warning; nothing else accepted.
run batch <"$T/true"
same "batch: exit 0" "$rc" 0
contains "... job 5 now" "$err" \
    "^job 5 at [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [0-9]{4}$"
contains "... with at's warning, as Debian's batch runs at -qb" "$err" \
    "^warning: commands will be executed using /bin/sh$"
run at -b <"$T/true"
contains "at -b is batch" "$err" "^job 6 at "
same "... and gives no warning" "$(printf '%s\n' "$err" | grep -c warning)" 0
run atq -a 5
contains "... queue b (= once it runs; it may have run)" "$out" \
    "^5	.* [b=] $ME( |$)"
run batch now
same "batch with an argument: exit 1" "$rc" 1
same "... as Debian's batch says it, on stdout" "$out" \
    "batch accepts no parameters"

# A key: submitting twice makes one job.
echo 'echo keyed' >"$T/keyed"
run at -k report-2030 -t 203001011200 <"$T/keyed"
same "-k: a new job" "$(printf '%s\n' "$err" | tail -n 1)" \
    "job 7 at $(when "$T2030")"
echo 'echo other' >"$T/other"
run at -k report-2030 -t 203106150830 <"$T/other"
same "-k again: exit 0" "$rc" 0
same "... the same job, its time, and why nothing new" "$err" \
    "warning: commands will be executed using /bin/sh
job 7 at $(when "$T2030")
at: key report-2030 already names job 7 (waiting): nothing new submitted"
run at -c 7
contains "... unchanged" "$out" '^echo keyed$'
CTAB_SOCKET=$T/n2/sock run at -k report-2030 -f "$T/job" now
same "-k through the other node: the same job" \
    "$(printf '%s\n' "$err" | grep -c 'already names job 7')" 1
run at -k 'has blank' now <"$T/true"
same "-k with a blank: exit 1" "$rc" 1
same "... said" "$err" "at: -k has blank: a key is 1 to 128 printable characters, without blanks"

# Retries and back-off, as stored.
run at -R 3 -B 1m,5m,30m -t 203001011200 <"$T/false"
same "-R -B: exit 0" "$rc" 0
run atq -a 8
same "atq -a: state and attempts of 4" "$out" \
    "8	$(when "$T2030") a $ME waiting 0/4"
run at -B 30s,2m -t 203001011200 <"$T/false"
run atq -a 9
same "-B alone: as many retries as delays" "$out" \
    "9	$(when "$T2030") a $ME waiting 0/3"
run at -R 2 -t 203001011200 <"$T/false"
run atq -a 10
same "-R alone: the default back-off" "$out" \
    "10	$(when "$T2030") a $ME waiting 0/3"
run at -B 1m..1h -t 203001011200 <"$T/false"
same "-B doubling without -R: exit 1" "$rc" 1
same "... said" "$err" "at: -B 1m..1h: say how many retries with -R"
run at -R 2 -B 1m,5x now <"$T/false"
same "-B malformed: exit 1" "$rc" 1
same "... naming the column" "$err" \
    "at: -B 1m,5x: column 4: expected a delay such as 30s, 5m, 2h or 1d (up to 30d)"
run at -R 101 now <"$T/false"
same "-R too many" "$err" "at: -R 101: retries are a number from 0 to 100"
run at -L sometimes now <"$T/false"
same "-L other than mark or rerun" "$err" \
    "at: -L sometimes: expected mark or rerun"
run at -R 1 -L rerun -t 203001011200 <"$T/false"
same "-L rerun: exit 0" "$rc" 0

# Bad times: one line naming what is wrong, nothing read, nothing stored.
run atq
before=$out
run at tomorow <"$T/true"
same "a malformed time: exit 1" "$rc" 1
same "... naming the column" "$err" \
    'at: tomorow: column 1: found "tomorow", expected a time (such as now, 10:30, 4pm, noon or midnight) or a date'
run at now - 1 hour <"$T/true"
same "a time in the past: exit 1" "$rc" 1
contains "... said" "$err" "^at: now - 1 hour: found .*, which is in the past"
run at -t 20301301 <"$T/true"
same "-t malformed: exit 1" "$rc" 1
contains "... said" "$err" "^at: -t 20301301: "
run at <"$T/true"
contains "no time: at's usage" "$err" "^Usage: at "
run at -f "$T/absent" now
same "-f a missing file: exit 1" "$rc" 1
same "... as at says it" "$err" "warning: commands will be executed using /bin/sh
Cannot open input file $T/absent: No such file or directory"
run at -q 1 now <"$T/true"
contains "-q not a letter: usage" "$err" "^Usage: at "
run at -q = now <"$T/true"
contains "-q =, the running jobs': usage" "$err" "^Usage: at "
run at -u root now <"$T/true"
same "-u: mail goes to the owner" "$err" \
    "at: -u root: the output of a job is mailed to its owner"
head -c 1100000 /dev/zero | tr '\0' '#' >"$T/huge"
run at -f "$T/huge" now
same "a job over 1 MiB: exit 1" "$rc" 1
same "... said" "$(printf '%s\n' "$err" | tail -n 1)" \
    "at: the job is larger than 1048576 bytes"
run atq
same "nothing refused was stored" "$out" "$before"

# atrm, at -r, at -d.
run atrm 3
same "atrm: exit 0, quietly" "$rc.$err$out" "0."
run atq 3
same "... gone from atq" "$out" ""
run atq -a 3
same "... kept as cancelled for atq -a" "$out" \
    "3	$(when "$T2030") a $ME cancelled 0/1"
run atrm 3
same "atrm again: exit 1" "$rc" 1
same "... it is over already" "$err" "atrm: 3: cancelled already"
run atrm 999 abc 4
same "atrm of none, a word and one: exit 1" "$rc" 1
same "... the word said, as at says it, and nothing done" "$err" \
    "at: unknown jobid: abc"
run atq 4
contains "... the one there kept" "$out" "^4	"
run atrm 999 4
same "atrm of none and one: exit 1" "$rc" 1
same "... said" "$err" "Cannot find jobid 999"
run atq 4
same "... the one there removed" "$out" ""
run at -r 2
same "at -r: exit 0" "$rc" 0
run at -d 1
same "at -d: exit 0" "$rc" 0
run at -c 1 999
same "at -c of none: exit 1" "$rc" 1
same "... said for each" "$err" "Cannot find jobid 999"
contains "... printing the one there" "$out" '^echo one$'
run atq x
same "atq x" "$err" "atq: invalid job number"
run atrm
contains "atrm with nothing: usage" "$err" "^Usage: at "
run at -l -m
contains "-m with -l: usage" "$err" "^Usage: at "
run at -V
same "-V: exit 0" "$rc" 0
contains "... on stderr" "$err" "^at version [0-9.]+ \\(clustercron\\)$"

# The daemon down: said at once, before a job is read.
CTAB_SOCKET=$T/nowhere run at -t 203001011200 </dev/null
same "no daemon: exit 1" "$rc" 1
same "... said before anything" "$err" \
    "at: clustercron is not running (nothing answers at $T/nowhere); start it with: $(if [ -d /run/systemd/system ]; then echo systemctl start clustercron; else echo /etc/init.d/clustercron start; fi)"
CTAB_SOCKET=$T/nowhere run atq
same "... atq too" "$rc" 1

# A terminal: at's prompts, <EOT>, the job; ^C submits nothing.
if command -v tmux >/dev/null 2>&1; then
	# A server of its own for each session: a new one on the socket of
	# a server just killed may find it still going away.
	tms=ccat$$a
	tm() { tmux -L "$tms" "$@"; }
	tm new-session -d -x 100 -y 20 \
	    "cd $T/wd && PATH=$PATH CTAB_SOCKET=$CTAB_SOCKET at -t 203001011200; echo \$? >$T/tty.rc; sleep 600"
	screen_has() { tm capture-pane -p | grep -q -- "$1"; }
	wait_for 10 screen_has '^at> *$' || fail "at prompts on a terminal"
	tm send-keys 'echo typed one' Enter
	wait_for 10 screen_has '^at> echo typed one *$' ||
	    fail "the line is shown after its prompt"
	# Typed ahead of the next prompt, a line would be echoed before it.
	wait_for 10 screen_has '^at> *$' || fail "at prompts for a second line"
	tm send-keys 'echo typed two' Enter C-d
	wait_for 10 test -s "$T/tty.rc" || fail "at returns after ^D"
	same "terminal: exit 0" "$(cat "$T/tty.rc")" 0
	same "... the screen, as at's" "$(tm capture-pane -p | grep -v '^$')" \
	    "warning: commands will be executed using /bin/sh
at $(when "$T2030")
at> echo typed one
at> echo typed two
at> <EOT>
job 12 at $(when "$T2030")"
	tm kill-server
	run at -c 12
	contains "... the typed commands stored" "$out" '^echo typed two$'
	tms=ccat$$b
	tm new-session -d -x 100 -y 20 \
	    "trap '' INT; PATH=$PATH CTAB_SOCKET=$CTAB_SOCKET at -t 203001011200; echo \$? >$T/int.rc; sleep 600"
	wait_for 10 screen_has '^at> *$' || fail "at prompts again"
	tm send-keys 'echo never' Enter C-c
	wait_for 10 test -s "$T/int.rc" || fail "at returns after ^C"
	same "^C: exit 1" "$(cat "$T/int.rc")" 1
	tm kill-server
	run at -c 13
	same "... nothing submitted" "$err" "Cannot find jobid 13"
else
	skip_part "no tmux for the terminal test"
fi

contains "the daemon logs each submission" "$(cat "$T/n1.log")" \
    "\\($ME\\) AT \\(job 1, due 2030-01-01T"
contains "... and each removal" "$(cat "$T/n1.log")" \
    "\\($ME\\) AT REMOVE \\(job 3\\)"
finish
