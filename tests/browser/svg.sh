#!/usr/bin/env bash
# The SVG flame graph in a real browser: headless Chromium (Debian's
# chromium, installed by tools/deps.sh browser when missing) renders what
#   bpfgraph report -i tests/golden/seeds/<seed> --format=svg
# makes of a real ftrace capture.
#   - the document is well formed (xmllint, when installed) and loads
#     nothing from outside;
#   - a screenshot is not blank: many colours, most of it drawn, the root
#     frame a full-width bar of its colour (tests/browser/pngstat.c reads
#     the PNG with zlib);
#   - the script runs: "#zoom=NAME" and "#search=REGEX" in the URL make it
#     zoom and highlight, and the DOM Chromium dumps afterwards shows it;
#     a screenshot of the zoomed graph differs from the first one.
# The screenshot of the full graph is left in $OUTPUT/browser/flamegraph.png;
# BG_UPDATE_GOLDEN=1 copies it to tests/golden/screenshots/ (the README's).
# Prints PASS/FAIL/SKIP lines; exit 0, 1, or 77 when Chromium cannot be had.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
SEED=${BG_SVG_SEED:-tests/golden/seeds/004_cf19708d00924ebb.txt}
ZOOM=ip_forward
SEARCH='^xfrm'
ROOT_RGB=c8c8c8 # the root frame's fill, rgb(200,200,200) in out_svg.c
dir=$OUTPUT/browser
failed=0

pass() { echo "PASS svg: $*"; }
fail() { echo "FAIL svg: $*"; failed=1; }

if ! command -v chromium >/dev/null 2>&1; then
	tools/deps.sh browser >/dev/null 2>&1 || true
fi
if ! command -v chromium >/dev/null 2>&1; then
	echo "SKIP svg: chromium is not installed and could not be (tools/deps.sh browser)"
	exit 77
fi
[ -x "$OUTPUT/bpfgraph" ] || { echo "FAIL svg: $OUTPUT/bpfgraph not built"; exit 1; }

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
svg=$dir/flamegraph.svg
cc -std=gnu11 -O2 -Wall -Wextra -o "$tmp/pngstat" tests/browser/pngstat.c -lz ||
	{ echo "FAIL svg: cannot build tests/browser/pngstat.c"; exit 1; }

# Each run its own profile: parallel runs and other users' Chromium stay apart.
browse() { # URL ARGS...
	local url=$1
	shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$tmp/profile" "$@" "$url" 2>>"$tmp/chromium.log"
}

if ! "$OUTPUT/bpfgraph" report -i "$SEED" --format=svg -o "$svg" 2>"$tmp/err"; then
	echo "FAIL svg: report of $SEED: $(head -n 1 "$tmp/err")"
	exit 1
fi
height=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$svg")
[ -n "$height" ] || { echo "FAIL svg: no height on the <svg> element"; exit 1; }
frames=$(grep -c '<g class="f"' "$svg")
url="file://$(realpath "$svg")"

check_document() {
	if command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout "$svg" 2>"$tmp/xml"; then
			pass "well-formed XML ($frames frames)"
		else
			fail "xmllint: $(head -n 1 "$tmp/xml")"
		fi
	fi
	if grep -v 'xmlns="http://www.w3.org/2000/svg"' "$svg" | grep -Eq 'https?://|href='; then
		fail "the document refers to outside resources"
	else
		pass "self-contained"
	fi
}

# pngstat: WIDTH HEIGHT COLORS BACKGROUND OTHER_PERMILLE MATCHES
check_screenshot() {
	local w h colors bg other root
	if ! browse "$url" --screenshot="$tmp/full.png" --window-size="1200,$height" >/dev/null ||
		[ ! -s "$tmp/full.png" ]; then
		fail "no screenshot: $(tail -n 2 "$tmp/chromium.log")"
		return
	fi
	read -r w h colors bg other root < <("$tmp/pngstat" "$tmp/full.png" "$ROOT_RGB") ||
		{ fail "pngstat cannot read the screenshot"; return; }
	if [ "$w" = 1200 ] && [ "$h" = "$height" ] && [ "$colors" -ge 50 ] &&
		[ "$other" -ge 200 ] && [ "$root" -ge $((1180 * 15 * 9 / 10)) ]; then
		pass "screenshot ${w}x$h: $colors colours, $((other / 10))% drawn, root bar $root px"
	else
		fail "screenshot looks blank or wrong: ${w}x$h, $colors colours, background $bg," \
			"$other/1000 drawn, $root px of root colour"
	fi
	cp "$tmp/full.png" "$dir/flamegraph.png"
	if [ "${BG_UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p tests/golden/screenshots
		cp "$tmp/full.png" tests/golden/screenshots/flamegraph.png
	fi
}

# The zoomed frame spans the width, frames outside it are hidden.
check_zoom() {
	local dom=$tmp/zoom.html hidden zoomed
	browse "$url#zoom=$ZOOM" --dump-dom --virtual-time-budget=5000 >"$dom" ||
		{ fail "--dump-dom failed: $(tail -n 2 "$tmp/chromium.log")"; return; }
	hidden=$(grep -c '<g class="f hide"' "$dom")
	zoomed=$(grep -c "<title>$ZOOM ([^<]*</title><rect x=\"10.00\" y=\"[0-9]*\" width=\"1180.00\"" "$dom")
	if grep -q "^<svg [^>]*data-zoom=\"$ZOOM\"" "$dom" && [ "$hidden" -gt 0 ] &&
		[ "$hidden" -lt "$frames" ] && [ "$zoomed" -ge 1 ] &&
		grep -q 'id="reset"[^>]*visibility="visible"' "$dom"; then
		pass "#zoom=$ZOOM: $hidden of $frames frames hidden, $ZOOM full width, reset shown"
	else
		fail "#zoom=$ZOOM did not zoom: $hidden hidden, $zoomed full-width $ZOOM frames"
	fi
}

check_search() {
	local dom=$tmp/search.html hits pct
	browse "$url#search=$SEARCH" --dump-dom --virtual-time-budget=5000 >"$dom" ||
		{ fail "--dump-dom failed: $(tail -n 2 "$tmp/chromium.log")"; return; }
	hits=$(grep -c '<g class="f match"[^>]*><title>xfrm' "$dom")
	pct=$(sed -n 's/.*<text id="matched"[^>]*>Matched: \([0-9.]*\)%<.*/\1/p' "$dom")
	if [ "$hits" -gt 0 ] && [ -n "$pct" ] &&
		[ "$(grep -c '<g class="f match"[^>]*><title>[^x]' "$dom")" = 0 ]; then
		pass "#search=$SEARCH: $hits frames highlighted, matched $pct%"
	else
		fail "#search=$SEARCH did not highlight: $hits frames, matched '${pct}'"
	fi
}

check_zoom_picture() {
	browse "$url#zoom=$ZOOM" --screenshot="$tmp/zoom.png" --window-size="1200,$height" \
		>/dev/null
	if [ ! -s "$tmp/zoom.png" ] || [ ! -s "$tmp/full.png" ]; then
		fail "no zoomed screenshot"
	elif [ "$("$tmp/pngstat" "$tmp/zoom.png" "$ROOT_RGB" | cut -d' ' -f6)" -ge \
		"$("$tmp/pngstat" "$tmp/full.png" "$ROOT_RGB" | cut -d' ' -f6)" ]; then
		fail "the zoomed screenshot still shows the root frame unfaded"
	else
		pass "zoomed screenshot differs (root frame faded)"
	fi
}

check_document
check_screenshot
check_zoom
check_search
check_zoom_picture
exit $failed
