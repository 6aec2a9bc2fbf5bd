package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// TestCluster launches 3 nodes and exercises every control on them, one
// after the other, on one cluster (a launch costs tens of seconds).
func TestCluster(t *testing.T) {
	began := time.Now()
	c := LaunchT(t, Config{Props: map[string]string{
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": strconv.FormatInt(txnAbortCheck.Milliseconds(), 10),
	}})
	t.Logf("3-node cluster serving %v after LaunchT", time.Since(began).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	const topic = "harness"
	if err := c.CreateTopic(ctx, Topic{Name: topic, Partitions: 3, Configs: map[string]string{
		"min.insync.replicas": "2", "max.message.bytes": "200000", "unclean.leader.election.enable": "false",
		"cleanup.policy": "compact",
	}}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetClusterConfig(ctx, "producer.id.expiration.ms", kmsg.StringPtr("600000")); err != nil {
		t.Fatal(err)
	}
	if err := c.SetClusterConfig(ctx, "producer.id.expiration.ms", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic(ctx, Topic{Name: topic}); !errors.Is(err, protocol.ErrTopicAlreadyExists) {
		t.Fatalf("second create: %v, want ErrTopicAlreadyExists", err)
	}
	// DeleteTopics: the topic goes from the metadata; an unknown name is
	// not an error.
	if err := c.CreateTopic(ctx, Topic{Name: "doomed"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTopics(ctx, "doomed", "never-created"); err != nil {
		t.Fatalf("delete topics: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := c.Partitions(ctx, "doomed")
		if errors.Is(err, protocol.ErrUnknownTopicOrPartition) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deleted topic still in the metadata after 30s: %v", err)
		}
	}
	ps, err := c.Partitions(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("%d partitions, want 3", len(ps))
	}
	for _, p := range ps {
		if !p.Healthy() || len(p.Replicas) != 3 {
			t.Fatalf("partition %+v not healthy with 3 replicas", p)
		}
	}
	checkTopicConfig(t, ctx, c, topic, "max.message.bytes", "200000")
	checkTopicConfig(t, ctx, c, topic, "cleanup.policy", "compact")

	t.Run("invalid-records", func(t *testing.T) { testInvalidRecords(t, ctx, c) })
	t.Run("offset-deltas", func(t *testing.T) { testOffsetDeltas(t, ctx, c) })
	t.Run("sequences", func(t *testing.T) { testSequences(t, ctx, c) })
	t.Run("batch-rules", func(t *testing.T) { testBatchRules(t, ctx, c) })
	t.Run("read-rules", func(t *testing.T) { testReadRules(t, ctx, c) })
	t.Run("restart-window", func(t *testing.T) { testRestartWindow(t, ctx, c) })
	t.Run("crash-window", func(t *testing.T) { testCrashWindow(t, ctx, c) })
	t.Run("follower-rules", func(t *testing.T) { testFollowerRules(t, ctx, c) })
	t.Run("min-insync", func(t *testing.T) { testMinInsync(t, ctx, c) })
	t.Run("stamped-expiry", func(t *testing.T) { testStampedExpiry(t, ctx, c) })
	t.Run("leader-move", func(t *testing.T) { testLeaderMoveWindow(t, ctx, c) })
	t.Run("pending-batch", func(t *testing.T) { testPendingBatch(t, ctx, c) })
	t.Run("unclean-window", func(t *testing.T) { testUncleanWindow(t, ctx, c) })
	t.Run("acks-zero", func(t *testing.T) { testAcksZero(t, ctx, c) })
	t.Run("describe-rules", func(t *testing.T) { testDescribeRules(t, ctx, c) })
	t.Run("transactions", func(t *testing.T) { testTransactions(t, ctx, c) })
	t.Run("transactions-v2", func(t *testing.T) { testTransactionsV2(t, ctx, c) })
	t.Run("proxy", func(t *testing.T) { testProxy(t, ctx, c) })

	t.Run("stop-start", func(t *testing.T) {
		leader := ps[0].Leader
		if err := c.Stop(ctx, leader); err != nil {
			t.Fatal(err)
		}
		if c.Running(leader) {
			t.Fatal("stopped node still running")
		}
		if err := c.WaitFor(ctx, topic, "moved off the stopped broker", func(p Partition) bool {
			return p.Leader >= 0 && p.Leader != leader
		}); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx, leader); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitHealthy(ctx, topic); err != nil {
			t.Fatal(err)
		}
		if err := c.ElectPreferredWait(ctx, topic); err != nil {
			t.Fatal(err)
		}
		if l, err := c.Leader(ctx, topic, 0); err != nil || l != leader {
			t.Fatalf("leader of partition 0 after election: %d, %v; want %d", l, err, leader)
		}
	})

	t.Run("kill-start", func(t *testing.T) {
		const id = 2
		pid, err := c.PID(id)
		if err != nil || pid != c.node(id).cmd.Process.Pid {
			t.Fatalf("PID(%d) = %d, %v; the JVM is %d", id, pid, err, c.node(id).cmd.Process.Pid)
		}
		if err := c.Kill(id); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("pid %d still exists after Kill: %v", pid, err)
		}
		if got, err := c.PID(id); err == nil {
			t.Fatalf("PID(%d) after Kill = %d, want an error", id, got)
		}
		if err := c.WaitFor(ctx, topic, "without node 2", func(p Partition) bool { return p.Leader >= 0 && p.Leader != id }); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitHealthy(ctx, topic); err != nil {
			t.Fatal(err)
		}
		if got, err := c.PID(id); err != nil || got == pid {
			t.Fatalf("PID(%d) after Start = %d, %v; want a new JVM's (the killed one was %d)", id, got, err, pid)
		}
		// Once Launch has the class-data archive (cds.go), a restarted
		// broker's JVM maps it.
		if cdsDisabled() {
			return
		}
		newPID, _ := c.PID(id)
		maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", newPID))
		if err != nil {
			t.Skipf("no /proc here: %v", err)
		}
		if c.cds.archive == "" || !strings.Contains(string(maps), c.cds.archive) {
			t.Errorf("the restarted broker does not map the class-data archive %q", c.cds.archive)
		}
	})

	t.Run("pause-resume", func(t *testing.T) {
		const id = 1
		if err := c.Pause(id); err != nil {
			t.Fatal(err)
		}
		if !c.Paused(id) || !c.Running(id) {
			t.Fatal("paused node should be paused and running")
		}
		dctx, dcancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		_, err := protocol.Dial(dctx, c.DirectAddr(id), protocol.ConnConfig{})
		dcancel()
		if err == nil {
			t.Fatal("a paused broker answered ApiVersions")
		}
		if err := c.Resume(id); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitHealthy(ctx, topic); err != nil {
			t.Fatal(err)
		}
		conn, err := protocol.Dial(ctx, c.DirectAddr(id), protocol.ConnConfig{})
		if err != nil {
			t.Fatalf("resumed broker: %v", err)
		}
		conn.Close()
	})

	t.Run("move-leader", func(t *testing.T) {
		if err := c.ElectPreferredWait(ctx, topic); err != nil {
			t.Fatal(err)
		}
		before, err := c.Leader(ctx, topic, 1)
		if err != nil {
			t.Fatal(err)
		}
		to := (before + 1) % 3
		if err := c.MoveLeader(ctx, topic, 1, to); err != nil {
			t.Fatal(err)
		}
		if l, err := c.Leader(ctx, topic, 1); err != nil || l != to {
			t.Fatalf("leader after move: %d, %v; want %d", l, err, to)
		}
	})

	t.Run("close-leaves-nothing", func(t *testing.T) {
		var pids []int
		for _, nd := range c.nodes {
			pids = append(pids, nd.cmd.Process.Pid)
		}
		dir := c.cfg.Dir
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("pid %d still exists after Close: %v", pid, err)
			}
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cluster dir %s still there: %v", dir, err)
		}
	})
}

func checkTopicConfig(t *testing.T, ctx context.Context, c *Cluster, topic, key, want string) {
	t.Helper()
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.ConfigNames = kmsg.ConfigResourceTypeTopic, topic, []string{key}
	req.Resources = append(req.Resources, r)
	resp, err := c.request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range resp.(*kmsg.DescribeConfigsResponse).Resources {
		for _, cfg := range res.Configs {
			if cfg.Name == key && cfg.Value != nil && *cfg.Value == want {
				return
			}
		}
	}
	t.Fatalf("topic %s: config %s is not %s: %+v", topic, key, want, resp)
}

// testProxy checks each mode of node 0's proxy with ApiVersions round trips.
func testProxy(t *testing.T, ctx context.Context, c *Cluster) {
	p := c.Proxy(0)
	dial := func(d time.Duration) (*protocol.Conn, time.Duration, error) {
		dctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		began := time.Now()
		conn, err := protocol.Dial(dctx, p.Addr(), protocol.ConnConfig{})
		return conn, time.Since(began), err
	}
	conn, _, err := dial(5 * time.Second)
	if err != nil {
		t.Fatalf("through the proxy: %v", err)
	}

	// Blackhole: an open connection goes silent, a new one is accepted
	// but never answered; healing delivers what was held.
	p.Set(Blackhole, 0)
	rctx, rcancel := context.WithTimeout(ctx, time.Second)
	_, err = conn.Request(rctx, kmsg.NewPtrApiVersionsRequest())
	rcancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("request through a blackhole: %v, want a timeout", err)
	}
	if _, _, err := dial(time.Second); err == nil {
		t.Fatal("dial through a blackhole succeeded")
	}
	held := make(chan error, 1)
	go func() {
		_, err := conn.Request(ctx, kmsg.NewPtrApiVersionsRequest())
		held <- err
	}()
	time.Sleep(200 * time.Millisecond)
	p.Heal()
	select {
	case err := <-held:
		if err != nil {
			t.Fatalf("held request after heal: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("held request not answered after heal")
	}

	// Delay: a dial (ApiVersions round trip) takes at least two delays.
	p.Set(Delay, 150*time.Millisecond)
	c2, took, err := dial(5 * time.Second)
	if err != nil {
		t.Fatalf("through a delay: %v", err)
	}
	c2.Close()
	if took < 300*time.Millisecond {
		t.Fatalf("dial through a 150ms delay took %v", took)
	}

	// Drop: open connections are closed, new ones refused.
	p.Set(Drop, 0)
	select {
	case <-conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Drop left a connection open")
	}
	if _, _, err := dial(2 * time.Second); err == nil {
		t.Fatal("dial through Drop succeeded")
	}
	var ne net.Error
	_ = errors.As(err, &ne)
	p.Heal()
	c3, _, err := dial(5 * time.Second)
	if err != nil {
		t.Fatalf("after heal: %v", err)
	}
	c3.Close()
}
