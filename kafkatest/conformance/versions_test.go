package conformance

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// versionScenario is a conformance scenario played on a cluster of some
// Kafka version; topics are the ones it creates (restored after it).
type versionScenario struct {
	name   string
	topics []string
	play   func(t *testing.T, c *kafkatest.Cluster)
	// txn: a transactional scenario, played from Kafka 2.5 on (KIP-360:
	// InitProducerId bumps the epoch of the producer's own id, which
	// every abort relies on); not on 2.2.2.
	txn bool
}

// one is a scenario on a single topic named after it.
func one(name string, play func(*testing.T, *kafkatest.Cluster, string)) versionScenario {
	return versionScenario{name: name, topics: []string{name}, play: func(t *testing.T, c *kafkatest.Cluster) { play(t, c, name) }}
}

// txnOne is a transactional scenario on a single topic named after it.
func txnOne(name string, play func(*testing.T, *kafkatest.Cluster, string)) versionScenario {
	s := one(name, play)
	s.txn = true
	return s
}

// playsOn reports whether the scenario runs on Kafka v.
func (s versionScenario) playsOn(v kafkatest.Version) bool { return !s.txn || v != kafkatest.V2_2 }

// ciScenarios run on every older version in every run (CI included): the
// seed (controlled shutdown, restart, leadership handed back), a crashed
// leader, a frozen one, a topic deleted and created again (topic ids;
// with ZooKeeper the deletion completes in the background), and a
// transaction's coordinator killed mid-commit (not on 2.2.2).
var ciScenarios = []versionScenario{
	one("seed", playSeed),
	one("kill", playKillLeader),
	one("zombie", playZombieLeader),
	one("recreated", playTopicRecreated),
	txnOne("txn-coordinator", playTxnCoordinatorKill),
}

// allScenarios run on demand (ROLLSAFE_KAFKA_VERSIONS set).
var allScenarios = append(append([]versionScenario{one("clean", playClean)}, ciScenarios...),
	one("rolling", playRollingRestarts),
	one("blackhole", playBlackhole),
	one("toolarge", playMessageTooLarge),
	one("mininsync", playMinInsyncOutage),
	one("restart", playRestartAtOnce),
	versionScenario{name: "unclean", topics: uncleanTopics, play: playUncleanElection},
	txnOne("txn-leader", playTxnLeaderRolled),
	txnOne("txn-zombie", playTxnZombie),
	txnOne("txn-timeout", playTxnTimeout),
	txnOne("txn-toolarge", playTxnTooLarge),
)

// olderVersions are the versions TestKafkaVersions runs by default: the
// ones before the package's own (4.4, which every other test runs on).
var olderVersions = []kafkatest.Version{kafkatest.V3_9, kafkatest.V2_8, kafkatest.V2_2}

// versionPlan reads ROLLSAFE_KAFKA_VERSIONS: unset or empty, the CI
// scenarios on every older version; "all", every scenario on every older
// version; a comma-separated list of versions ("2.8,3.9.2", 4.4 allowed),
// every scenario on those; "none", nothing.
func versionPlan(env string) ([]kafkatest.Version, []versionScenario, error) {
	switch env = strings.TrimSpace(env); env {
	case "":
		return olderVersions, ciScenarios, nil
	case "all":
		return olderVersions, allScenarios, nil
	case "none":
		return nil, nil, nil
	}
	var vs []kafkatest.Version
	for _, s := range strings.Split(env, ",") {
		v, err := kafkatest.ParseVersion(s)
		if err != nil {
			return nil, nil, fmt.Errorf("ROLLSAFE_KAFKA_VERSIONS=%q: %w", env, err)
		}
		vs = append(vs, v)
	}
	return vs, allScenarios, nil
}

// TestKafkaVersions plays conformance scenarios on the other Kafka
// versions users run, each on a 3-broker cluster of its own: 3.9 (KRaft),
// 2.8.1 (ZooKeeper mode, the bug report's own broker) and 2.2.2 (before
// OffsetForLeaderEpoch v3, DescribeProducers, topic ids and KIP-360). Each scenario
// reads the log back as on 4.4: nothing lost, duplicated or reordered,
// every record at its acknowledged offset. By default (CI) the seed,
// kill, zombie, recreated and txn-coordinator scenarios (the
// transactional ones not on 2.2.2); ROLLSAFE_KAFKA_VERSIONS selects more
// (see versionPlan).
func TestKafkaVersions(t *testing.T) {
	versions, scenarios, err := versionPlan(os.Getenv("ROLLSAFE_KAFKA_VERSIONS"))
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) == 0 {
		t.Skip("ROLLSAFE_KAFKA_VERSIONS=none")
	}
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			began := time.Now()
			c := launchVersion(t, v)
			var broken error // why the cluster cannot serve the next scenario
			played := 0
			for _, sc := range scenarios {
				if !sc.playsOn(v) {
					continue
				}
				t.Run(sc.name, func(t *testing.T) {
					played++
					if broken != nil {
						t.Fatalf("not played: the Kafka %s cluster was not restored after an earlier scenario: %v", v, broken)
					}
					t.Cleanup(func() {
						if t.Failed() {
							t.Log(c.LogTails(80))
						}
						if err := restore(c, sc.topics); err != nil {
							broken = fmt.Errorf("after %s: %w", sc.name, err)
							t.Errorf("restore the Kafka %s cluster: %v\n%s", v, err, c.Diagnose())
						}
					})
					sc.play(t, c)
				})
			}
			t.Logf("Kafka %s (%s): %d scenarios in %v, launch included", v, v.Mode(), played, time.Since(began).Round(time.Second))
		})
	}
}

// launchVersion starts a 3-broker cluster of Kafka v for t, closing the
// package's shared cluster first (one cluster runs at a time on a
// machine), and stops it when t ends.
func launchVersion(t *testing.T, v kafkatest.Version) *kafkatest.Cluster {
	t.Helper()
	rt := kafkatest.RequireVersion(t, v)
	releaseShared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c, err := kafkatest.Launch(ctx, kafkatest.Config{Version: v, Runtime: rt, Logf: t.Logf})
	if err != nil {
		t.Fatalf("launch Kafka %s: %v", v, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close the Kafka %s cluster: %v", v, err)
		}
	})
	return c
}

// ROLLSAFE_KAFKA_VERSIONS chooses the versions and the scenario set.
func TestVersionPlan(t *testing.T) {
	names := func(ss []versionScenario) string {
		var n []string
		for _, s := range ss {
			n = append(n, s.name)
		}
		return strings.Join(n, ",")
	}
	const onDemand = "rolling,blackhole,toolarge,mininsync,restart,unclean,txn-leader,txn-zombie,txn-timeout,txn-toolarge"
	for env, want := range map[string]string{
		"":          "[3.9.2 2.8.1 2.2.2] seed,kill,zombie,recreated,txn-coordinator",
		"all":       "[3.9.2 2.8.1 2.2.2] clean,seed,kill,zombie,recreated,txn-coordinator," + onDemand,
		"2.8":       "[2.8.1] clean,seed,kill,zombie,recreated,txn-coordinator," + onDemand,
		"3.9.2,4.4": "[3.9.2 4.4.0] clean,seed,kill,zombie,recreated,txn-coordinator," + onDemand,
		"none":      "[] ",
	} {
		vs, ss, err := versionPlan(env)
		if got := fmt.Sprintf("%v %s", vs, names(ss)); err != nil || got != want {
			t.Errorf("versionPlan(%q) = %s, %v; want %s", env, got, err, want)
		}
	}
	if _, _, err := versionPlan("2.7"); err == nil {
		t.Error("versionPlan(2.7): no error")
	}
}
