#!/usr/bin/env bash
# Screenshots of the quickstart's report.html at the widths methodologists read it (1000 and
# 1400 px), with headless Chromium from Debian's packages, to look at what a reader sees.
#
#   bash benches/report/screenshot.sh [REPORT_DIR] [OUT_DIR]
#
# REPORT_DIR defaults to results/quickstart (run the quickstart first:
# cargo run --release -p intruder-cli -- run experiments/quickstart.toml); PNGs land in OUT_DIR
# (default REPORT_DIR/screenshots): report-1000.png and report-1400.png, each the whole page.
set -euo pipefail
dir=${1:-results/quickstart}
out=${2:-$dir/screenshots}
report="$dir/report.html"
[ -f "$report" ] || { echo "no $report: run the quickstart first" >&2; exit 1; }
if ! command -v chromium >/dev/null; then
    # Debian's chromium (root: apt-get as it is; otherwise through sudo).
    sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
    $sudo_ apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y --no-install-recommends chromium fonts-dejavu-core
fi
mkdir -p "$out"
url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
for w in 1000 1400; do
    # A tall window: the whole page in one picture (Chromium cuts at the window's height).
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$w,16000" --screenshot="$out/report-$w.png" "$url" 2>/dev/null
    echo "$out/report-$w.png"
done
