#!/usr/bin/env bash
# Prepares bench's real-cluster peers outside the repository, once (a second run with the same
# sources is offline and instant), and prints the cache directory:
#   java/      Apache Kafka's Java producer (kafka-clients, pinned in java/pom.xml) and Peer.java,
#              compiled with javac against the jars mvn copies there;
#   venv-confluent-kafka-$CK/   a venv holding confluent-kafka==$CK from PyPI (its wheel
#              bundles librdkafka);
# and checks Debian's python3-confluent-kafka (librdkafka 2.0.2) and kcat (apt-get install
# python3-confluent-kafka kcat). The tests find the cache in $ROLLSAFE_PEERS_CACHE or
# ${XDG_CACHE_HOME:-$HOME/.cache}/rollsafe/peers.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
CK=2.16.1 # confluent-kafka on PyPI; keep in step with pinnedConfluentKafka in bench/real_setup_test.go
cache="${ROLLSAFE_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rollsafe/peers}"
mkdir -p "$cache"

# Java peer.
jsum="$(cat "$here/java/pom.xml" "$here/java/src/main/java/rollsafe/peer/Peer.java" | sha256sum | cut -d' ' -f1)"
jdir="$cache/java"
if ! [ -f "$jdir/.stamp" ] || [ "$(cat "$jdir/.stamp")" != "$jsum" ]; then
  command -v mvn >/dev/null || { echo "setup.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
  command -v javac >/dev/null || { echo "setup.sh: javac not found (a JDK 17+)" >&2; exit 1; }
  tmp="$jdir.tmp.$$"
  rm -rf "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lib" "$tmp/classes"
  mvn -q -B -Dstyle.color=never -f "$here/java/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/lib" >&2
  javac -nowarn -d "$tmp/classes" -cp "$tmp/lib/*" "$here/java/src/main/java/rollsafe/peer/Peer.java" >&2
  echo "$jsum" > "$tmp/.stamp"
  rm -rf "$jdir"
  mv "$tmp" "$jdir"
  trap - EXIT
fi

# confluent-kafka from PyPI, pinned, in a venv. Debian's python3 (the one apt's binding is for).
py=/usr/bin/python3
[ -x "$py" ] || py="$(command -v python3)"
venv="$cache/venv-confluent-kafka-$CK"
if ! "$venv/bin/python" -c "import confluent_kafka,sys; sys.exit(confluent_kafka.version()[0] != '$CK')" 2>/dev/null; then
  rm -rf "$venv"
  "$py" -m venv "$venv" >&2 || { echo "setup.sh: $py -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install -q --disable-pip-version-check "confluent-kafka==$CK" >&2
fi

# Debian's binding and kcat are installed by apt (.ci/run does it); say what is missing.
"$py" -c "import confluent_kafka" 2>/dev/null || echo "setup.sh: $py has no confluent_kafka (apt-get install python3-confluent-kafka)" >&2
command -v kcat >/dev/null || echo "setup.sh: kcat not found (apt-get install kcat)" >&2
echo "$cache"
