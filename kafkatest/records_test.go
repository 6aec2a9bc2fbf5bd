package kafkatest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"

	"github.com/rollsafe/rollsafe/internal/kafkacheck"
	"github.com/rollsafe/rollsafe/protocol"
)

// testInvalidRecords runs kafkacheck.InvalidRecords, which the sim runs
// too (sim.TestKafkaChecks): INVALID_RECORD for a byte left inside a
// record's size, a negative header count, a negative header key size and
// bytes after the last counted record; a well-formed batch is taken.
func testInvalidRecords(t *testing.T, ctx context.Context, c *Cluster) {
	conn := leaderConn(t, ctx, c, "records")
	if err := kafkacheck.InvalidRecords(ctx, conn, "records", 0); err != nil {
		t.Fatal(err)
	}
}

// testOffsetDeltas runs kafkacheck.OffsetDeltas, which the sim runs too
// (sim.TestKafkaChecks): Kafka keeps an uncompressed batch whose records'
// offset deltas are not 0..n-1 as sent, and fails a compressed one with
// UNKNOWN_SERVER_ERROR.
func testOffsetDeltas(t *testing.T, ctx context.Context, c *Cluster) {
	conn := leaderConn(t, ctx, c, "deltas")
	if err := kafkacheck.OffsetDeltas(ctx, conn, "deltas", 0); err != nil {
		t.Fatal(err)
	}
}

// leaderConn creates topic, one partition on one replica, and returns a
// connection to its leader, closed when t ends.
func leaderConn(t *testing.T, ctx context.Context, c *Cluster, topic string) *protocol.Conn {
	t.Helper()
	if err := c.CreateTopic(ctx, Topic{Name: topic, Replication: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "led", func(p Partition) bool { return p.Leader >= 0 }); err != nil {
		t.Fatal(err)
	}
	ps, err := c.Partitions(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := protocol.Dial(ctx, c.DirectAddr(ps[0].Leader), protocol.ConnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := waitLeading(ctx, conn, topic); err != nil {
		t.Fatal(err)
	}
	return conn
}

// waitLeading waits until the broker on conn leads topic's partition 0 as
// far as its own replica manager knows: the metadata another broker
// answered can name it leader before it has applied that change, when it
// still answers produce requests UNKNOWN_TOPIC_OR_PARTITION. ListOffsets
// is answered by the partition's leader replica only.
func waitLeading(ctx context.Context, conn *protocol.Conn, topic string) error {
	for {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = -1
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = 0, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := conn.Request(ctx, req)
		if err != nil {
			return fmt.Errorf("kafkatest: %s: waiting for the leader to lead: %w", topic, err)
		}
		code := int16(-1)
		for _, t := range resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				code = p.ErrorCode
			}
		}
		if code == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: %s: the leader does not lead yet (ListOffsets: %v): %w", topic, kafkaerr.Code(code), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// testSequences runs kafkacheck.Sequences, which the sim runs too
// (sim.TestKafkaChecks): Kafka's idempotence rules, answer by answer.
func testSequences(t *testing.T, ctx context.Context, c *Cluster) {
	conn := leaderConn(t, ctx, c, "sequences")
	if err := kafkacheck.Sequences(ctx, conn, "sequences", 0); err != nil {
		t.Fatal(err)
	}
}

// testBatchRules runs kafkacheck.BatchRules, which the sim runs too
// (sim.TestKafkaChecks): Kafka's answers to malformed batches.
func testBatchRules(t *testing.T, ctx context.Context, c *Cluster) {
	conn := leaderConn(t, ctx, c, "batches")
	if err := kafkacheck.BatchRules(ctx, conn, "batches", 0); err != nil {
		t.Fatal(err)
	}
}

// testReadRules runs kafkacheck.ReadRules, which the sim runs too
// (sim.TestKafkaChecks): Fetch and ListOffsets as Kafka answers them.
func testReadRules(t *testing.T, ctx context.Context, c *Cluster) {
	conn := leaderConn(t, ctx, c, "reads")
	if err := kafkacheck.ReadRules(ctx, conn, "reads", 0); err != nil {
		t.Fatal(err)
	}
}

// testRestartWindow runs kafkacheck.RestartWindow, which the sim runs too
// (sim.TestKafkaRestartWindow): after a clean restart a broker remembers
// only each producer's last batch.
func testRestartWindow(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	r := healthyTopic(t, ctx, c, Topic{Name: "restart-window", Replication: 1})
	if err := kafkacheck.RestartWindow(ctx, r, r.topic); err != nil {
		t.Fatal(err)
	}
}

// testCrashWindow runs kafkacheck.CrashWindow, which the sim runs too
// (sim.TestKafkaRestartWindow): after kill -9 too a broker remembers only
// each producer's last batch.
func testCrashWindow(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	r := healthyTopic(t, ctx, c, Topic{Name: "crash-window", Replication: 1})
	if err := kafkacheck.CrashWindow(ctx, r, r.topic); err != nil {
		t.Fatal(err)
	}
}

// testFollowerRules runs kafkacheck.FollowerRules, which the sim runs too
// (sim.TestKafkaFollowerRules): what a follower refuses, what a leader
// answers an epoch ahead, unknown partitions.
func testFollowerRules(t *testing.T, ctx context.Context, c *Cluster) {
	r := healthyTopic(t, ctx, c, Topic{Name: "followers", Replication: 3})
	leader, lc, fc := leaderAndFollower(t, ctx, r)
	if err := kafkacheck.FollowerRules(ctx, lc, fc, leader, r.topic, 0); err != nil {
		t.Fatal(err)
	}
}

// testMinInsync runs kafkacheck.MinInsync, which the sim runs too
// (sim.TestKafkaMinInsync): NOT_ENOUGH_REPLICAS, and a high watermark that
// waits, while the in-sync replicas are fewer than min.insync.replicas.
func testMinInsync(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	const topic = "min-insync"
	r := healthyTopic(t, ctx, c, Topic{Name: topic, Replication: 2, Configs: map[string]string{"min.insync.replicas": "2"}})
	if err := kafkacheck.MinInsync(ctx, r, topic); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx, topic); err != nil {
		t.Fatal(err)
	}
}

// kafkaReplicas is kafkacheck.Replicas for partition 0 of topic.
type kafkaReplicas struct {
	c     *Cluster
	topic string
}

func (r kafkaReplicas) Dial(ctx context.Context, id int32) (*protocol.Conn, error) {
	return protocol.Dial(ctx, r.c.DirectAddr(id), protocol.ConnConfig{})
}

func (r kafkaReplicas) State(ctx context.Context) (int32, []int32, error) {
	ps, err := r.c.Partitions(ctx, r.topic)
	if err != nil {
		return -1, nil, err
	}
	return ps[0].Leader, ps[0].ISR, nil
}

func (r kafkaReplicas) Stop(ctx context.Context, id int32) error { return r.c.Stop(ctx, id) }
func (r kafkaReplicas) Kill(_ context.Context, id int32) error   { return r.c.Kill(id) }

// CutPower is kafkacheck.PowerCutter's: kill -9, then the log of partition
// 0 cut back to where its other, stopped, replica's ends (CutLog).
func (r kafkaReplicas) CutPower(ctx context.Context, id int32) error {
	parts, err := r.c.Partitions(ctx, r.topic)
	if err != nil {
		return err
	}
	if err := r.c.Kill(id); err != nil {
		return err
	}
	keep := int64(0)
	for _, other := range parts[0].Replicas {
		if other == id {
			continue
		}
		end, err := r.c.LogEnd(other, r.topic, 0)
		if err != nil {
			return err
		}
		keep = max(keep, end)
	}
	_, _, err = r.c.CutLog(id, r.topic, 0, keep)
	return err
}
func (r kafkaReplicas) Start(ctx context.Context, id int32) error { return r.c.Start(ctx, id) }

// testStampedExpiry runs kafkacheck.StampedExpiry, which the sim runs too
// (sim.TestKafkaStampedExpiry): producers expire by their records'
// timestamps (the harness checks expiry every second).
func testStampedExpiry(t *testing.T, ctx context.Context, c *Cluster) {
	conn := leaderConn(t, ctx, c, "stamped-expiry")
	if err := kafkacheck.StampedExpiry(ctx, conn, "stamped-expiry", 0, time.Second); err != nil {
		t.Fatal(err)
	}
}

// testLeaderMoveWindow runs kafkacheck.LeaderMoveWindow, which the sim runs
// too (sim.TestKafkaLeaderMoveWindow): a new leader knows the producers
// its replica copied.
func testLeaderMoveWindow(t *testing.T, ctx context.Context, c *Cluster) {
	const topic = "leader-move"
	r := healthyTopic(t, ctx, c, Topic{Name: topic, Replication: 3})
	if err := kafkacheck.LeaderMoveWindow(ctx, r, topic); err != nil {
		t.Fatal(err)
	}
}

func (r kafkaReplicas) Move(ctx context.Context, to int32) error {
	return r.c.MoveLeader(ctx, r.topic, 0, to)
}

// testPendingBatch runs kafkacheck.PendingBatch, which the sim runs too
// (sim.TestKafkaPendingBatch): a batch answered REQUEST_TIMED_OUT above
// the high watermark, invisible to readers, commits once the follower is
// back.
func testPendingBatch(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	const topic = "pending"
	r := healthyTopic(t, ctx, c, Topic{Name: topic, Replication: 2})
	if err := kafkacheck.PendingBatch(ctx, r, topic); err != nil {
		t.Fatal(err)
	}
}

func (r kafkaReplicas) Pause(_ context.Context, id int32) error  { return r.c.Pause(id) }
func (r kafkaReplicas) Resume(_ context.Context, id int32) error { return r.c.Resume(id) }

// testUncleanWindow runs kafkacheck.UncleanWindow, which the sim runs too
// (sim.TestKafkaUncleanWindow): what an unclean election keeps of a
// producer's records and state.
func testUncleanWindow(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	const topic = "unclean-window"
	r := healthyTopic(t, ctx, c, Topic{Name: topic, Replication: 2, Configs: map[string]string{
		"min.insync.replicas": "1", "unclean.leader.election.enable": "true"}})
	if err := kafkacheck.UncleanWindow(ctx, r, topic); err != nil {
		t.Fatal(err)
	}
}

func (r kafkaReplicas) Freeze(_ context.Context, id int32) error { return r.c.Pause(id) }

func (r kafkaReplicas) ElectUnclean(ctx context.Context, dead, to int32) error {
	if err := r.c.Kill(dead); err != nil {
		return err
	}
	if err := r.c.Resume(to); err != nil {
		return err
	}
	return r.c.ElectUncleanWait(ctx, r.topic, 0, to)
}

// restoreNodes resumes every paused node and starts every stopped one when
// t ends, so that a check failing halfway leaves the cluster whole for the
// subtests after it.
func restoreNodes(t *testing.T, ctx context.Context, c *Cluster) {
	t.Cleanup(func() {
		for id := range int32(c.Brokers()) {
			if c.Paused(id) {
				if err := c.Resume(id); err != nil {
					t.Errorf("resume node %d: %v", id, err)
				}
			}
			if !c.Running(id) {
				if err := c.Start(ctx, id); err != nil {
					t.Errorf("start node %d: %v", id, err)
				}
			}
		}
	})
}

// testAcksZero runs kafkacheck.AcksZero, which the sim runs too
// (sim.TestKafkaAcksZero): an acks=0 produce the broker refuses closes the
// connection.
func testAcksZero(t *testing.T, ctx context.Context, c *Cluster) {
	r := healthyTopic(t, ctx, c, Topic{Name: "acks-zero", Replication: 3})
	_, lc, fc := leaderAndFollower(t, ctx, r)
	if err := kafkacheck.AcksZero(ctx, lc, fc, r.topic, 0); err != nil {
		t.Fatal(err)
	}
}

// healthyTopic creates topic and waits until every replica is in sync.
func healthyTopic(t *testing.T, ctx context.Context, c *Cluster, topic Topic) kafkaReplicas {
	t.Helper()
	if err := c.CreateTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx, topic.Name); err != nil {
		t.Fatal(err)
	}
	return kafkaReplicas{c, topic.Name}
}

// leaderAndFollower returns partition 0's leader and connections to it
// and to a follower, closed when t ends.
func leaderAndFollower(t *testing.T, ctx context.Context, r kafkaReplicas) (int32, *protocol.Conn, *protocol.Conn) {
	t.Helper()
	leader, follower := leaderAndInSync(t, ctx, r)
	var conns [2]*protocol.Conn
	for i, id := range []int32{leader, follower} {
		var err error
		if conns[i], err = r.Dial(ctx, id); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conns[i].Close() })
	}
	return leader, conns[0], conns[1]
}

// leaderAndInSync returns partition 0's leader and a follower in its ISR.
func leaderAndInSync(t *testing.T, ctx context.Context, r kafkaReplicas) (leader, follower int32) {
	t.Helper()
	leader, isr, err := r.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	follower = isr[0]
	if follower == leader {
		follower = isr[1]
	}
	return leader, follower
}

// Eligible is kafkacheck.ELRReplicas': Kafka's DescribeTopicPartitions.
func (r kafkaReplicas) Eligible(ctx context.Context) (elr, lastKnown []int32, err error) {
	return r.c.EligibleReplicas(ctx, r.topic, 0)
}

// testDescribeRules runs kafkacheck.DescribeRules, which the sim runs too
// (sim.TestKafkaDescribeRules): DescribeTopicPartitions' order, pages and
// errors.
func testDescribeRules(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	for _, tp := range []Topic{{Name: "describe-a", Partitions: 3}, {Name: "describe-b", Partitions: 2}} {
		healthyTopic(t, ctx, c, tp)
	}
	conn, err := protocol.Dial(ctx, c.DirectAddr(0), protocol.ConnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := kafkacheck.DescribeRules(ctx, conn, "describe-a", "describe-b"); err != nil {
		t.Fatal(err)
	}
}
