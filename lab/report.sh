#!/usr/bin/env bash
# Table of lab runs; see lab/report.py.
set -euo pipefail
exec python3 "$(dirname "$0")/report.py" "$@"
