#!/bin/sh
# The compatibility suite's verdict: reads what run.sh left in RESULTS
# (Check's TAP per C area, pytest's per-test lines, the skips) and prints a
# table area x passed / failed / skipped / differs (expected) / unknown, the
# failures, the expected differences seen and the known-unknowns' outcomes.
# Writes RESULTS/compat.tap (TAP 13: skips as # SKIP, expected differences
# and disagreeing known-unknowns as # TODO) and RESULTS/compat.junit.xml.
#
#   summary.sh [--platform NAME] [--expected FILE] RESULTS
#
# Exit status: 0 when nothing failed outside the expected differences and
# the known-unknowns, 1 otherwise.
set -u
platform=unknown
expected=
while [ $# -gt 1 ]; do
    case $1 in
        --platform) platform=$2; shift 2 ;;
        --expected) expected=$2; shift 2 ;;
        *) break ;;
    esac
done
results=${1:?usage: summary.sh [--platform NAME] [--expected FILE] RESULTS}
[ -n "$expected" ] && [ -f "$expected" ] || expected=/dev/null

# One line per check, tab-separated: area, id, status, tags, message.
checks=$results/checks.txt
: > "$checks"
skipfile=$results/skipped.txt
[ -f "$skipfile" ] || : > "$skipfile"
for tap in "$results"/*.tap; do
    [ -f "$tap" ] || continue
    case $tap in */compat.tap) continue ;; esac
    area=$(basename "$tap" .tap)
    awk -v area="$area" -v skipfile="$skipfile" '
        BEGIN {
            FS = "\t"
            while ((getline line < skipfile) > 0) {
                split(line, f, "\t")
                skip[f[1] "\t" f[2]] = f[3]
            }
            FS = " "
        }
        /^(not )?ok [0-9]+ - / {
            ok = ($1 == "ok")
            rest = $0
            sub(/^(not )?ok [0-9]+ - /, "", rest)
            # file:tcase:test: message (the tcase may hold blanks)
            n = split(rest, part, ":")
            file = part[1]; tcase = part[2]; test = part[3]
            sub(/.*\//, "", file)
            msg = ""
            for (i = 4; i <= n; i++) msg = msg (i > 4 ? ":" : "") part[i]
            sub(/^ /, "", msg)
            tags = "-"
            if (tcase == "unknown") tags = "unknown"
            if (tcase == "hostile arguments") tags = "hostile"
            status = ok ? "passed" : "failed"
            if (ok && ((file "\t" test) in skip)) { status = "skipped"; msg = skip[file "\t" test] }
            if (ok && status == "passed") msg = ""
            gsub(/\t/, " ", msg)
            printf "%s\t%s:%s:%s\t%s\t%s\t%s\n", area, area, tcase, test, status, tags, msg
        }' "$tap" >> "$checks"
done
# A C program that left no TAP (did not start, or crashed outside a test).
for status_file in "$results"/*.status; do
    [ -f "$status_file" ] || continue
    area=$(basename "$status_file" .status)
    [ "$area" = python ] && continue
    if [ ! -s "$results/$area.tap" ]; then
        printf '%s\t%s:(program)\tfailed\t-\tno results: exit status %s, see %s.log\n' \
            "$area" "$area" "$(cat "$status_file")" "$area" >> "$checks"
    fi
done
if [ -f "$results/python.results" ]; then
    awk -F '\t' 'BEGIN { OFS = "\t" } { print $1, "python:" $2, $3, $4, $5 }' \
        "$results/python.results" >> "$checks"
fi
# pytest that failed without a failing test to show for it (a crash, a
# collection error).
if [ -f "$results/python.status" ] && [ "$(cat "$results/python.status")" != 0 ] &&
   ! grep -qE '	(failed|error)	' "$results/python.results" 2>/dev/null; then
    printf 'python\tpython:(pytest)\tfailed\t-\tpytest exited with status %s, see python.log\n' \
        "$(cat "$results/python.status")" >> "$checks"
fi
if [ -f "$results/python.notrun" ]; then
    printf 'python\tpython:(pytest)\tskipped\t-\t%s\n' "$(cat "$results/python.notrun")" >> "$checks"
fi

awk -F '\t' -v platform="$platform" -v expected="$expected" -v tapout="$results/compat.tap" \
    -v xmlout="$results/compat.junit.xml" '
    function glob_re(g,   r, i, c) {
        r = "^"
        for (i = 1; i <= length(g); i++) {
            c = substr(g, i, 1)
            if (c == "*") r = r ".*"
            else if (c == "?") r = r "."
            else if (index("\\^$.[]|()+{}", c)) r = r "\\" c
            else r = r c
        }
        return r "$"
    }
    function xml(s) {
        gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s)
        return s
    }
    BEGIN {
        ne = 0
        while ((getline line < expected) > 0) {
            if (line ~ /^[ \t]*(#|$)/) continue
            n = split(line, f, /[ \t]+/)
            if (n < 2) continue
            reason = line
            sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]*/, "", reason)
            if (platform !~ glob_re(f[1])) continue
            ne++; eplat[ne] = f[1]; eid[ne] = f[2]; ere[ne] = glob_re(f[2]); ereason[ne] = reason; eseen[ne] = 0
        }
    }
    {
        area = $1; id = $2; status = $3; tags = $4; msg = $5
        if (!(area in seen)) { seen[area] = 1; order[++na] = area }
        if (status == "failed" || status == "error") {
            for (e = 1; e <= ne; e++)
                if (id ~ ere[e]) { status = "expected"; msg = ereason[e] " (" msg ")"; eseen[e]++; break }
            if (status != "expected" && tags ~ /unknown/) status = "unknown"
        } else if (status == "passed") {
            for (e = 1; e <= ne; e++) if (id ~ ere[e]) { epassed[e]++; break }
        }
        count[area, status]++
        total[status]++
        n_all++
        line_area[n_all] = area; line_id[n_all] = id; line_status[n_all] = status; line_msg[n_all] = msg
        if (tags ~ /unknown/) { nu++; uid[nu] = id; ustatus[nu] = status; umsg[nu] = msg }
    }
    END {
        printf "\n%-14s %7s %7s %7s %10s %8s\n", "area", "passed", "failed", "skipped", "differs(e)", "unknown"
        printf "%-14s %7s %7s %7s %10s %8s\n", "----", "------", "------", "-------", "----------", "-------"
        for (i = 1; i <= na; i++) {
            a = order[i]
            printf "%-14s %7d %7d %7d %10d %8d\n", a, count[a, "passed"], count[a, "failed"] + count[a, "error"],
                count[a, "skipped"], count[a, "expected"], count[a, "unknown"]
        }
        printf "%-14s %7d %7d %7d %10d %8d\n", "total", total["passed"], total["failed"] + total["error"],
            total["skipped"], total["expected"], total["unknown"]
        printf "\nplatform: %s\n", platform
        printf "columns: differs(e) = failed but listed in expected-differences.txt for this platform;\n"
        printf "         unknown = a known-unknown whose recorded choice this implementation does not follow\n"

        nf = 0
        for (i = 1; i <= n_all; i++) if (line_status[i] == "failed" || line_status[i] == "error") {
            if (nf++ == 0) printf "\nFAILURES\n"
            if (nf <= 40) printf "  %s\n      %s\n", line_id[i], line_msg[i]
        }
        if (nf > 40) printf "  ... and %d more (see compat.tap)\n", nf - 40
        printed = 0
        for (i = 1; i <= n_all; i++) if (line_status[i] == "expected") {
            if (printed++ == 0) printf "\nDIFFERS (EXPECTED)\n"
            printf "  %s\n      %s\n", line_id[i], line_msg[i]
        }
        for (e = 1; e <= ne; e++) if (epassed[e] && !eseen[e]) {
            if (printed++ == 0) printf "\nDIFFERS (EXPECTED)\n"
            printf "  %s: listed for %s but passed here\n", eid[e], eplat[e]
        }
        if (nu) printf "\nKNOWN-UNKNOWNS (docs silent or contradictory; the suite records a choice)\n"
        for (i = 1; i <= nu; i++)
            printf "  %-9s %s%s\n", ustatus[i] == "unknown" ? "DIFFERS" : toupper(ustatus[i]), uid[i],
                ustatus[i] == "unknown" ? "\n      " umsg[i] : ""

        # TAP 13 and JUnit for CI systems.
        print "TAP version 13" > tapout
        printf "1..%d\n", n_all > tapout
        for (i = 1; i <= n_all; i++) {
            s = line_status[i]; m = line_msg[i]
            if (s == "passed") printf "ok %d - %s\n", i, line_id[i] > tapout
            else if (s == "skipped") printf "ok %d - %s # SKIP %s\n", i, line_id[i], m > tapout
            else if (s == "expected") printf "not ok %d - %s # TODO differs (expected): %s\n", i, line_id[i], m > tapout
            else if (s == "unknown") printf "not ok %d - %s # TODO known-unknown: %s\n", i, line_id[i], m > tapout
            else printf "not ok %d - %s\n  ---\n  message: \"%s\"\n  ...\n", i, line_id[i], m > tapout
        }
        print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" > xmlout
        printf "<testsuites name=\"acl-compat\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", n_all,
            total["failed"] + total["error"], total["skipped"] + total["expected"] + total["unknown"] > xmlout
        for (k = 1; k <= na; k++) {
            a = order[k]
            printf "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", xml(a),
                count[a, "passed"] + count[a, "failed"] + count[a, "error"] + count[a, "skipped"] + count[a, "expected"] + count[a, "unknown"],
                count[a, "failed"] + count[a, "error"], count[a, "skipped"] + count[a, "expected"] + count[a, "unknown"] > xmlout
            for (i = 1; i <= n_all; i++) {
                if (line_area[i] != a) continue
                s = line_status[i]
                printf "    <testcase classname=\"%s\" name=\"%s\"", xml(a), xml(line_id[i]) > xmlout
                if (s == "passed") { printf "/>\n" > xmlout; continue }
                printf ">\n" > xmlout
                if (s == "skipped") printf "      <skipped message=\"%s\"/>\n", xml(line_msg[i]) > xmlout
                else if (s == "expected") printf "      <skipped message=\"differs (expected): %s\"/>\n", xml(line_msg[i]) > xmlout
                else if (s == "unknown") printf "      <skipped message=\"known-unknown: %s\"/>\n", xml(line_msg[i]) > xmlout
                else printf "      <failure message=\"%s\"/>\n", xml(line_msg[i]) > xmlout
                printf "    </testcase>\n" > xmlout
            }
            printf "  </testsuite>\n" > xmlout
        }
        print "</testsuites>" > xmlout
        printf "\nresults: %s, %s\n", tapout, xmlout
        exit (total["failed"] + total["error"] > 0) ? 1 : 0
    }' "$checks"
