#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at-burst.sh: three daemons on one private MariaDB, 300 one-shot jobs
# (at) due in the same second, half of them -L rerun; one node dies
# (SIGKILL to the daemon and its jobs) while it runs its share: the
# first seen holding runs.  Every
# attempt runs at most once in the cluster; every job the dead node did
# not hold runs exactly once, on a live node; of those it held, a
# -L mark job is failed and not run again, a -L rerun job runs again,
# once more, on a live node; every job ends done or failed, and the
# history (ccs) holds one run per attempt, none left running.  (An
# attempt a loaded node gets to past the lease of its claim is not
# started, and the job is due again at once: such attempts ran nothing.)
# Checked from the jobs' own lines and the runs table.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

N=300
for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 5s
EOF
done
for n in n1 n2 n3; do
	dmn_start $n
done
mkdir -p "$T/bin"
ln -s "$CTAB" "$T/bin/at"
ln -s "$CTAB" "$T/bin/atq"

# Submitted through the three nodes in turn, all due at one second far
# enough ahead for the submissions to be over.
due=$(($(date +%s) + 25))
stamp=$(date -d "@$due" +%Y%m%d%H%M.%S)
i=1
while [ $i -le $N ]; do
	case $((i % 3)) in
	0) s=n1 ;;
	1) s=n2 ;;
	*) s=n3 ;;
	esac
	pol=mark
	[ $((i % 2)) -eq 0 ] && pol=rerun
	echo "echo $i $pol \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT >>$O/ran; sleep 3" |
	    CTAB_SOCKET=$T/$s/sock "$T/bin/at" -L $pol -t "$stamp" \
	    2>>"$T/submit.err" || fail "submitting job $i"
	i=$((i + 1))
done
echo "submitted $N jobs by $(date +%s), due at $due ($(elapsed))"
[ "$(date +%s)" -lt "$due" ] || fail "submitting took past the jobs' time"
same "every job a number of its own" \
    "$(grep -c '^job [0-9]* at ' "$T/submit.err")" $N

# A node dies once the store shows runs of its in flight: the first of
# n1, n2, n3 seen holding some (a loaded node may get none of the
# burst).  V is the victim, L a node that lives.
victim() {
	for _n in n1 n2 n3; do
		if [ -n "$(run_rows "node == \"$_n\" && state == \"running\" &&
		    pid > 0")" ]; then
			V=$_n
			return 0
		fi
	done
	return 1
}
wait_for 40 victim || fail "no node ran any of the jobs"
case $V in
n1) L=n2; LIVE="n2 n3" ;;
n2) L=n1; LIVE="n1 n3" ;;
*) L=n1; LIVE="n1 n2" ;;
esac
dmn_crash $V || exit 1
echo "$V killed ($(elapsed))"
held=$(run_rows "node == \"$V\" && state == \"running\"" |
    awk '{ sub(/^at:/, "", $1); print $1 }' | sort -n)
echo "$V held $(echo "$held" | wc -w) jobs"

# Every job ends, done or failed.
pending() { CTAB_SOCKET=$T/$L/sock "$T/bin/atq" | wc -l | tr -d ' '; }
nopending() { [ "$(pending)" = 0 ]; }
wait_for 90 nopending || fail "$(pending) jobs still pending"
norun() { [ -z "$(run_rows 'state == "running"')" ]; }
wait_for 20 norun || fail "runs still running: $(run_rows 'state == "running"')"

CTAB_SOCKET=$T/$L/sock "$T/bin/atq" -a >"$T/atq"
# What each job did: its lines (number policy node attempt).
sort -k1n "$O/ran" >"$T/ran"
dups=$(awk '{ print $1, $4 }' "$T/ran" | sort | uniq -d)
same "no attempt ran twice" "$dups" ""
same "no job ran on $V after it died, nor more than twice" \
    "$(awk '{ c[$1]++ } END { for (j in c) if (c[j] > 2) print j }' "$T/ran")" ""
# Per job: its lines, its state, its runs (attempt node state).  An
# attempt that a node got to past the lease of its claim is recorded
# as missed and the job is due again: such runs may come before the one
# that ran, ran nothing, and take none of the job's retries (a rerun
# job whose first attempt was missed so and whose second died with $V
# is run again all the same).
bad=
i=1
while [ $i -le $N ]; do
	pol=mark
	[ $((i % 2)) -eq 0 ] && pol=rerun
	lines=$(awk -v j=$i '$1 == j' "$T/ran")
	nl=$(printf '%s' "$lines" | grep -c .)
	st=$(awk -F'\t' -v j=$i '$1 == j { print $2 }' "$T/atq" |
	    awk '{ print $(NF - 1) }')
	runs=$(run_rows "job == \"at:$i\"" | awk '{ print $3, $4, $5 }' |
	    sort -n)
	ran=$(printf '%s\n' "$runs" | grep -v -e ' failed$' -e ' missed$')
	# No line for an attempt that did not start.
	for a in $(printf '%s\n' "$runs" |
	    awk '$3 == "failed" || $3 == "missed" { print $1 }'); do
		printf '%s\n' "$lines" | awk -v a=$a '$4 == a' | grep -q . &&
		    bad="$bad $i(attempt $a both not started and ran)"
	done
	last=$(printf '%s\n' "$ran" | tail -n 1)
	if echo " $(echo $held) " | grep -q " $i "; then
		first=$(printf '%s\n' "$ran" | head -n 1)
		if [ $pol = mark ]; then
			# Killed with $V, its end unknown: failed, not rerun.
			[ "$nl" -le 1 ] && [ "$st" = failed ] &&
			    [ "${ran#* }" = "$V lost" ] ||
			    bad="$bad $i(held,mark:$nl,$st,$runs)"
		else
			# Run again once, on a live node.
			set -- $last
			[ "$st" = done ] && [ "$nl" -le 2 ] &&
			    [ "${first#* }" = "$V lost" ] &&
			    [ "$(printf '%s\n' "$ran" | wc -l)" = 2 ] &&
			    [ "$3" = finished ] &&
			    [ "$2" != "$V" ] &&
			    printf '%s\n' "$lines" |
			    awk -v a="$1" -v n="$2" '$4 == a && $3 == n' |
			    grep -q . ||
			    bad="$bad $i(held,rerun:$nl,$st,$runs)"
		fi
	else
		set -- $last
		[ "$nl" = 1 ] && [ "$st" = done ] &&
		    [ "$(printf '%s\n' "$ran" | wc -l)" = 1 ] &&
		    [ "$3" = finished ] &&
		    [ "$(echo $lines | awk '{ print $4, $3 }')" = "$1 $2" ] ||
		    bad="$bad $i($nl,$st,$runs)"
	fi
	i=$((i + 1))
done
same "each job ran as the rules say" "$bad" ""
for n in $LIVE; do
	echo "$n ran $(awk -v n=$n '$3 == n' "$T/ran" | wc -l) attempts"
done

dmn_alive $V && dmn_crash $V
finish
