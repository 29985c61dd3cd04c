#!/usr/bin/env bash
# The fleet path end to end: `fgraphtop check --trigger --prometheus` on several
# guest kernels (lab/run.sh -s check-prom), each textfile served by its own real
# node_exporter (Debian's package) on 127.0.0.1, one real Prometheus scraping
# them every second with the shipped alert rules (dist/prometheus/), and over
# Prometheus's HTTP API: the docs/fleet.md query returns exactly the unfixed
# kernels, and FgraphtopKernelNotFixed fires for exactly them.
#
#   lab/fleet-e2e.sh [-k "KERNEL..."] [--synthetic] [--no-controls]
#
# Kernels (default: Debian's four x86-64 kernels and the lab's stock and fixed
# ones of 7.x and 5.10): expected not fixed unless the name ends in -fixed. --synthetic skips the
# guests and renders the textfiles with the check's own writer
# (tests/lib/check_prom_sample.c): for developing the Prometheus side only.
# Two control hosts, synthetic and named so, show the other rules firing in
# the same Prometheus (--no-controls leaves them out):
#   control-stale    verdict unknown, checked 27 h ago: FgraphtopVerdictUnknown
#                    and FgraphtopCheckStale;
#   control-exposed  not fixed, with the exposure metrics (56 s estimated)
#                    added to its file if the check did not write them:
#                    FgraphtopKernelNotFixed and FgraphtopUnfixedHighExposure.
# Every alert's expected hosts come from the textfiles; each alert must fire
# for exactly those.
# Loopback only; every wait is bounded; every process started is killed on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
# make test's kernels (lab/kernels.sh list --tier test): the 5.10 pair is the
# stable backport's, fixed and not
DEFAULT_KERNELS="debian-5.10 debian-6.1 debian-6.12 debian-7.2 lab-stock lab-fixed lab-5.10-stock
	lab-5.10-fixed"
KERNELS=$DEFAULT_KERNELS
SYNTHETIC=false
CONTROLS=true
RULES=$ROOT/dist/prometheus/fgraphtop.rules.yml
while [ $# -gt 0 ]; do
	case $1 in
	-k) KERNELS=$2; shift 2 ;;
	--synthetic) SYNTHETIC=true; shift ;;
	--no-controls) CONTROLS=false; shift ;;
	*) echo "usage: $0 [-k \"KERNEL...\"] [--synthetic] [--no-controls]" >&2; exit 2 ;;
	esac
done

WORK=$(mktemp -d /tmp/fgt-fleet.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# every line said, for the docs' transcript (docs/samples/fleet-e2e.txt)
log() { echo "fleet-e2e: $*" | tee -a "$WORK/said" >&2; }
die() { log "FAIL: $*"; exit 1; }

# --- Debian's prometheus and node_exporter, extracted, never installed ----
PROMDIR=$CACHE/prom
BIN=$PROMDIR/root/usr/bin
if [ ! -x "$BIN/prometheus" ] || [ ! -x "$BIN/prometheus-node-exporter" ]; then
	mkdir -p "$PROMDIR/debs"
	(cd "$PROMDIR/debs" && "$ROOT/lab/debian-apt.sh" update &&
		"$ROOT/lab/debian-apt.sh" download prometheus/bookworm \
			prometheus-node-exporter/bookworm) >&2
	for d in "$PROMDIR"/debs/*.deb; do dpkg-deb -x "$d" "$PROMDIR/root"; done
fi
log "$("$BIN/prometheus" --version 2>&1 | head -n1)"
log "$("$BIN/prometheus-node-exporter" --version 2>&1 | head -n1)"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# --- one textfile per kernel --------------------------------------------
# FGT_PROM_SAMPLE: tests/lib/check_prom_sample.c built (make test-lab-fleet
# does)
SAMPLE=${FGT_PROM_SAMPLE:-$ROOT/build/tests/fgt-prom-sample}
sample() {	# FILE VERDICT RELEASE BUILD_ID: the check's own renderer and writer
	[ -x "$SAMPLE" ] || make -s -C "$ROOT" build/tests/fgt-prom-sample >&2
	"$SAMPLE" "$@"
}
declare -A EXPECT
HOSTS=$KERNELS
for k in $KERNELS; do
	mkdir -p "$WORK/tf/$k"
	case $k in *-fixed) EXPECT[$k]=fixed ;; *) EXPECT[$k]=not_fixed ;; esac
	if $SYNTHETIC; then
		sample "$WORK/tf/$k/fgraphtop.prom" "${EXPECT[$k]}" \
			"synthetic-$k" "$(printf %s "$k" | sha1sum | cut -c1-40)"
	else
		out=$WORK/run-$k
		status=0
		timeout 900 "$ROOT/lab/run.sh" -k "$k" -s check-prom -t 600 -o "$out" -- TIMEOUT=60 \
			> "$WORK/results-$k.jsonl" || status=$?
		[ "$status" -eq 0 ] || die "$k: lab/run.sh check-prom exited $status (see $out)"
		jq -r 'select(.type == "check") | .answer | "\(.verdict) \(.reason)"' \
			"$WORK/results-$k.jsonl" | sed "s/^/fleet-e2e: $k: /" | tee -a "$WORK/said" >&2
		jq -r 'select(.type == "prom") | .textfile_b64' "$WORK/results-$k.jsonl" |
			base64 -d > "$WORK/tf/$k/fgraphtop.prom"
		[ -s "$WORK/tf/$k/fgraphtop.prom" ] || die "$k: no textfile in the results"
	fi
done
if $CONTROLS; then
	HOSTS+=" control-stale control-exposed"
	mkdir -p "$WORK/tf/control-stale" "$WORK/tf/control-exposed"
	f=$WORK/tf/control-stale/fgraphtop.prom
	sample "$f" unknown control-stale-release 5a1e000000000000000000000000000000000000
	sed -i "s/^fgraphtop_check_timestamp_seconds .*/fgraphtop_check_timestamp_seconds $(( $(date +%s) - 27 * 3600 ))/" "$f"
	f=$WORK/tf/control-exposed/fgraphtop.prom
	sample "$f" not_fixed control-exposed-release e0e0000000000000000000000000000000000000
	if ! grep -q '^fgraphtop_unfixed_walk_estimate_seconds' "$f"; then
		cat >> "$f" <<EOT
# HELP fgraphtop_threads_without_shadow_stack Threads lacking a shadow stack (control host).
# TYPE fgraphtop_threads_without_shadow_stack gauge
fgraphtop_threads_without_shadow_stack 400000
# HELP fgraphtop_unfixed_walk_estimate_seconds Estimated unfixed walk (control host).
# TYPE fgraphtop_unfixed_walk_estimate_seconds gauge
fgraphtop_unfixed_walk_estimate_seconds 56.25
EOT
	fi
fi
for k in $HOSTS; do
	"$BIN/promtool" check metrics < "$WORK/tf/$k/fgraphtop.prom" ||
		die "$k: promtool check metrics refused the textfile"
done

# --- a node_exporter per kernel, textfile collector only ---------------
targets=
for k in $HOSTS; do
	port=$(free_port)
	"$BIN/prometheus-node-exporter" --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$WORK/tf/$k" > "$WORK/ne-$k.log" 2>&1 &
	PIDS+=($!)
	targets+="  - targets: ['127.0.0.1:$port']
    labels: {host: '$k'}
"
done

# --- Prometheus, scraping every second -----------------------------------
pport=$(free_port)
cat > "$WORK/prometheus.yml" <<EOT
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES
scrape_configs:
- job_name: node
  static_configs:
$targets
EOT
"$BIN/promtool" check config "$WORK/prometheus.yml" >&2
"$BIN/prometheus" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address="127.0.0.1:$pport" > "$WORK/prometheus.log" 2>&1 &
PIDS+=($!)

query() {	# PromQL -> JSON result array
	curl -fsS --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=$1" | jq -c '.data.result'
}

n=$(wc -w <<< "$HOSTS")
deadline=$((SECONDS + 60))
until [ "$(query 'count(fgraphtop_kernel_info)' 2>/dev/null | jq -r '.[0].value[1] // 0')" = "$n" ]; do
	[ $SECONDS -lt $deadline ] || die "Prometheus did not see $n hosts' metrics in 60 s (see $WORK/prometheus.log)"
	sleep 1
done
log "Prometheus scrapes $n node_exporters"

# --- the docs/fleet.md query: exactly the unfixed kernels --------------------
q='count by (host, release, build_id) (fgraphtop_verdict{verdict="not_fixed"} == 1)'
got=$(query "$q" | jq -r '.[].metric.host | select(startswith("control-") | not)' | sort | tr '\n' ' ')
want=$(for k in $KERNELS; do if [ "${EXPECT[$k]}" = not_fixed ]; then echo "$k"; fi; done |
	sort | tr '\n' ' ')
log "query: $q"
query "$q" | jq -r '.[] | "fleet-e2e:   \(.metric.host) \(.metric.release) \(.metric.build_id)"' >&2
log "not fixed, per Prometheus: ${got:-none}"
log "not fixed, expected:       ${want:-none}"
[ "$got" = "$want" ] || die "the query did not return exactly the unfixed kernels"

# --- the shipped alert rules, loaded and evaluated ----------------------
# Expected hosts per alert, from the textfiles themselves (the rules' own
# conditions, read the plain way).
tf_value() {	# HOST METRIC-LINE-PREFIX -> value or empty
	awk -v p="$2" 'index($0, p) == 1 { print $NF; exit }' "$WORK/tf/$1/fgraphtop.prom"
}
expect_alert() {	# ALERTNAME -> hosts, sorted, space-separated
	local k e now
	now=$(date +%s)
	for k in $HOSTS; do
		case $1 in
		FgraphtopKernelNotFixed)
			if [ "$(tf_value "$k" 'fgraphtop_verdict{verdict="not_fixed"')" = 1 ]; then echo "$k"; fi ;;
		FgraphtopVerdictUnknown)
			if [ "$(tf_value "$k" 'fgraphtop_verdict{verdict="unknown"')" = 1 ]; then echo "$k"; fi ;;
		FgraphtopCheckStale)
			if awk -v t="$(tf_value "$k" 'fgraphtop_check_timestamp_seconds ')" -v n="$now" \
				'BEGIN { exit !(n - t > 26 * 3600) }'; then echo "$k"; fi ;;
		FgraphtopUnfixedHighExposure)
			e=$(tf_value "$k" 'fgraphtop_unfixed_walk_estimate_seconds ')
			if [ -n "$e" ] && [ "$(tf_value "$k" 'fgraphtop_verdict{verdict="not_fixed"')" = 1 ] &&
				awk -v e="$e" 'BEGIN { exit !(e > 5) }'; then echo "$k"; fi ;;
		esac
	done | sort | tr '\n' ' '
}
firing() {	# ALERTNAME -> hosts, sorted, space-separated
	query "ALERTS{alertname=\"$1\",alertstate=\"firing\"}" | jq -r '.[].metric.host' | sort | tr '\n' ' '
}
log "rules: $RULES"
deadline=$((SECONDS + 60))
until [ "$(query 'count(ALERTS{alertname="FgraphtopKernelNotFixed",alertstate="firing"}) or vector(0)' |
	jq -r '.[0].value[1]')" = "$(wc -w <<< "$(expect_alert FgraphtopKernelNotFixed)")" ]; do
	[ $SECONDS -lt $deadline ] || break
	sleep 1
done
sleep 3	# a few more evaluations: nothing else may start firing
for a in FgraphtopKernelNotFixed FgraphtopUnfixedHighExposure FgraphtopCheckStale FgraphtopVerdictUnknown; do
	got=$(firing "$a")
	want=$(expect_alert "$a")
	log "alert $a firing for: ${got:-none} (expected: ${want:-none})"
	[ "$got" = "$want" ] || die "$a does not fire for exactly the expected hosts"
done
# and by the kernels' names: the unfixed ones, and the not-fixed control
want=$( (for k in $KERNELS; do if [ "${EXPECT[$k]}" = not_fixed ]; then echo "$k"; fi; done
	if $CONTROLS; then echo control-exposed; fi) | sort | tr '\n' ' ')
[ "$(firing FgraphtopKernelNotFixed)" = "$want" ] ||
	die "FgraphtopKernelNotFixed does not fire for exactly the unfixed kernels ($want)"

query 'ALERTS{alertstate="firing"}' |
	jq -r '.[] | "fleet-e2e:   \(.metric.alertname) \(.metric.host) severity=\(.metric.severity) release=\(.metric.release // "")"' >&2
log "PASS ($([ "$SYNTHETIC" = true ] && echo synthetic textfiles || echo guest textfiles)$($CONTROLS && echo ', with the two control hosts'))"

# docs/fleet.md's transcript of a default run: each kernel's verdict (its
# evidence cut: whether --trigger's activation showed its walks is the
# host's pace), Prometheus's answers and the alerts; kept on a mismatch
if ! $SYNTHETIC && $CONTROLS && [ "$KERNELS" = "$DEFAULT_KERNELS" ]; then
	grep -E '^fleet-e2e: ([a-z0-9.-]+: (not_fixed|fixed|unknown) |Prometheus scrapes|not fixed, per|alert |PASS)' \
		"$WORK/said" | sed -E 's/^(fleet-e2e: [a-z0-9.-]+: [a-z_]+) .*/\1 [...]/' > "$WORK/transcript"
	if ! python3 "$ROOT/tests/docs/shape.py" fleet-e2e "$WORK/transcript" >&2; then
		cp "$WORK/transcript" "${TMPDIR:-/tmp}/fgt-fleet-e2e.txt"
		die "docs/samples/fleet-e2e.txt is stale: this run's is ${TMPDIR:-/tmp}/fgt-fleet-e2e.txt"
	fi
fi
