#!/usr/bin/env bash
# Rehearses a release up to the upload (docs/releasing.md), with nothing but the JDK, the Maven
# wrapper and gpg:
#   1. copies the tree (the files git tracks or would add: no target/, nothing ignored),
#   2. sets the release version on the copy, as the release commit would (build/set-version.sh),
#   3. generates a throwaway signing key in a temporary GNUPGHOME,
#   4. runs exactly  ./mvnw -B -T1 -Prelease -DskipTests -Dcentral.skipPublishing=true deploy
#      which signs, bundles and uploads nothing,
#   5. checks target/central-publishing/central-bundle.zip on its own (build/CheckBundle.java):
#      exactly the modules of servicehooks.published, each with POM, jar, sources, javadoc and
#      CycloneDX SBOM, checksums that match, complete POMs; then `gpg --verify`s every signature
#      with a keyring that holds only the throwaway public key,
#   6. builds the README's pom with its bot and a JUnit 5 test against that release, with the
#      wrapper and with the machine's own Maven (build/readme-pom-check.sh).
# REHEARSAL_LOG=FILE keeps the release build's log there, REHEARSAL_BUNDLE=FILE the bundle.
# Leaves nothing behind: the copy, the key and the local repository are in one temporary directory,
# removed on exit. Maven resolves from a local repository of its own that reads ~/.m2/repository
# as a read-only tail (maven.repo.local.tail, Maven 3.9), so the release build installs nothing
# into ~/.m2 and cannot overwrite anyone's snapshots there.
#   build/release-rehearsal.sh            # the version of the tree, without -SNAPSHOT
#   build/release-rehearsal.sh 1.2.3      # another release version
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
m2="${SERVICEHOOKS_M2_REPOSITORY:-$HOME/.m2/repository}"
started=$SECONDS

for tool in gpg gpgconf java jar; do
  command -v "$tool" >/dev/null || { echo "rehearsal: needs $tool on the PATH" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/servicehooks-rehearsal.XXXXXX")"
export GNUPGHOME="$work/gnupg"
verify_home="$work/gnupg-verify"
cleanup() {
  for home in "$GNUPGHOME" "$verify_home"; do
    [ -d "$home" ] && gpgconf --homedir "$home" --kill all >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
say() { echo "rehearsal: $*"; }

# 1. A clean copy of the tree.
mkdir "$work/tree"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$root" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
    (cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$work/tree"
else
  (cd "$root" && tar --exclude=./target --exclude='*/target' -cf - .) | tar -xf - -C "$work/tree"
fi

# 2. The release version.
snapshot="$(sed -n '/<artifactId>servicehooks-parent<\/artifactId>/,/<\/version>/s:.*<version>\(.*\)</version>.*:\1:p' "$work/tree/pom.xml" | head -1)"
release="${1:-${snapshot%-SNAPSHOT}}"
"$work/tree/build/set-version.sh" "$release" >/dev/null
published="$(sed -n 's:.*<servicehooks.published>\(.*\)</servicehooks.published>.*:\1:p' "$work/tree/pom.xml")"
say "release $release of: $published"

# 3. A throwaway key: RSA, valid one day, its passphrase never on a command line.
mkdir -m 700 "$GNUPGHOME" "$verify_home"
passphrase="$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
gpg --batch --quiet --pinentry-mode loopback --passphrase-fd 0 \
  --quick-gen-key "servicehooks release rehearsal <rehearsal@servicehooks.invalid>" rsa3072 sign 1d \
  <<<"$passphrase" 2>/dev/null
MAVEN_GPG_KEY="$(gpg --batch --pinentry-mode loopback --passphrase-fd 0 --armor --export-secret-keys <<<"$passphrase")"
MAVEN_GPG_PASSPHRASE="$passphrase"
export MAVEN_GPG_KEY MAVEN_GPG_PASSPHRASE
gpg --batch --armor --export > "$work/public.asc"
gpg --batch --quiet --homedir "$verify_home" --import "$work/public.asc" 2>/dev/null

# 4. The rehearsal command, exactly.
say "./mvnw -B -T1 -Prelease -DskipTests -Dcentral.skipPublishing=true deploy"
if ! (cd "$work/tree" &&
  MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$work/m2 -Dmaven.repo.local.tail=$m2" \
    ./mvnw -B -T1 -Prelease -DskipTests -Dcentral.skipPublishing=true deploy) >"$work/build.log" 2>&1; then
  tail -60 "$work/build.log"
  if [ -n "${REHEARSAL_LOG:-}" ]; then cp "$work/build.log" "$REHEARSAL_LOG"; fi
  say "FAILED: the release build (above: the end of its log)"
  exit 1
fi
unset MAVEN_GPG_KEY MAVEN_GPG_PASSPHRASE
if [ -n "${REHEARSAL_LOG:-}" ]; then cp "$work/build.log" "$REHEARSAL_LOG"; fi
bundle="$work/tree/target/central-publishing/central-bundle.zip"
if [ ! -f "$bundle" ]; then
  tail -30 "$work/build.log"
  say "FAILED: no $bundle"
  exit 1
fi

if [ -n "${REHEARSAL_BUNDLE:-}" ]; then cp "$bundle" "$REHEARSAL_BUNDLE"; fi

# 5. The bundle, checked independently of the plugins that made it.
mkdir "$work/bundle"
(cd "$work/bundle" && jar xf "$bundle")
if ! java "$root/build/CheckBundle.java" "$work/bundle" io/servicehooks "$release" "$published" >"$work/signed.txt"; then
  say "FAILED: the bundle (above)"
  exit 1
fi
count=0
while IFS= read -r file; do
  if ! gpg --homedir "$verify_home" --batch --quiet --verify "$file.asc" "$file" 2>"$work/verify.txt"; then
    cat "$work/verify.txt"
    say "FAILED: the signature of ${file#"$work/bundle/"}"
    exit 1
  fi
  count=$((count + 1))
done <"$work/signed.txt"
files="$(cd "$work/bundle" && find . -type f | wc -l | tr -d ' ')"

# 6. The README's pom, as a newcomer builds it, against the release just built.
readme_version="$(awk '/<artifactId>servicehooks-bom<\/artifactId>/ { getline; print; exit }' "$root/README.md" |
  sed 's:.*<version>\(.*\)</version>.*:\1:')"
if [ "$readme_version" = "$release" ]; then
  "$root/build/readme-pom-check.sh" "$work/m2" "$m2" || { say "FAILED: the README's pom (above)"; exit 1; }
else
  say "skipped the README's pom: it names $readme_version, this rehearsal builds $release"
fi
say "OK: $(du -k "$bundle" | cut -f1) KB bundle, $files files, $count signatures verified, checksums match, in $((SECONDS - started)) s"
