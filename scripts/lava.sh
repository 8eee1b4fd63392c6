#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/lava.sh jobs [ARCH...]   one LAVA job per shard (make lava-jobs)
#        scripts/lava.sh run JOB...       run job definitions with lava-run
#        scripts/lava.sh check            the local proof (make lava-check)
#
# The gate's matrix as LAVA jobs (scripts/lava.py says what a shard and
# its job are).  "jobs" writes build/lava/jobs/SHARD.yaml for every shard
# of ARCH... (default: the arches "make test" gates; GATE_ARCHES), from
# the kernels and initramfs the last build left, each job validated with
# LAVA's own schema first; build/lava/jobs/artifacts.txt lists the files
# a lab must serve.  Artifact URLs are $KUNIT52_LAVA_ARTIFACTS (default
# file://REPO/build) followed by the file's path below build/.
#
# "run" and "check" run jobs here with Debian's lava-dispatcher (lava-run),
# which renders nothing itself: each job's device dictionary is LAVA's
# qemu device type (from Debian's lava-server) rendered with the job's
# context, as lava-server does.  The LAVA packages are downloaded and
# unpacked into build/lava/root, never installed: lava-dispatcher's
# Depends make a LAVA worker of the machine (systemd-sysv as init, udev,
# lvm2, mdadm, kmod, and lava-dispatcher-host's eBPF programs for USB
# boards, loaded into the host kernel), and lava-server is a Django site
# with PostgreSQL.  lava-run needs neither; the Python libraries it
# imports are installed ("scripts/deps.sh lava"), except libguestfs
# (python3-guestfs pulls 111 packages), which only jobs that write into
# disk images use: a stub of it raises if called.  lava-run keeps its
# downloads in /var/lib/lava/dispatcher/tmp/JOB_ID while a job runs.
#
# "check" proves the jobs on x86_64: it builds and runs the KUnit suites
# and the full-system boot with our runner, runs the same two shards with
# lava-run, and requires LAVA's test cases to equal ours, case by case;
# then a shard whose kernel hangs must end in LAVA's timeout with a
# failed job; then a planted mutant of mm/vmalloc.c must fail the same
# cases in both.  The tree is restored and rebuilt on any exit.  Logs,
# results and the jobs run are kept in build/lava/check.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

# Everything of ours and LAVA's (the self-tests use their own).
LAVA=${KUNIT52_LAVA_DIR:-$REPO/build/lava}
export KUNIT52_LAVA_DIR=$LAVA
JOBS=$LAVA/jobs
# The unpacked LAVA packages (lava_common's schemas, lava-run, the
# device types).
ROOT=$LAVA/root
LAVA_DEBS=(lava-common lava-dispatcher lava-dispatcher-host lava-server)
# Debian's python3, which sees Debian's python3-* packages.
PY=/usr/bin/python3
ARTIFACTS=${KUNIT52_LAVA_ARTIFACTS:-file://$REPO/build}

# The proof: its arch, the shards it runs, the mutant it plants (a line
# of a mutation list) and the hang probe's time limit (s).
CHECK=$LAVA/check
CHECK_ARCH=x86_64
CHECK_SHARDS=(kunit system)
CHECK_MUTANT_LIST=$REPO/mutations/vmalloc.tsv
CHECK_MUTANT=classify-right-edge-off-by-one
HANG_TIMEOUT=60
MUTATED=""

# stage_lava: download the LAVA packages (into the shared package cache)
# and unpack them into ROOT, with the libguestfs stub.
stage_lava() {
	local debs f
	debs=$(debs_dir)
	(
		flock 9
		fetch_debs "$debs" "${LAVA_DEBS[@]}"
	) 9> "$debs/.lock"
	rm -rf "$ROOT"
	mkdir -p "$ROOT/stub"
	while read -r f; do
		dpkg -x "$debs/$f" "$ROOT"
	done < <(candidate_debs "${LAVA_DEBS[@]}")
	cat > "$ROOT/stub/guestfs.py" <<-'EOF'
	"""kunit52: libguestfs is not installed (scripts/lava.sh says why)."""


	def __getattr__(name):
	    raise ImportError("guestfs." + name + ": libguestfs is not installed")
	EOF
}

# need_artifacts ARCH: ARCH's gate kernel must be built; its initramfs
# is built if missing.
need_artifacts() {
	local arch=$1 variant build
	variant=$(gate_variant "$arch")
	build=$(KUNIT52_VARIANT=$variant build_dir "$arch")
	[[ -f "$build/$(arch_fact "$arch" kernel_path)" ]] ||
		die "no $arch kernel in $build (run: make test, or make system ARCH=$arch${variant:+ VARIANT=$variant})"
	[[ -f "$build/system/initramfs.cpio.gz" ]] ||
		KUNIT52_VARIANT=$variant "$REPO/scripts/initramfs.sh" "$arch" "$build/system"
}

# write_jobs OUT [lava.py jobs option...] -- ARCH...: the jobs of ARCH...
write_jobs() {
	local out=$1 a
	local -a opts=() arches
	shift
	while [[ $1 != -- ]]; do
		opts+=("$1")
		shift
	done
	shift
	arches=("$@")
	mkdir -p "$LAVA"
	for a in "${arches[@]}"; do
		KUNIT52_VARIANT=$(gate_variant "$a") "$REPO/scripts/system.sh" --boots "$a" |
			sed "s/^/$a\t/"
	done > "$LAVA/boots.tsv"
	"$PY" "$REPO/scripts/lava.py" jobs --out "$out" --artifacts "$ARTIFACTS" \
		--lava-root "$ROOT" --boots "$LAVA/boots.tsv" \
		--kunit-timeout "$KUNIT_BOOT_TIMEOUT" "${opts[@]}" "${arches[@]}"
}

cmd_jobs() {
	local a list
	local -a arches
	[[ $# -eq 0 ]] || KUNIT52_GATE_ARCHES="$*"
	list=$(gate_arches) || exit 1
	mapfile -t arches <<< "$list"
	stage_lava
	for a in "${arches[@]}"; do
		need_artifacts "$a"
	done
	rm -rf "$JOBS"
	write_jobs "$JOBS" -- "${arches[@]}"
	info "$(find "$JOBS" -name '*.yaml' | wc -l) LAVA jobs in $JOBS; the files a lab serves: $JOBS/artifacts.txt"
}

# lava_run JOB DIR [--validate]: run JOB with lava-run (or only let it
# validate the job's pipeline), its files in DIR (device.yaml, lava.log,
# out/); the exit status of lava-run.
lava_run() {
	local job=$1 dir=$2 rc=0
	local -a validate=("${@:3}")
	rm -rf "$dir"
	mkdir -p "$dir"
	"$PY" "$REPO/scripts/lava.py" device --lava-root "$ROOT" --out "$dir/device.yaml" "$job"
	info "lava-run ${validate[*]:+${validate[*]} }$(basename "$job" .yaml) (log: $dir/lava.log)"
	PYTHONPATH=$ROOT/stub:$ROOT/usr/lib/python3/dist-packages \
		"$PY" "$ROOT/usr/bin/lava-run" "${validate[@]}" --job-id "kunit52-$$-$(basename "$job" .yaml)" \
		--output-dir "$dir/out" --device "$dir/device.yaml" "$job" \
		> "$dir/lava.log" 2>&1 || rc=$?
	return "$rc"
}

cmd_run() {
	local job name rc=0
	[[ $# -gt 0 ]] || die "usage: ${0##*/} run JOB..."
	for job in "$@"; do
		[[ -f "$job" ]] || die "no such job: $job"
	done
	"$REPO/scripts/deps.sh" lava
	[[ -d "$ROOT/usr/bin" ]] || stage_lava
	mkdir -p "$LAVA/run"
	: > "$LAVA/run/results.jsonl"
	for job in "$@"; do
		name=$(basename "$job" .yaml)
		if ! lava_run "$job" "$LAVA/run/$name"; then
			echo "lava-run $name: the job failed (log: $LAVA/run/$name/lava.log)" >&2
			rc=1
		fi
		lava_results "$job" "$LAVA/run/$name" "$LAVA/run/$name/lava.jsonl"
		cat "$LAVA/run/$name/lava.jsonl" >> "$LAVA/run/results.jsonl"
	done
	python3 "$REPO/scripts/results.py" report "$LAVA/run/results.jsonl" || rc=1
	return "$rc"
}

# -- the proof ---------------------------------------------------------

VERDICTS=()
# verdict WHAT OK|FAIL DETAIL: one row of the proof's table.
verdict() {
	VERDICTS+=("$(printf '%-4s  %-34s %s' "$2" "$1" "$3")")
}

# counts FILE: the "N passed, N failed" line of a results file, with
# its skips (results.py report).
counts() {
	python3 "$REPO/scripts/results.py" report "$1" |
		grep -E '^[0-9]+ passed, [0-9]+ failed$|^\([0-9]+ skipped\)$' | paste -sd' ' || true
}

# lava_results JOB DIR OUT: LAVA's test cases of the run in DIR, to OUT.
lava_results() {
	: > "$3"
	"$PY" "$REPO/scripts/lava.py" results --area lava --config "$(basename "$1" .yaml)" \
		--log "$2/lava.log" --out "$3" "$2/lava.log"
}

# compare_shard NAME OURS JOB DIR: run JOB in DIR, compare with OURS.
compare_shard() {
	local name=$1 ours=$2 job=$3 dir=$4 rc=0 same
	lava_run "$job" "$dir" || rc=$?
	lava_results "$job" "$dir" "$dir/lava.jsonl"
	if [[ $rc -ne 0 ]]; then
		verdict "$name" FAIL "lava-run failed (exit $rc, log: $dir/lava.log)"
	elif same=$("$PY" "$REPO/scripts/lava.py" compare --job "$job" "$ours" "$dir/lava.jsonl"); then
		verdict "$name" ok "LAVA: $(counts "$dir/lava.jsonl"); ${same##*$'\n'}"
	else
		echo "$same"
		verdict "$name" FAIL "LAVA: $(counts "$dir/lava.jsonl"), ours: $(counts "$ours") (log: $dir/lava.log)"
	fi
}

# ours_kunit OUT: our runner's KUnit results on CHECK_ARCH, to OUT.
ours_kunit() {
	: > "$1"
	KUNIT52_RESULTS=$1 "$REPO/scripts/kunit.sh" "$CHECK_ARCH" '*' || true
}

# Restore the mutated file and rebuild, so that the build matches the tree.
restore_tree() {
	[[ -n "$MUTATED" ]] || return 0
	git -C "$TREE" checkout -q -- "$MUTATED"
	MUTATED=""
	info "tree restored; rebuilding $CHECK_ARCH"
	KUNIT52_KUNIT_MODE=build KUNIT52_RESULTS=/dev/null \
		"$REPO/scripts/kunit.sh" "$CHECK_ARCH" > "$CHECK/rebuild.log" 2>&1 ||
		echo "lava.sh: rebuild after the mutant failed (log: $CHECK/rebuild.log)" >&2
}

# Every job of CHECK_ARCH passes lava-run's own validation of its pipeline.
check_validate() {
	local job n=0 bad=()
	for job in "$JOBS"/*.yaml; do
		n=$((n + 1))
		lava_run "$job" "$CHECK/validate/$(basename "$job" .yaml)" --validate ||
			bad+=("$(basename "$job" .yaml)")
	done
	if [[ ${#bad[@]} -eq 0 ]]; then
		verdict "lava-run --validate" ok "$n of $n $CHECK_ARCH jobs"
	else
		verdict "lava-run --validate" FAIL "rejected: ${bad[*]} (logs: $CHECK/validate)"
	fi
}

check_hang() {
	local dir=$CHECK/hang rc=0 start=$SECONDS
	write_jobs "$dir/job" --only "$CHECK_ARCH-kunit" --timeout "$HANG_TIMEOUT" \
		--kernel-args 'kunit.enable=0 panic=0' -- "$CHECK_ARCH" > /dev/null
	lava_run "$dir/job/$CHECK_ARCH-kunit.yaml" "$dir/run" || rc=$?
	if [[ $rc -ne 0 ]] && grep -q '^result: fail' "$dir/run/out/result.yaml" &&
	   grep -q 'timed out' "$dir/run/lava.log"; then
		verdict "hang ends in LAVA's timeout" ok "job failed after $((SECONDS - start)) s (limit ${HANG_TIMEOUT} s): $(grep '^error_msg' "$dir/run/out/result.yaml")"
	else
		verdict "hang ends in LAVA's timeout" FAIL "lava-run exit $rc (log: $dir/run/lava.log)"
	fi
}

check_mutant() {
	local dir=$CHECK/mutant line name file old new
	line=$(grep -P "^$CHECK_MUTANT\t" "$CHECK_MUTANT_LIST") ||
		die "no mutant $CHECK_MUTANT in $CHECK_MUTANT_LIST"
	IFS=$'\t' read -r name file old new <<< "$line"
	mkdir -p "$dir"
	mutate "$TREE/$file" "$old" "$new"
	MUTATED=$file
	info "mutant $name planted in $file"
	ours_kunit "$dir/ours.jsonl"
	compare_shard "mutant $name" "$dir/ours.jsonl" \
		"$JOBS/$CHECK_ARCH-kunit.yaml" "$dir/run"
	if python3 "$REPO/scripts/results.py" has --status FAIL "$dir/run/lava.jsonl"; then
		verdict "mutant fails LAVA cases" ok "$(grep -c '"FAIL"' "$dir/run/lava.jsonl") failed, e.g. $(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    x = json.loads(line)
    if x["status"] == "FAIL":
        print(x["suite"] + ": " + x["case"]); break' "$dir/run/lava.jsonl")"
	else
		verdict "mutant fails LAVA cases" FAIL "no failed LAVA case (log: $dir/run/lava.log)"
	fi
	restore_tree
}

cmd_check() {
	local shard label rc=0
	trap restore_tree EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	"$REPO/scripts/prepare-tree.sh" --check-clean
	"$REPO/scripts/deps.sh" lava
	stage_lava
	rm -rf "$CHECK"
	mkdir -p "$CHECK"
	label=$CHECK_ARCH
	info "our runner: KUnit suites on $CHECK_ARCH"
	ours_kunit "$CHECK/ours-kunit.jsonl"
	info "our runner: the full-system boot on $CHECK_ARCH"
	: > "$CHECK/ours-system.jsonl"
	KUNIT52_RESULTS=$CHECK/ours-system.jsonl KUNIT52_SYSTEM_EXTRA_BOOTS=0 \
		"$REPO/scripts/system.sh" "$CHECK_ARCH" || true
	rm -rf "$JOBS"
	write_jobs "$JOBS" -- "$CHECK_ARCH" > /dev/null
	check_validate
	for shard in "${CHECK_SHARDS[@]}"; do
		compare_shard "$label-$shard" "$CHECK/ours-$shard.jsonl" \
			"$JOBS/$label-$shard.yaml" "$CHECK/$shard"
	done
	check_hang
	check_mutant
	echo
	echo "== LAVA proof ($CHECK_ARCH; logs in $CHECK) =="
	printf '%s\n' "${VERDICTS[@]}"
	printf '%s\n' "${VERDICTS[@]}" | grep -q '^FAIL' && rc=1
	return "$rc"
}

main() {
	local cmd=${1:-}
	[[ -n "$cmd" ]] || die "usage: ${0##*/} jobs [ARCH...] | run JOB... | check"
	shift
	case $cmd in
	jobs) cmd_jobs "$@" ;;
	run) cmd_run "$@" ;;
	check) [[ $# -eq 0 ]] || die "usage: ${0##*/} check"; cmd_check ;;
	*) die "unknown command '$cmd' (commands: jobs run check)" ;;
	esac
}

main "$@"
