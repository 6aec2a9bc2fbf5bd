package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/twmb/franz-go/pkg/kgo"
)

// moveLeaders moves one partition's leader to another in-sync replica
// every interval, round robin over partitions, until stop is closed.
func moveLeaders(c *sim.Cluster, topic string, partitions int32, interval time.Duration, seed uint64, stop <-chan struct{}) int {
	rng := rand.New(rand.NewPCG(seed, 1))
	tick := time.NewTicker(interval)
	defer tick.Stop()
	moves := 0
	for p := int32(0); ; p = (p + 1) % partitions {
		select {
		case <-stop:
			return moves
		case <-tick.C:
		}
		isr, err := c.ISR(topic, p)
		if err != nil {
			continue
		}
		leader, _ := c.Leader(topic, p)
		var cands []int32
		for _, id := range isr {
			if id != leader {
				cands = append(cands, id)
			}
		}
		if len(cands) == 0 {
			continue
		}
		if c.MoveLeader(topic, p, cands[rng.IntN(len(cands))]) == nil {
			moves++
		}
	}
}

// TestSimKgoLeaderMoves: kgo's idempotent producer (gzip, acks=all) writes
// 100,000 records through a 3-broker sim while leaders move every few
// milliseconds; kgo's consumer reads every record back exactly once and in
// order per partition, and every partition's log has no sequence gap.
func TestSimKgoLeaderMoves(t *testing.T) {
	const (
		topic      = "moves"
		partitions = 6
		total      = 100_000
	)
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic(topic, partitions, 3), sim.Seed(7), sim.RecorderLimit(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()

	stop := make(chan struct{})
	var moves int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); moves = moveLeaders(c, topic, partitions, 3*time.Millisecond, 7, stop) }()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()

	fast := kgo.RetryBackoffFn(func(int) time.Duration { return 5 * time.Millisecond })
	prod, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.GzipCompression()),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MetadataMinAge(10*time.Millisecond), fast,
		kgo.ProducerLinger(2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var failed atomic.Int64
	var firstErr atomic.Value
	for i := 0; i < total; i++ {
		p := int32(i % partitions)
		r := &kgo.Record{Partition: p, Value: []byte(fmt.Sprintf("%d/%d", p, i/partitions))}
		prod.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err)
			}
		})
	}
	if err := prod.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	prod.Close()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d records failed, first: %v", n, firstErr.Load())
	}

	cons, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond),
		kgo.MetadataMinAge(10*time.Millisecond), fast)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	next := make([]int, partitions)
	nextOffset := make([]int64, partitions)
	got := 0
	for got < total {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records before the deadline (per partition %v)", got, total, next)
		}
		for _, fe := range fs.Errors() {
			t.Logf("fetch error %s/%d: %v", fe.Topic, fe.Partition, fe.Err)
		}
		var bad error
		fs.EachRecord(func(r *kgo.Record) {
			want := fmt.Sprintf("%d/%d", r.Partition, next[r.Partition])
			if bad == nil && (string(r.Value) != want || r.Offset != nextOffset[r.Partition]) {
				bad = fmt.Errorf("partition %d offset %d: got %q, want %q at offset %d", r.Partition, r.Offset, r.Value, want, nextOffset[r.Partition])
			}
			next[r.Partition]++
			nextOffset[r.Partition]++
			got++
		})
		if bad != nil {
			t.Fatal(bad)
		}
	}
	close(stop)
	wg.Wait()
	if got != total {
		t.Fatalf("consumed %d records, want %d", got, total)
	}
	for p := int32(0); p < partitions; p++ {
		checkNoSequenceGap(t, c, topic, p, next[p])
	}
	notLeader, dups := 0, 0
	for _, pr := range c.Recorder().Produces() {
		if pr.ErrorCode == 6 { // NOT_LEADER_OR_FOLLOWER
			notLeader++
		}
		if pr.Duplicate {
			dups++
		}
	}
	if notLeader == 0 {
		t.Error("no produce was ever answered NOT_LEADER_OR_FOLLOWER: the leader moves were not felt")
	}
	t.Logf("%d leader moves while producing and consuming %d records; %d NOT_LEADER_OR_FOLLOWER answers, %d retries deduplicated",
		moves, total, notLeader, dups)
}

// checkNoSequenceGap reads the leader's log and checks that within each
// producer epoch the batches' sequences follow each other, and that the
// log holds exactly want records.
func checkNoSequenceGap(t *testing.T, c *sim.Cluster, topic string, p int32, want int) {
	t.Helper()
	batches, err := c.Records(topic, p)
	if err != nil {
		t.Fatal(err)
	}
	n, gzipped := 0, 0
	var prevPID int64 = -1
	var prevEpoch int16 = -1
	var nextSeq int32
	for _, b := range batches {
		if b.Codec == compress.Gzip {
			gzipped++
		}
		if b.ProducerID == prevPID && b.ProducerEpoch == prevEpoch && b.BaseSequence != nextSeq {
			t.Errorf("%s/%d batch at %d: sequence %d after %d", topic, p, b.BaseOffset, b.BaseSequence, nextSeq-1)
		}
		prevPID, prevEpoch = b.ProducerID, b.ProducerEpoch
		nextSeq = b.BaseSequence + int32(len(b.Records))
		n += len(b.Records)
	}
	if gzipped == 0 {
		t.Errorf("%s/%d: none of %d batches is gzip-compressed", topic, p, len(batches))
	}
	if n != want {
		t.Errorf("%s/%d holds %d records, want %d", topic, p, n, want)
		if testing.Verbose() {
			_ = c.Recorder().Dump(os.Stderr)
		}
	}
}
