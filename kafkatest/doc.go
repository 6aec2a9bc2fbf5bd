// Package kafkatest runs a real Apache Kafka cluster for tests: it starts
// KRaft brokers (combined broker+controller nodes, every node a voter) —
// or, for Kafka 2.8 (Config.Version), ZooKeeper-mode brokers beside one
// ZooKeeper — as child JVMs on 127.0.0.1, with ports chosen at run time outside the
// ephemeral range (so a node restarts on its own), and gives tests
// control of them — controlled shutdown, kill -9, restart on the same
// address, pause and resume, preferred-leader election, leader moves,
// topics with configs — and a fault proxy in front of each broker's client
// listener that can delay, drop or blackhole that broker's client traffic
// while replication and controller traffic bypass it. Config.Listeners adds
// secured client listeners (SSL, SASL_PLAINTEXT, SASL_SSL with PLAIN,
// SCRAM and OAUTHBEARER), each behind its own proxy, with a CA generated
// at launch (Cluster.TLSConfig) and Config.Users as PLAIN and SCRAM users.
//
// The broker jars come from Maven Central through kafkatest/fetch.sh, which
// copies each version's (4.4.0, the default, pinned in kafkatest/pom.xml;
// 3.9.2 and 2.8.1 in pom-<version>.xml) into a cache outside the
// repository; ROLLSAFE_KAFKA_LIB overrides the default version's
// directory and ROLLSAFE_JAVA the java binary. Kafka 4 needs Java 17 or
// newer; the harness runs every version on it.
//
// The versions differ where the harness must: 3.9 runs as 4.4 does
// (KRaft). In ZooKeeper mode (2.8) there is no storage to format; the
// ZooKeeper starts first (from the brokers' jars) and stops last;
// CreateTopics, DeleteTopics, ElectLeaders and reassignments go to the
// controller broker, the only one that answers them; a broker killed
// with SIGKILL keeps its registration until its 18 s ZooKeeper session
// expires, so Start waits for it to go first; and a killed or paused
// broker loses its leaderships only then.
//
// Tests obtain a cluster with LaunchT, or check Require first when they
// share one. Without Java or the jars a test is skipped with a message
// saying how to fetch them, except when CI=true, where it fails.
//
// Every JVM is started in its own process group with a parent-death signal
// (Linux), so none outlives the test binary; Close stops them all.
//
// See docs/real-kafka.md (versions, the harness, security, kafkacluster) in
// the repository.
package kafkatest
