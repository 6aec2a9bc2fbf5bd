package conformance

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// The transactional producer on a real cluster: each scenario ends by
// reading the topic back as read_committed (ledger.verify): every record
// of a committed transaction once, in order, at its acknowledged offset;
// nothing of an aborted one.

// txnRecords is how many records a scenario's transaction writes.
const txnRecords = 60

// txnStateTopic holds the transaction coordinators' state: its
// partitions' leaders are the coordinators.
const txnStateTopic = "__transaction_state"

var runs = map[string]int{}

// runName returns base the first time, base-2, base-3… after (-count=N
// on the shared cluster: topics and transactional ids are new each run).
func runName(base string) string {
	runs[base]++
	if n := runs[base]; n > 1 {
		return fmt.Sprintf("%s-%d", base, n)
	}
	return base
}

func TestTxnCoordinatorKill(t *testing.T) {
	topic := runName("txn-coordinator")
	playTxnCoordinatorKill(t, cluster(t, topic), topic)
}

// coordinatorKill is when a round kills the transaction coordinator.
type coordinatorKill struct {
	name     string
	atEndTxn bool          // when EndTxn has gone on to it (else just before CommitTransaction)
	delay    time.Duration // after EndTxn went on
}

var coordinatorKills = []coordinatorKill{
	{"as EndTxn reaches it", true, 0},
	{"just before CommitTransaction", false, 0},
	{"5 ms after EndTxn reached it", true, 5 * time.Millisecond},
	{"20 ms after EndTxn reached it", true, 20 * time.Millisecond},
}

// playTxnCoordinatorKill: a transaction's records are written, then its
// coordinator (FindCoordinator) is killed with SIGKILL mid-commit — as its
// proxy forwards the EndTxn (or a few ms after, or just before the
// commit: ROLLSAFE_TXN_ROUNDS plays them in turn). The commit either
// completes or says abort; the log must hold what it said. The broker is
// started again and the same producer commits one more transaction.
func playTxnCoordinatorKill(t *testing.T, c *kafkatest.Cluster, topic string) {
	l := txnTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 15*time.Minute)
	tp := l.newTxnProducer(topic)
	tp.init(ctx)
	for round := range txnRounds(t) {
		kill := coordinatorKills[round%len(coordinatorKills)]
		began := time.Now()
		tp.begin()
		tp.produce(txnRecords, parts)
		l.awaitWritten(ctx, l.ids(tp.txn)...)
		coord, err := c.TransactionCoordinator(ctx, tp.id)
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		fired := make(chan struct{})  // closed when the kill starts
		killed := make(chan error, 1) // then its outcome
		if kill.atEndTxn {
			c.Proxy(coord).OnRequest(func(key, _ int16) {
				if key != 26 { // EndTxn
					return
				}
				once.Do(func() {
					close(fired)
					time.Sleep(kill.delay)
					killed <- c.Kill(coord)
				})
			})
		} else {
			close(fired)
			killed <- c.Kill(coord)
		}
		err = tp.p.CommitTransaction(ctx)
		c.Proxy(coord).OnRequest(nil)
		select {
		case <-fired:
			// A kill some ms after the EndTxn may come after the commit
			// returned: wait for it.
			if kerr := <-killed; kerr != nil {
				t.Fatal(kerr)
			}
		default:
			now, ferr := c.TransactionCoordinator(ctx, tp.id)
			t.Fatalf("round %d: the coordinator, broker %d, was not killed: no EndTxn went through its proxy (commit: %v; the coordinator now: %d, %v)", round, coord, err, now, ferr)
		}
		if c.Running(coord) {
			t.Fatalf("broker %d still running after SIGKILL", coord)
		}
		switch {
		case err == nil:
			tp.ended(true)
		case errors.Is(err, client.ErrTxnAbortable):
			tp.abort(ctx)
		default:
			t.Fatalf("round %d: CommitTransaction with the coordinator killed %s: %v, want nil or ErrTxnAbortable", round, kill.name, err)
		}
		commitTook := time.Since(began)
		now, err := c.TransactionCoordinator(ctx, tp.id)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: coordinator broker %d killed %s; the commit returned %v after %v; coordinator now %d",
			round, coord, kill.name, err, commitTook.Round(time.Millisecond), now)
		if err := c.Start(ctx, coord); err != nil {
			t.Fatal(err)
		}
		// The cluster settles before the next round: every partition of
		// the topic and of __transaction_state in sync and led by its
		// preferred replica, so that the coordinator the round finds is
		// still the one when its commit runs.
		for _, tt := range []string{topic, txnStateTopic} {
			if err := c.WaitHealthy(ctx, tt); err != nil {
				t.Fatal(err)
			}
			if err := c.ElectPreferredWait(ctx, tt); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The producer goes on with the coordinator moved.
	tp.begin()
	tp.produce(txnRecords, parts)
	tp.commit(ctx)
	l.verify(ctx)
}

func TestTxnLeaderRolled(t *testing.T) {
	topic := runName("txn-leader")
	playTxnLeaderRolled(t, cluster(t, topic), topic)
}

// playTxnLeaderRolled: mid-transaction, the leader of a partition (not the
// coordinator) is rolled — controlled shutdown, records produced while
// the partition is led elsewhere, started again and handed leadership
// back — and more records produced; then the transaction commits.
func playTxnLeaderRolled(t *testing.T, c *kafkatest.Cluster, topic string) {
	l := txnTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 15*time.Minute)
	tp := l.newTxnProducer(topic)
	tp.init(ctx)
	for round := range txnRounds(t) {
		coord, err := c.TransactionCoordinator(ctx, tp.id)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := c.Partitions(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		victim, part := int32(-1), int32(-1)
		for _, p := range ps {
			if p.Leader != coord {
				victim, part = p.Leader, p.ID
				break
			}
		}
		if victim < 0 {
			t.Fatalf("every partition of %s is led by the coordinator, broker %d", topic, coord)
		}
		tp.begin()
		tp.produce(txnRecords/3, parts)
		l.awaitWritten(ctx, l.ids(tp.txn)...)
		if err := c.Stop(ctx, victim); err != nil {
			t.Fatal(err)
		}
		now := waitMoved(t, ctx, c, topic, part, victim)
		tp.produce(txnRecords/3, parts)
		l.awaitWritten(ctx, l.ids(tp.txn)...)
		if err := c.Start(ctx, victim); err != nil {
			t.Fatal(err)
		}
		handBack(t, ctx, c, topic, part, victim)
		tp.produce(txnRecords/3, parts)
		tp.commit(ctx)
		t.Logf("round %d: broker %d (leader of partition %d, not the coordinator %d) stopped mid-transaction, partition led by %d, restarted and handed back; committed", round, victim, part, coord, now)
	}
	l.verify(ctx)
}

func TestTxnZombie(t *testing.T) {
	topic := runName("txn-zombie")
	playTxnZombie(t, cluster(t, topic), topic)
}

// playTxnZombie: a second instance with the same transactional id calls
// InitTransactions while the first has a transaction open with records
// written. The first's records never become visible, and its next call —
// CommitTransaction, or a Produce then CommitTransaction — ends fenced
// (ErrTxnFatal with ErrFenced; after a Produce a first ErrTxnAbortable
// says abort, and the abort's EndTxn then learns the fence). The second
// commits.
func playTxnZombie(t *testing.T, c *kafkatest.Cluster, topic string) {
	l := txnTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	for _, produceAfter := range []bool{false, true} {
		id := topic + "-commit"
		if produceAfter {
			id = topic + "-produce"
		}
		old := l.newTxnProducer(id)
		old.init(ctx)
		old.begin()
		old.produce(txnRecords, parts)
		l.awaitWritten(ctx, l.ids(old.txn)...)

		newer := l.newTxnProducer(id)
		newer.init(ctx)

		if produceAfter {
			old.produceTo(0, nil)
		}
		err := old.p.CommitTransaction(ctx)
		first := err
		if errors.Is(err, client.ErrTxnAbortable) {
			err = old.p.AbortTransaction(ctx)
		}
		mustErr(t, id+": the zombie's next calls", err, client.ErrFenced, client.ErrTxnFatal)
		old.ended(false)
		mustErr(t, id+": BeginTransaction after the fence", old.p.BeginTransaction(), client.ErrFenced)
		t.Logf("%s: the zombie's CommitTransaction: %v; then %v", id, first, err)

		newer.begin()
		newer.produce(txnRecords, parts)
		newer.commit(ctx)
	}
	l.verify(ctx)
}

func TestTxnTimeout(t *testing.T) {
	topic := runName("txn-timeout")
	playTxnTimeout(t, cluster(t, topic), topic)
}

// txnTimeout is the timeout-scenario's TransactionTimeout; the test
// cluster aborts a transaction past it within a second.
const txnTimeout = 2 * time.Second

// playTxnTimeout: a transaction is left open past its TransactionTimeout
// until the coordinator's abort markers are in the log. The producer's
// next call — CommitTransaction, or a Produce then CommitTransaction —
// ends fatal with ErrFenced (a first ErrTxnAbortable says abort, and the
// abort's EndTxn then learns it): with transactions v1 the coordinator's
// refusal of the epoch its timeout moved cannot be told from a newer
// instance's fence (idempotence/README.md, "Transactions"), as for
// Kafka's producer. A new producer with the same transactional id then
// commits. None of the timed-out records is visible.
func playTxnTimeout(t *testing.T, c *kafkatest.Cluster, topic string) {
	l := txnTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	for _, produceAfter := range []bool{false, true} {
		id := topic + "-commit"
		if produceAfter {
			id = topic + "-produce"
		}
		tp := l.newTxnProducer(id, client.TransactionTimeout(txnTimeout))
		tp.init(ctx)
		tp.begin()
		tp.produce(txnRecords, parts)
		l.awaitWritten(ctx, l.ids(tp.txn)...)
		began := time.Now()
		_, raw := l.readStable(ctx) // the coordinator's abort markers closed it
		t.Logf("%s: the coordinator aborted the open transaction %v after its records were in the log; partition 0: %s",
			id, time.Since(began).Round(time.Millisecond), epochs(raw, 0))

		if produceAfter {
			tp.produceTo(0, nil)
		}
		err := tp.p.CommitTransaction(ctx)
		first := err
		if errors.Is(err, client.ErrTxnAbortable) {
			err = tp.p.AbortTransaction(ctx)
		}
		mustErr(t, id+": after the coordinator's timeout abort", err, client.ErrFenced, client.ErrTxnFatal)
		tp.ended(false)

		next := l.newTxnProducer(id, client.TransactionTimeout(txnTimeout))
		next.init(ctx)
		next.begin()
		next.produce(txnRecords, parts)
		next.commit(ctx)
		_, raw = l.readStable(ctx)
		t.Logf("%s: CommitTransaction said %v, then %v; a new producer committed; partition 0: %s", id, first, err, epochs(raw, 0))
	}
	l.verify(ctx)
}

func TestTxnTooLarge(t *testing.T) {
	topic := runName("txn-toolarge")
	playTxnTooLarge(t, cluster(t, topic), topic)
}

// playTxnTooLarge: a record larger than the topic's max.message.bytes
// joins a transaction: its batch fails (MESSAGE_TOO_LARGE), the commit
// says abort (ErrTxnAbortable), the abort succeeds, none of the
// transaction's records is visible, and the next transaction commits.
func playTxnTooLarge(t *testing.T, c *kafkatest.Cluster, topic string) {
	const limit = 16 << 10
	l := txnTopic(t, c, topic, parts, map[string]string{"max.message.bytes": fmt.Sprint(limit)})
	ctx := ctxFor(t, 5*time.Minute)
	tp := l.newTxnProducer(topic)
	tp.init(ctx)
	tp.begin()
	tp.produce(txnRecords/2, parts)
	// Bytes that do not compress: the batch stays over the limit.
	noise := make([]byte, 2*limit)
	for i := range noise {
		noise[i] = byte(i*7919 + i>>3 + i*i>>7)
	}
	big := tp.produceTo(1, noise)
	tp.produce(txnRecords/2, parts)
	err := tp.p.CommitTransaction(ctx)
	mustErr(t, "CommitTransaction with a record over max.message.bytes", err, client.ErrTxnAbortable)
	tp.abort(ctx)
	l.mu.Lock()
	bigErr := l.byID[big].err
	l.mu.Unlock()
	t.Logf("CommitTransaction: %v; the large record: %v", err, bigErr)
	tp.begin()
	tp.produce(txnRecords, parts)
	tp.commit(ctx)
	l.verify(ctx)
}
