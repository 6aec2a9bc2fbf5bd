package kafkatest

import (
	"errors"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{
		"": V4_4, "4.4": V4_4, "4.4.0": V4_4, "3.9": V3_9, "3.9.2": V3_9, " 2.8 ": V2_8, "2.8.1": V2_8, "2.2": V2_2, "2.2.2": V2_2,
	} {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"2", "2.8.0", "3.9.1", "4.44", "x"} {
		if v, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %q, want an error", in, v)
		}
	}
	if !V2_8.ZooKeeper() || V3_9.ZooKeeper() || V4_4.ZooKeeper() || Version("").ZooKeeper() {
		t.Error("only 2.8 runs in ZooKeeper mode")
	}
	if Version("").String() != KafkaVersion {
		t.Errorf("the zero Version is %q, want %q", Version("").String(), KafkaVersion)
	}
}

// Each version's jars have a directory of their own; ROLLSAFE_KAFKA_LIB
// replaces only the default's.
func TestLibDirFor(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/c")
	t.Setenv("ROLLSAFE_KAFKA_LIB", "")
	if got := LibDirFor(V2_8); got != "/c/rollsafe/kafka-2.8.1/lib" {
		t.Errorf("LibDirFor(2.8) = %q", got)
	}
	t.Setenv("ROLLSAFE_KAFKA_LIB", "/own")
	if got := LibDirFor(""); got != "/own" {
		t.Errorf("LibDirFor(default) with ROLLSAFE_KAFKA_LIB = %q", got)
	}
	if got := LibDirFor(V3_9); got != "/c/rollsafe/kafka-3.9.2/lib" {
		t.Errorf("LibDirFor(3.9) with ROLLSAFE_KAFKA_LIB = %q", got)
	}
	_, err := FindRuntimeFor(V2_8)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "kafka_2.13-2.8.1.jar") {
		t.Errorf("FindRuntimeFor(2.8) without jars: %v", err)
	}
}

// A ZooKeeper-mode broker registers in ZooKeeper under broker.id and has
// no KRaft settings or controller listener; a KRaft node the reverse.
func TestNodePropsByMode(t *testing.T) {
	proxy, err := newProxy("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	nd := &node{id: 2, dir: t.TempDir(), internalPort: 1001, externalPort: 1002, controllerPort: 1003, proxy: proxy}
	zk := nodeProps(Config{Brokers: 3, Version: V2_8}, nd, "127.0.0.1:2181", "")
	kraft := nodeProps(Config{Brokers: 3, Version: V3_9}, nd, "0@127.0.0.1:9", "")
	for _, want := range []string{"broker.id=2\n", "zookeeper.connect=127.0.0.1:2181\n",
		"listeners=INTERNAL://127.0.0.1:1001,EXTERNAL://127.0.0.1:1002\n"} {
		if !strings.Contains(zk, want) {
			t.Errorf("ZooKeeper mode: no %q in\n%s", want, zk)
		}
	}
	for _, not := range []string{"process.roles", "node.id", "controller.", "CONTROLLER", "zookeeper.session.timeout.ms"} {
		if strings.Contains(zk, not) {
			t.Errorf("ZooKeeper mode: %q in\n%s", not, zk)
		}
	}
	for _, want := range []string{"node.id=2\n", "process.roles=broker,controller\n", "controller.quorum.voters=0@127.0.0.1:9\n", "CONTROLLER://127.0.0.1:1003"} {
		if !strings.Contains(kraft, want) {
			t.Errorf("KRaft mode: no %q in\n%s", want, kraft)
		}
	}
	if strings.Contains(kraft, "zookeeper") || strings.Contains(kraft, "broker.id") {
		t.Errorf("KRaft mode with ZooKeeper settings:\n%s", kraft)
	}
}

// ZooKeeper's dump lists each session's ephemeral znodes, one a line.
func TestHoldsEphemeral(t *testing.T) {
	dump := "SessionTracker dump:\nSession Sets (3)/(2):\n0 expire at Mon Dec 07 12:00:00 UTC 2026:\n" +
		"ephemeral nodes dump:\nSessions with Ephemerals (2):\n0x1000031f1a70000:\n\t/controller\n\t/brokers/ids/0\n" +
		"0x1000031f1a70001:\n\t/brokers/ids/12\nConnections with Ephemerals (2):\n"
	for path, want := range map[string]bool{"/brokers/ids/0": true, "/brokers/ids/12": true, "/brokers/ids/1": false, "/brokers/ids/2": false} {
		if got := holdsEphemeral(dump, path); got != want {
			t.Errorf("holdsEphemeral(%s) = %v, want %v", path, got, want)
		}
	}
	if !holdsEphemeral("This ZooKeeper instance is not currently serving requests", "/brokers/ids/0") {
		t.Error("a ZooKeeper that is not serving proves nothing gone")
	}
	if holdsEphemeral("SessionTracker dump:\nSession Sets (0)/(0):\nephemeral nodes dump:\nSessions with Ephemerals (0):\n", "/brokers/ids/0") {
		t.Error("an empty dump holds /brokers/ids/0")
	}
}
