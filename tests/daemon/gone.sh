# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# gone.sh: jobs whose tables go, on two daemons sharing one store, for
# tests/daemon/jobs-gone.sh (SQLite) and tests/cluster/jobs-gone.sh
# (MariaDB), sourced after lib.sh and, for MariaDB, dmn_cluster.
#
# Node a has six tables of /etc/cron.d, two of them alike, and node b
# one, the shared table, which a has too; both run the table stored for
# the user.  Each job writes its fire, node and identity to a file of
# its own.  Then, while both run: the shared table leaves a (b keeps
# it: its job keeps its row and runs on b, once a fire), and so does
# one of the two alike (the other keeps its job); a table of a's own
# goes, another is replaced, and so is the stored table; then a stops,
# loses a table and starts again.  Every job whose table went from every node leaves the
# store (as ccstore reads it) and clustercron jobs, and clustercron
# history still shows its runs, with its owner and command.  The other
# jobs stay, and no fire of any job runs twice.

needs python3

# py CODE ARGS...: CODE with d, the JSON document on standard input.
py()
{
	_c=$1
	shift
	python3 -c "import json, sys
d = json.load(sys.stdin)
$_c" "$@"
}

# table FILE NAME [user]: a table whose one job writes $O/NAME, of
# system format unless user is given.
table()
{
	{
		echo 'CLUSTERCRON_SECONDS=yes'
		echo 'MAILTO=""'
		printf '* * * * * * %s' "${3:-$ME }"
		echo "echo \$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_JOB_ID >>$O/$2"
	} >"$1"
}

# id NAME: the identity of the job that writes $O/NAME, once it ran.
id()
{
	head -n 1 "$O/$1" | cut -d' ' -f3
}

# in_store NAME / gone_from_store NAME: its row is, or is not, there.
in_store()
{
	ccs jobs | grep -q "^$(id "$1") "
}

gone_from_store()
{
	! in_store "$1"
}

# listed NAME: clustercron jobs on a's configuration lists it.
listed()
{
	"$CLUSTERCRON" jobs -c "$T/a/clustercron.conf" --json |
	    py 'sys.exit(0 if [j for j in d if j["id"] == sys.argv[1]] else 1)' \
	    "$(id "$1")"
}

# history_of NAME: the job's runs by clustercron history, then its
# owner, whether it is gone, and the first word of its command.
history_of()
{
	"$CLUSTERCRON" history -c "$T/a/clustercron.conf" --json -n 0 \
	    "$(id "$1")" | py '
print(len(d), " ".join(sorted(set("%s %s %s" % (r["owner"], r["gone"],
    (r["command"] or "-").split(" ")[0]) for r in d))))'
}

# more NAME N: the job's file grows by N lines from now.
more()
{
	wait_for 30 at_least $(($(count_lines "$O/$1") + $2)) "$O/$1"
}

# all_runs NAME: the history has a run for every line the job wrote
# (the record of the last may follow its start by a moment).
all_runs()
{
	_h=$(history_of "$1")
	[ "${_h%% *}" -ge "$(count_lines "$O/$1")" ]
}

# kept NAME: the job's runs are all in the history, which says what it
# was though it is gone.
kept()
{
	wait_for 10 all_runs "$1" ||
	    fail "$1: history has fewer runs than the job ran"
	_h=$(history_of "$1")
	same "$1: history shows what the job was" "${_h#* }" "$ME True echo"
}

gone_test()
{
	O=$T/jobs
	mkdir -p "$O"
	chmod 777 "$O"
	for n in a b; do
		printf '%s\n' 'heartbeat-interval = 1s' \
		    'store-tables-interval = 1s' | dmn_setup $n
		table "$T/$n/cron.d/shared" shared
	done
	for f in onlya replaced startgone; do
		table "$T/a/cron.d/$f" $f
	done
	table "$T/a/cron.d/twin1" twin
	table "$T/a/cron.d/twin2" twin
	table "$T/stored" stored ' '
	ccs put "$ME" "$T/stored" || fail "cannot store a table"

	dmn_start a
	dmn_start b
	for f in shared onlya replaced startgone stored twin; do
		wait_for 30 at_least 2 "$O/$f" || fail "$f does not run"
	done
	for f in shared onlya replaced startgone stored twin; do
		wait_for 10 in_store $f || fail "$f: not in the store"
		listed $f || fail "$f: not listed"
	done

	# The shared table leaves a, which logs it; b still has it; and so
	# does one of the two alike, whose job a still has.  Then a table
	# of a's own goes: once its job has left the store, a has let go of
	# the others too, and those must have stayed.
	rm "$T/a/cron.d/shared" "$T/a/cron.d/twin1"
	wait_for 10 in_log a "REMOVED \($T/a/cron.d/shared\)" ||
	    fail "a did not see its shared table go"
	wait_for 10 in_log a "REMOVED \($T/a/cron.d/twin1\)" ||
	    fail "a did not see one of the tables alike go"
	rm "$T/a/cron.d/onlya"
	wait_for 10 gone_from_store onlya ||
	    fail "a job whose table left its only node stays in the store"
	listed onlya && fail "jobs still lists a job whose table went"
	in_store shared ||
	    fail "a job the other node still has left the store"
	listed shared || fail "jobs no longer lists the shared job"
	in_store twin ||
	    fail "a job another table of the node still has left the store"
	kept onlya
	more twin 3 || fail "the job of the table left alike stopped running"
	n=$(count_lines "$O/shared")
	more shared 4 || fail "the shared job stopped running"
	same "the shared job runs on b alone once a let it go" \
	    "$(tail -n +$((n + 2)) "$O/shared" | cut -d' ' -f2 | sort -u)" b

	# A table replaced: the job that left it goes, the new one comes.
	table "$T/a/cron.d/replaced.tmp" replacement
	mv "$T/a/cron.d/replaced.tmp" "$T/a/cron.d/replaced"
	wait_for 30 at_least 2 "$O/replacement" ||
	    fail "the replacing job does not run"
	wait_for 10 gone_from_store replaced ||
	    fail "the job of a replaced table stays in the store"
	listed replaced && fail "jobs still lists the job of a replaced table"
	wait_for 10 in_store replacement || fail "the replacing job: no row"
	kept replaced

	# The stored table, on both nodes, replaced for both at once.
	table "$T/stored" restored ' '
	ccs put "$ME" "$T/stored" || fail "cannot store a table"
	wait_for 30 at_least 2 "$O/restored" ||
	    fail "the replacing stored job does not run"
	wait_for 20 gone_from_store stored ||
	    fail "the job of a replaced stored table stays in the store"
	listed stored && fail "jobs still lists the old stored job"
	kept stored

	# A table removed while its node is down: gone when it starts.
	dmn_stop a
	rm "$T/a/cron.d/startgone"
	in_store startgone || fail "the stopped node's job left the store"
	dmn_restart a
	wait_for 10 gone_from_store startgone ||
	    fail "a start leaves the job of a table removed meanwhile"
	listed startgone && fail "jobs lists the job of a table removed"
	kept startgone
	more restored 3 || fail "the stored job stopped after the restart"
	dmn_stop a
	dmn_stop b

	same "the jobs left: the shared, the twin, the replacing, the stored" \
	    "$(ccs jobs | cut -d' ' -f1 | sort)" \
	    "$(for f in shared twin replacement restored; do id $f; done |
	    sort)"
	for f in shared onlya replaced replacement startgone stored restored \
	    twin
	do
		same "$f: no fire ran twice" "$(dups_of "$O/$f")" ""
	done
	same "runs: no fire of a job started twice" \
	    "$(runs | awk '$3 >= 1 { print $1, $2 }' | sort | uniq -d)" ""
}
