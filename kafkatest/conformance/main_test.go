package conformance

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// One cluster serves the whole package (a launch costs tens of seconds);
// every test uses its own topics and leaves the cluster as it found it.
// A cluster a test could not restore (a node that will not start again,
// one that stopped answering) is closed, and the next test launches a
// new one, so one broken cluster fails one test, not every test after
// it; at most maxLaunches clusters are launched in a run.
var shared struct {
	mu       sync.Mutex
	c        *kafkatest.Cluster
	err      error // the last launch's
	broken   error // why c cannot serve another test
	launches int
}

const maxLaunches = 3

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "kafkatest/conformance: close:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// cluster returns the package's cluster, launching it on first use (or
// again, if the last test left it broken), and restores it when t ends:
// every broker running and unpaused, every proxy passing, every partition
// of t's topics healthy and led by its preferred replica. If t failed,
// the state of every node and the tail of its log are printed.
func cluster(t *testing.T, topics ...string) *kafkatest.Cluster {
	t.Helper()
	rt := kafkatest.Require(t)
	c, err := sharedCluster(t, rt)
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(80))
		}
		if err := restore(c, topics); err != nil {
			t.Errorf("restore the cluster (the next test launches another): %v\n%s", err, c.Diagnose())
			shared.mu.Lock()
			shared.broken = err
			shared.mu.Unlock()
		}
	})
	return c
}

// sharedCluster returns the cluster, closing a broken one and launching
// a new one when needed.
func sharedCluster(t *testing.T, rt kafkatest.Runtime) (*kafkatest.Cluster, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.c != nil && shared.broken != nil {
		t.Logf("the last test left the cluster broken (%v); closing it", shared.broken)
		if err := shared.c.Close(); err != nil {
			t.Logf("close the broken cluster: %v", err)
		}
		shared.c, shared.broken = nil, nil
	}
	if shared.c != nil {
		return shared.c, nil
	}
	if shared.launches == maxLaunches {
		return nil, fmt.Errorf("%d clusters launched in this run already; the last launch: %v", maxLaunches, shared.err)
	}
	shared.launches++
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	shared.c, shared.err = kafkatest.Launch(ctx, kafkatest.Config{Runtime: rt, Logf: t.Logf})
	return shared.c, shared.err
}

// releaseShared closes the package's cluster, if one runs, for a test
// that launches a cluster of its own (one runs at a time on a machine);
// a later test that needs the shared one launches it again.
func releaseShared(t *testing.T) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.c == nil {
		return
	}
	if err := shared.c.Close(); err != nil {
		t.Errorf("close the shared cluster: %v", err)
	}
	shared.c, shared.broken = nil, nil
	shared.launches--
}

func restore(c *kafkatest.Cluster, topics []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return c.Restore(ctx, topics...)
}

// newTopic creates a topic of parts partitions (replication 3,
// min.insync.replicas 2 unless configs say otherwise) named after t.
func newTopic(t *testing.T, c *kafkatest.Cluster, name string, parts int32, configs map[string]string) {
	t.Helper()
	cfg := map[string]string{"min.insync.replicas": "2"}
	for k, v := range configs {
		cfg[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.CreateTopic(ctx, kafkatest.Topic{Name: name, Partitions: parts, Replication: 3, Configs: cfg}); err != nil {
		t.Fatal(err)
	}
}
