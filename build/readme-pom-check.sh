#!/usr/bin/env bash
# Builds the README's pom as a newcomer would: a project made of the README's pom (the xml block
# that starts with <project>) and its complete bot (the java block after "A complete bot"), plus
# one JUnit 5 test that uses webhook-testkit, packaged with `mvn package` twice: once with this
# repository's Maven wrapper, once with the machine's own `mvn` (Debian's is 3.8, whose default
# plugins are the ones a pom must pin). Skips the second with one line where no `mvn` is found.
#   build/readme-pom-check.sh REPO TAIL
# REPO: a local Maven repository that holds the servicehooks artifacts at the README's version
#       (the release rehearsal passes the one its release build installed into); it is written to.
# TAIL: a read-only local repository the wrapper's Maven (3.9) reads first (maven.repo.local.tail);
#       the machine's Maven (3.8 has no tail) downloads into REPO what REPO lacks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
repo="$1"
tail_repo="$2"
say() { echo "readme-pom: $*"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/servicehooks-readme-pom.XXXXXX")"
trap 'rm -rf "$work"' EXIT

project="$work/my-bot"
mkdir -p "$project/src/main/java" "$project/src/test/java"
awk '/^```xml$/ { grab = 1; body = ""; next }
     grab && /^```$/ { if (body ~ /^<project/) { printf "%s", body; exit } grab = 0; next }
     grab { body = body $0 "\n" }' "$root/README.md" >"$project/pom.xml"
awk '/^A complete bot/ { seen = 1; next }
     seen && /^```java$/ { grab = 1; next }
     grab && /^```$/ { exit }
     grab { print }' "$root/README.md" >"$project/src/main/java/PlainJavaBot.java"
for f in pom.xml src/main/java/PlainJavaBot.java; do
  [ -s "$project/$f" ] || { say "FAILED: no $f found in README.md"; exit 1; }
done

# The published vector of PROTOCOL 7: a test that needs JUnit 5 run by surefire and the testkit.
cat >"$project/src/test/java/SignatureTest.java" <<'JAVA'
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.servicehooks.testkit.TestSigner;
import org.junit.jupiter.api.Test;

class SignatureTest {
  @Test
  void signsThePublishedVector() {
    assertEquals(
        "sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=",
        TestSigner.sign("test", "{\"test_number\":1,\"test_string\":\"two\"}"));
  }
}
JAVA

build() { # NAME MAVEN ARGS...
  local name="$1" started=$SECONDS
  shift
  rm -rf "$project/target"
  if ! (cd "$project" && "$@" -B package) >"$work/$name.log" 2>&1; then
    tail -40 "$work/$name.log"
    say "FAILED: the README's pom with $name (above: the end of its log)"
    exit 1
  fi
  if ! grep -q "Tests run: 1, Failures: 0, Errors: 0, Skipped: 0" "$work/$name.log"; then
    tail -40 "$work/$name.log"
    say "FAILED: the README's pom with $name built, but its JUnit 5 test did not run"
    exit 1
  fi
  say "OK with $name ($(grep -m1 -o 'Apache Maven [0-9.]*' "$work/$name.log" || echo Maven)), $((SECONDS - started)) s"
}

MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$repo -Dmaven.repo.local.tail=$tail_repo" \
  build "the wrapper" "$root/mvnw" -V -f "$project/pom.xml"

system_mvn="$(command -v mvn || true)"
if [ -z "$system_mvn" ]; then
  say "skipped the machine's Maven: no mvn on the PATH"
else
  MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$repo" build "the machine's mvn" "$system_mvn" -V
fi
