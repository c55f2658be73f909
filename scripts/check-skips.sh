#!/usr/bin/env bash
# After ctest: fail when a test was skipped for anything but the documented reasons, so
# no test can pass by skipping. Usage: check-skips.sh CTEST_OUTPUT LASTTEST_LOG
#   CTEST_OUTPUT   what ctest printed (its "(Skipped)" list names the skipped tests)
#   LASTTEST_LOG   build/Testing/Temporary/LastTest.log (each test's output)
# A skipping test prints "skip: REASON" (tests/integration: exit 77). Allowed reasons:
# the machine gives no root or no network namespaces (needs root, cannot create network
# namespaces, no /dev/net/tun), ../shared is absent, or Chromium is (the client = chromium
# tests; scripts/deps.sh installs Debian's chromium). A cmocka test that skips
# ("[  SKIPPED ]") is never allowed.
set -euo pipefail
out=${1:?usage: check-skips.sh CTEST_OUTPUT LASTTEST_LOG}
log=${2:?usage: check-skips.sh CTEST_OUTPUT LASTTEST_LOG}
[ -r "$out" ] || { echo "check-skips: cannot read $out" >&2; exit 2; }
[ -r "$log" ] || { echo "check-skips: cannot read $log" >&2; exit 2; }
allowed='needs root|cannot create network namespaces|no /dev/net/tun|\.\./shared|no Chromium'

# reason NAME: the first "skip: " line of test NAME's output in the log.
reason() {
	awk -v t="$1" '
		/^[0-9]+\/[0-9]+ Test: / { cur = $3 }
		cur == t && /^skip: / { print; exit }' "$log"
}

bad=0 n=0
while read -r name; do
	n=$((n + 1))
	r=$(reason "$name")
	if [ -z "$r" ]; then
		echo "check-skips: $name skipped without saying why (print 'skip: REASON')" >&2
		bad=1
	elif ! grep -Eq -- "$allowed" <<<"$r"; then
		echo "check-skips: $name was skipped, and that is not a documented reason: ${r#skip: }" >&2
		bad=1
	else
		echo "check-skips: $name skipped (${r#skip: })"
	fi
done < <(sed -n 's/^[[:space:]]*[0-9]\+ - \([^ ]*\) (Skipped)$/\1/p' "$out")

while read -r line; do
	echo "check-skips: a unit test skipped: $line" >&2
	bad=1
done < <(awk '/^[0-9]+\/[0-9]+ Test: / { cur = $3 } /^\[  SKIPPED \] / { print cur ": " $4 }' "$log")

if [ $bad = 0 ]; then echo "check-skips: $n skipped, each for a documented reason"; fi
exit $bad
