#!/usr/bin/env bash
# Sets the version of every module to $1: the parent, the BOM (which has no parent) and every
# child's <parent> reference. What a release commit does (docs/releasing.md), and what
# build/release-rehearsal.sh does on its copy of the tree.
#   build/set-version.sh 0.1.0           # the release commit (also dates project.build.outputTimestamp)
#   build/set-version.sh 0.2.0-SNAPSHOT  # the commit after it
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: build/set-version.sh NEW_VERSION" >&2
  exit 2
fi
new="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
# The project's version: the first <version> of the root POM after its own artifactId.
old="$(sed -n '/<artifactId>servicehooks-parent<\/artifactId>/,/<\/version>/s:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -1)"
if [ -z "$old" ]; then
  echo "set-version: cannot read the version of $root/pom.xml" >&2
  exit 1
fi
if [ "$old" = "$new" ]; then
  echo "set-version: already $new"
  exit 0
fi
find "$root" -name pom.xml -not -path '*/target/*' -print0 |
  while IFS= read -r -d '' pom; do
    # -i.bak and rm: the same on GNU and BSD sed.
    sed -i.bak "s:<version>${old//./\\.}</version>:<version>$new</version>:g" "$pom"
    rm -f "$pom.bak"
  done
# A release carries its own time in every jar entry, as the release plugin does: the tag then
# rebuilds byte for byte (build/reproducible.sh). Snapshots keep the time they have.
if [ "${new%-SNAPSHOT}" = "$new" ]; then
  stamp="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for pom in "$root/pom.xml" "$root/servicehooks-bom/pom.xml"; do
    sed -i.bak "s#<project.build.outputTimestamp>[^<]*</project.build.outputTimestamp>#<project.build.outputTimestamp>$stamp</project.build.outputTimestamp>#" "$pom"
    rm -f "$pom.bak"
  done
fi
left="$(grep -rl --include=pom.xml "<version>$old</version>" "$root" | grep -v /target/ || true)"
if [ -n "$left" ]; then
  echo "set-version: $old is still in: $left" >&2
  exit 1
fi
echo "set-version: $old -> $new"
