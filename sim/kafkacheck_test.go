package sim

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/internal/kafkacheck"
	"github.com/rollsafe/rollsafe/protocol"
)

// TestKafkaChecks runs on the sim the one-partition checks kafkatest's
// TestCluster runs on Apache Kafka (subtests of the same names): the sim
// must answer and keep what Kafka does.
func TestKafkaChecks(t *testing.T) {
	for name, check := range map[string]func(context.Context, *protocol.Conn, string, int32) error{
		"invalid-records": kafkacheck.InvalidRecords,
		"offset-deltas":   kafkacheck.OffsetDeltas,
		"sequences":       kafkacheck.Sequences,
		"batch-rules":     kafkacheck.BatchRules,
		"read-rules":      kafkacheck.ReadRules,
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestCluster(t, Topic(name, 1, 1))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := check(ctx, dialProtocol(t, ctx, c.Addrs()[0]), name, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestKafkaRestartWindow runs kafkacheck.RestartWindow, which kafkatest's
// TestCluster/restart-window runs on Apache Kafka: after StopBroker and
// StartBroker the sim remembers each producer's last batch only, as Kafka
// after a clean restart does.
func TestKafkaRestartWindow(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("restart", 1, 1), Topic("crash", 1, 1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kafkacheck.RestartWindow(ctx, simReplicas{c, "restart"}, "restart"); err != nil {
		t.Fatal(err)
	}
	if err := kafkacheck.CrashWindow(ctx, simReplicas{c, "crash"}, "crash"); err != nil {
		t.Error("crash:", err)
	}
}

// TestKafkaFollowerRules runs kafkacheck.FollowerRules, which kafkatest's
// TestCluster/follower-rules runs on Apache Kafka.
func TestKafkaFollowerRules(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("followers", 1, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leader, _ := c.Leader("followers", 0)
	follower := (leader + 1) % 3
	lc := dialProtocol(t, ctx, c.Addrs()[leader])
	fc := dialProtocol(t, ctx, c.Addrs()[follower])
	if err := kafkacheck.FollowerRules(ctx, lc, fc, leader, "followers", 0); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaMinInsync runs kafkacheck.MinInsync, which kafkatest's
// TestCluster/min-insync runs on Apache Kafka.
func TestKafkaMinInsync(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("min-insync", 1, 2), MinInsyncReplicas("min-insync", 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kafkacheck.MinInsync(ctx, simReplicas{c, "min-insync"}, "min-insync"); err != nil {
		t.Fatal(err)
	}
}

// simReplicas is kafkacheck.Replicas for partition 0 of topic.
type simReplicas struct {
	c     *Cluster
	topic string
}

func (r simReplicas) Dial(ctx context.Context, id int32) (*protocol.Conn, error) {
	return protocol.Dial(ctx, r.c.Addrs()[id], protocol.ConnConfig{})
}

func (r simReplicas) State(context.Context) (int32, []int32, error) {
	leader, _ := r.c.Leader(r.topic, 0)
	isr, err := r.c.ISR(r.topic, 0)
	return leader, isr, err
}

// Eligible asks a running broker, as kafkatest asks Kafka: the sim's
// DescribeTopicPartitions.
func (r simReplicas) Eligible(ctx context.Context) (elr, lastKnown []int32, err error) {
	up := 0
	for id := range r.c.Addrs() {
		if r.c.BrokerUp(int32(id)) {
			up = id
			break
		}
	}
	conn, err := protocol.Dial(ctx, r.c.Addrs()[up], protocol.ConnConfig{})
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	return kafkacheck.Eligible(ctx, conn, r.topic, 0)
}

func (r simReplicas) Stop(_ context.Context, id int32) error { return r.c.StopBroker(id) }

// Kill is kill -9, as kafkatest's Kill is: the process dies, the host's
// page cache (and the log in it) survives.
func (r simReplicas) Kill(_ context.Context, id int32) error { return r.c.KillProcess(id) }

// CutPower is kafkacheck.PowerCutter's.
func (r simReplicas) CutPower(_ context.Context, id int32) error { return r.c.CutPower(id) }
func (r simReplicas) Start(_ context.Context, id int32) error    { return r.c.StartBroker(id) }

// TestKafkaStampedExpiry runs kafkacheck.StampedExpiry, which kafkatest's
// TestCluster/stamped-expiry runs on Apache Kafka.
func TestKafkaStampedExpiry(t *testing.T) {
	const check = 100 * time.Millisecond
	c := newTestCluster(t, Brokers(1), Topic("stamped", 1, 1), ProducerIDExpirationCheck(check))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := dialProtocol(t, ctx, c.Addrs()[0])
	if err := kafkacheck.StampedExpiry(ctx, conn, "stamped", 0, check); err != nil {
		t.Fatal(err)
	}
}

// dialProtocol connects a protocol.Conn to addr, closed when t ends.
func dialProtocol(t *testing.T, ctx context.Context, addr string) *protocol.Conn {
	t.Helper()
	conn, err := protocol.Dial(ctx, addr, protocol.ConnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestKafkaLeaderMoveWindow runs kafkacheck.LeaderMoveWindow, which
// kafkatest's TestCluster/leader-move runs on Apache Kafka.
func TestKafkaLeaderMoveWindow(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("leader-move", 1, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kafkacheck.LeaderMoveWindow(ctx, simReplicas{c, "leader-move"}, "leader-move"); err != nil {
		t.Fatal(err)
	}
}

func (r simReplicas) Move(_ context.Context, to int32) error { return r.c.MoveLeader(r.topic, 0, to) }

// TestKafkaPendingBatch runs kafkacheck.PendingBatch, which kafkatest's
// TestCluster/pending-batch runs on Apache Kafka (a paused follower there,
// a follower lagging an hour here).
func TestKafkaPendingBatch(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("pending", 1, 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kafkacheck.PendingBatch(ctx, simReplicas{c, "pending"}, "pending"); err != nil {
		t.Fatal(err)
	}
}

func (r simReplicas) Pause(_ context.Context, id int32) error {
	return r.c.SetFollowerLag(id, time.Hour)
}
func (r simReplicas) Resume(_ context.Context, id int32) error { return r.c.SetFollowerLag(id, 0) }

// TestKafkaUncleanWindow runs kafkacheck.UncleanWindow, which kafkatest's
// TestCluster/unclean-window runs on Apache Kafka.
func TestKafkaUncleanWindow(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("unclean", 1, 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kafkacheck.UncleanWindow(ctx, simReplicas{c, "unclean"}, "unclean"); err != nil {
		t.Fatal(err)
	}
}

func (r simReplicas) Freeze(_ context.Context, id int32) error {
	return r.c.PauseReplication(r.topic, 0, id)
}

func (r simReplicas) ElectUnclean(_ context.Context, dead, to int32) error {
	if err := r.c.KillProcess(dead); err != nil { // kill -9, as kafkatest kills
		return err
	}
	if err := r.c.ResumeReplication(r.topic, 0, to); err != nil {
		return err
	}
	_, err := r.c.UncleanElect(r.topic, 0, to)
	return err
}

// TestKafkaAcksZero runs kafkacheck.AcksZero, which kafkatest's
// TestCluster/acks-zero runs on Apache Kafka.
func TestKafkaAcksZero(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("acks-zero", 1, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leader, _ := c.Leader("acks-zero", 0)
	lc := dialProtocol(t, ctx, c.Addrs()[leader])
	fc := dialProtocol(t, ctx, c.Addrs()[(leader+1)%3])
	if err := kafkacheck.AcksZero(ctx, lc, fc, "acks-zero", 0); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaELRElection runs kafkacheck.ELRElection, which kafkatest's
// TestELR runs on Apache Kafka (five nodes there; the sim's controller
// needs no quorum).
func TestKafkaELRElection(t *testing.T) {
	for _, k := range kafkacheck.ELRCases {
		t.Run(k.String(), func(t *testing.T) {
			// A third broker answers DescribeTopicPartitions while both
			// replicas are down.
			c := newTestCluster(t, Brokers(3), Topic("elr", 1, 2), MinInsyncReplicas("elr", 2))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			// The sim elects (or not) inside StartBroker: a short settle shows it.
			if err := kafkacheck.ELRElection(ctx, simReplicas{c, "elr"}, "elr", k, 300*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestKafkaPowerCut runs kafkacheck.PowerCut, which kafkatest's
// TestELR/power-cut runs on Apache Kafka (the cut emulated: kill -9 and
// the log cut back): a leader alone in the ISR loses what it acknowledged
// alone, and is elected again without it.
func TestKafkaPowerCut(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("power-cut", 1, 2))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := kafkacheck.PowerCut(ctx, simReplicas{c, "power-cut"}, "power-cut"); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaDescribeRules runs kafkacheck.DescribeRules, which kafkatest's
// TestCluster/describe-rules runs on Apache Kafka: DescribeTopicPartitions'
// order, pages and errors.
func TestKafkaDescribeRules(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("describe-a", 3, 3), Topic("describe-b", 2, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kafkacheck.DescribeRules(ctx, dialProtocol(t, ctx, c.Addrs()[0]), "describe-a", "describe-b"); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaTransactions runs kafkacheck.Transactions, which kafkatest's
// TestCluster/transactions runs on Apache Kafka: a transactional
// producer's requests, fencing, timeouts and read_committed reads.
func TestKafkaTransactions(t *testing.T) {
	const check = 100 * time.Millisecond
	c := newTestCluster(t, Brokers(3), Topic("txn", 2, 3), TransactionAbortCheck(check))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dial := func(ctx context.Context, id int32, caps map[int16]int16) (*protocol.Conn, error) {
		return protocol.Dial(ctx, c.Addrs()[id], protocol.ConnConfig{MaxVersions: caps})
	}
	if err := kafkacheck.Transactions(ctx, dial, "txn", check); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaTransactionsV2 runs kafkacheck.TransactionsV2, which kafkatest's
// TestCluster/transactions-v2 runs on Apache Kafka 4.4: a transactions v2
// producer's requests (Produce v12 without AddPartitionsToTxn, EndTxn v5
// bumping the epoch), fencing, a timeout and read_committed reads.
func TestKafkaTransactionsV2(t *testing.T) {
	const check = 100 * time.Millisecond
	c := newTestCluster(t, Brokers(3), Topic("txn", 2, 3), TransactionAbortCheck(check))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dial := func(ctx context.Context, id int32, caps map[int16]int16) (*protocol.Conn, error) {
		return protocol.Dial(ctx, c.Addrs()[id], protocol.ConnConfig{MaxVersions: caps})
	}
	if err := kafkacheck.TransactionsV2(ctx, dial, "txn", check); err != nil {
		t.Fatal(err)
	}
}
