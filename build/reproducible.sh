#!/usr/bin/env bash
# Builds the published modules twice, from two clean copies of the tree at different paths, and
# compares every jar they produce (main, sources, javadoc, and the CLI's executable jar) byte for
# byte. Run it after changing the build (a plugin, its version or configuration, resources, a new
# module) and before every release (docs/releasing.md); CI does not run it.
# The jars' timestamps come from project.build.outputTimestamp in the root pom.xml.
#   build/reproducible.sh
# Exits 1 and names the jars that differ (compare them with `diffoscope` or `unzip -l`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
started=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/servicehooks-reproducible.XXXXXX")"
trap 'rm -rf "$work"' EXIT

published="$(sed -n 's:.*<servicehooks.published>\(.*\)</servicehooks.published>.*:\1:p' "$root/pom.xml")"
selection=":${published//,/,:}"

copy() {
  mkdir -p "$1"
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$root" && git ls-files -z --cached --others --exclude-standard) |
      (cd "$root" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
      (cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$1"
  else
    (cd "$root" && tar --exclude=./target --exclude='*/target' -cf - .) | tar -xf - -C "$1"
  fi
}

for build in one two-at-another-path; do
  copy "$work/$build"
  echo "reproducible: building $build"
  if ! (cd "$work/$build" && ./mvnw -B -q -DskipTests -pl "$selection" package) >"$work/$build.log" 2>&1; then
    tail -40 "$work/$build.log"
    echo "reproducible: FAILED: build $build (above)"
    exit 1
  fi
done

differ=0
count=0
while IFS= read -r jar; do
  count=$((count + 1))
  if ! cmp -s "$work/one/$jar" "$work/two-at-another-path/$jar"; then
    echo "reproducible: DIFFERS: $jar"
    differ=$((differ + 1))
  fi
done < <(cd "$work/one" && find . -maxdepth 3 -path '*/target/*' -name '*.jar' | sort)

if [ "$count" -eq 0 ]; then
  echo "reproducible: FAILED: no jars built"
  exit 1
fi
if [ "$differ" -ne 0 ]; then
  echo "reproducible: FAILED: $differ of $count jars differ"
  exit 1
fi
echo "reproducible: OK: $count jars byte-identical across two builds, in $((SECONDS - started)) s"
