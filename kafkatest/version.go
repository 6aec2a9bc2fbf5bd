package kafkatest

import (
	"fmt"
	"strings"
)

// Version is an Apache Kafka release the harness runs, as fetch.sh pins
// it (kafkatest/pom.xml for the default, pom-<version>.xml for the
// others). The zero value is DefaultVersion.
type Version string

// The versions fetch.sh fetches.
const (
	// V4_4 is the default: KRaft only, combined broker+controller nodes.
	V4_4 Version = "4.4.0"
	// V3_9 is the last 3.x line (the last with both modes), run in KRaft
	// mode like 4.4.
	V3_9 Version = "3.9.2"
	// V2_8 is the release of the bug report this project grew from, run in
	// ZooKeeper mode: a ZooKeeper (3.5.9, from the same jars) and brokers
	// with broker.id and zookeeper.connect; the controller is whichever
	// broker won the election in ZooKeeper.
	V2_8 Version = "2.8.1"
	// V2_2 predates OffsetForLeaderEpoch v3 (a read shows no log end),
	// DescribeProducers, topic ids and KIP-360's epoch bump by
	// InitProducerId: the oldest broker the producer is run against. Run in
	// ZooKeeper mode (ZooKeeper 3.4.13, from the same jars) like 2.8.1.
	V2_2 Version = "2.2.2"
)

// DefaultVersion is the version a Config without one runs.
const DefaultVersion = V4_4

// KafkaVersion is the default version's name (kafkatest/pom.xml).
const KafkaVersion = string(DefaultVersion)

// Versions lists every version the harness runs, newest first.
func Versions() []Version { return []Version{V4_4, V3_9, V2_8, V2_2} }

// ParseVersion accepts a version's full name ("3.9.2") or its line
// ("3.9"); "" is DefaultVersion.
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultVersion, nil
	}
	for _, v := range Versions() {
		if string(v) == s || strings.Count(s, ".") == 1 && strings.HasPrefix(string(v), s+".") {
			return v, nil
		}
	}
	names := make([]string, 0, 3)
	for _, v := range Versions() {
		names = append(names, string(v))
	}
	return "", fmt.Errorf("kafkatest: no Kafka version %q (have %s)", s, strings.Join(names, ", "))
}

// orDefault is v, or DefaultVersion for the zero value.
func (v Version) orDefault() Version {
	if v == "" {
		return DefaultVersion
	}
	return v
}

// String is the version's full name.
func (v Version) String() string { return string(v.orDefault()) }

// ZooKeeper reports whether v runs in ZooKeeper mode (not KRaft).
func (v Version) ZooKeeper() bool { v = v.orDefault(); return v == V2_8 || v == V2_2 }

// Mode names v's metadata mode: "KRaft" or "ZooKeeper".
func (v Version) Mode() string {
	if v.ZooKeeper() {
		return "ZooKeeper"
	}
	return "KRaft"
}

// scala is the Scala line of v's broker jar (kafka_<scala>-<version>.jar):
// 2.13 from Kafka 2.4 on, 2.12 for 2.2.
func (v Version) scala() string {
	if v.orDefault() == V2_2 {
		return "2.12"
	}
	return "2.13"
}

// hasReassignAPI reports whether v's brokers take AlterPartitionReassignments
// (Kafka 2.4, KIP-455).
func (v Version) hasReassignAPI() bool { return v.orDefault() != V2_2 }
