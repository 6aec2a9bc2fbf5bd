#!/usr/bin/env bash
# Fetches the Apache Kafka brokers the tests run and their runtime dependencies into a cache outside
# the repository: one pom per version (kafkatest/pom.xml pins the default, 4.4.0; pom-<version>.xml
# the older ones), each copied to its own directory once. A version whose directory carries the stamp
# of its pom is skipped without running mvn, so a second run is offline and instant.
#
#   kafkatest/fetch.sh            # every version
#   kafkatest/fetch.sh 2.8.1      # only the named ones
#
# Prints one line per version: the directory holding its jars; the tests find them there. The
# default version's directory is $ROLLSAFE_KAFKA_LIB when set.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/rollsafe"

poms=("$here/pom.xml" "$here"/pom-*.xml)
want=("$@")
fetched=0
for pom in "${poms[@]}"; do
  version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")"
  if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qxF "$version"; then
    continue
  fi
  fetched=$((fetched + 1))
  dir="$cache/kafka-$version/lib"
  if [ "$pom" = "$here/pom.xml" ] && [ -n "${ROLLSAFE_KAFKA_LIB:-}" ]; then
    dir="$ROLLSAFE_KAFKA_LIB"
  fi
  sum="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$sum" ]; then
    echo "$dir"
    continue
  fi
  command -v mvn >/dev/null || { echo "fetch.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
  command -v java >/dev/null || { echo "fetch.sh: java not found (Kafka needs Java 17+ here)" >&2; exit 1; }
  tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >&2
  echo "$sum" > "$tmp/.stamp"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
  echo "$dir"
done
if [ ${#want[@]} -gt 0 ] && [ "$fetched" -ne ${#want[@]} ]; then
  echo "fetch.sh: no pom for some of the versions asked for ($*); known: $(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "${poms[@]}" | tr '\n' ' ')" >&2
  exit 1
fi
