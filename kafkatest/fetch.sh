#!/usr/bin/env bash
# Fetches the Apache Kafka broker (version pinned in pom.xml) and its runtime dependencies into a
# cache outside the repository, once: a second run with the same pom.xml is offline and instant.
# Prints the directory holding the jars; the tests find it there (or in $ROLLSAFE_KAFKA_LIB).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
dir="${ROLLSAFE_KAFKA_LIB:-${XDG_CACHE_HOME:-$HOME/.cache}/rollsafe/kafka-$version/lib}"
sum="$(sha256sum "$here/pom.xml" | cut -d' ' -f1)"
if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$sum" ]; then
  echo "$dir"
  exit 0
fi
command -v mvn >/dev/null || { echo "fetch.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
command -v java >/dev/null || { echo "fetch.sh: java not found (Kafka $version needs Java 17+)" >&2; exit 1; }
tmp="$dir.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >&2
echo "$sum" > "$tmp/.stamp"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir"
