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
var shared struct {
	once sync.Once
	c    *kafkatest.Cluster
	err  error
	took time.Duration
}

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

// cluster returns the package's cluster, launching it on first use, and
// restores it when t ends: every broker running and unpaused, every proxy
// passing, every partition of t's topics healthy and led by its preferred
// replica. If t failed, the tail of every broker's log is printed.
func cluster(t *testing.T, topics ...string) *kafkatest.Cluster {
	t.Helper()
	rt := kafkatest.Require(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		began := time.Now()
		shared.c, shared.err = kafkatest.Launch(ctx, kafkatest.Config{Runtime: rt, Logf: t.Logf})
		shared.took = time.Since(began)
	})
	if shared.err != nil {
		t.Fatalf("launch: %v", shared.err)
	}
	c := shared.c
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(80))
		}
		if err := restore(c, topics); err != nil {
			t.Errorf("restore the cluster: %v", err)
		}
	})
	return c
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
