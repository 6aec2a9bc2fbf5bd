package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/protocol"
)

// TestTopicRecreated: a topic is deleted and created again under its name
// (with fewer partitions) while a producer that wrote to it lives on.
// Every partition's leader moved once before, so the producer knew leader
// epochs above the new topic's 0; the new topic has a new topic id, empty
// logs and no producer state. Records produced while the producer's
// metadata still shows the old topic end exact (acknowledged in the new
// log, reported not written and absent, or unknown); every record
// produced after that is acknowledged once, in order, at its offset in the
// new topic's log, which holds nothing of the old one.
func TestTopicRecreated(t *testing.T) {
	playTopicRecreated(t, cluster(t, "recreated"), "recreated")
}

func playTopicRecreated(t *testing.T, c *kafkatest.Cluster, topic string) {
	const oldParts, newParts = 3, 2
	ctx := ctxFor(t, 6*time.Minute)
	newTopic(t, c, topic, oldParts, nil)
	for p := range int32(oldParts) {
		l := leaderOf(t, ctx, c, topic, p)
		if err := c.MoveLeader(ctx, topic, p, (l+1)%int32(c.Brokers())); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := c.Partitions(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range parts {
		if q.LeaderEpoch < 1 {
			t.Fatalf("partition %d at leader epoch %d after its leader moved", q.ID, q.LeaderEpoch)
		}
	}

	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.MetadataMaxAge(time.Second),
		client.DeliveryTimeout(90*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Close(cctx)
	})
	rc := &recreateRun{t: t, p: p, topic: topic, index: map[string]int{}}

	rc.produce(ctx, "old", 300)
	if n := rc.await(ctx, "old"); n != 300 {
		t.Fatalf("%d of 300 records to the old topic acknowledged: %v", n, rc.errs("old"))
	}
	if err := c.DeleteTopics(ctx, topic); err != nil {
		t.Fatal(err)
	}
	// Deletion completes in the background (ZooKeeper: the controller;
	// KRaft: the metadata log); until then a creation is refused.
	for {
		err := c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Partitions: newParts, Replication: 3,
			Configs: map[string]string{"min.insync.replicas": "2"}})
		if err == nil {
			break
		}
		if ctx.Err() != nil || !errors.Is(err, protocol.ErrTopicAlreadyExists) {
			t.Fatalf("create the topic again: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("topic %s deleted and created again with %d partitions", topic, newParts)

	rc.produce(ctx, "race", 60)
	rc.await(ctx, "race")
	var notWritten, unknown int
	for _, err := range rc.errs("race") {
		switch {
		case errors.Is(err, client.ErrNotWritten):
			notWritten++
		case errors.Is(err, client.ErrOutcomeUnknown):
			unknown++
		default:
			t.Errorf("a record produced at the re-creation failed neither not written nor unknown: %v", err)
		}
	}
	t.Logf("at the re-creation: %d not written, %d unknown", notWritten, unknown)

	rc.produce(ctx, "new", 300)
	if n := rc.await(ctx, "new"); n != 300 {
		t.Fatalf("%d of 300 records to the re-created topic acknowledged: %v", n, rc.errs("new"))
	}
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := p.Close(fctx); err != nil {
		t.Fatal(err)
	}

	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if now, err := c.Partitions(ctx, topic); err != nil || len(now) != newParts {
		t.Errorf("the re-created topic has %d partitions (%v), want %d", len(now), err, newParts)
	}
	for q := range log {
		if q >= newParts {
			t.Errorf("read back records in partition %d of a topic of %d", q, newParts)
		}
	}
	id := func(r readback.Record) string {
		v, _, _ := bytes.Cut(r.Value, []byte("|"))
		return string(v)
	}
	for q, recs := range log {
		for _, r := range recs {
			if strings.HasPrefix(id(r), "old-") {
				t.Fatalf("record %s of the old topic in the new one's partition %d", id(r), q)
			}
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var produced []readback.Produced
	for _, pr := range rc.produced {
		if !strings.HasPrefix(pr.ID, "old-") {
			produced = append(produced, pr)
		}
	}
	rep := readback.Check(log, produced, id)
	t.Logf("read back the new topic: %v", rep)
	if !rep.OK() {
		t.Errorf("read back: %v\n%v", rep, rep.Problems)
	}
}

// recreateRun is what a producer was given and told.
type recreateRun struct {
	t     *testing.T
	p     *client.Producer
	topic string

	mu       sync.Mutex
	produced []readback.Produced
	index    map[string]int
	failed   map[string]error
	pending  sync.WaitGroup
}

// produce hands n keyless records "<prefix>-<i>" to the producer (the
// partitioner picks among the partitions its metadata shows).
func (rc *recreateRun) produce(ctx context.Context, prefix string, n int) {
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		rc.mu.Lock()
		rc.index[id] = len(rc.produced)
		rc.produced = append(rc.produced, readback.Produced{ID: id, Offset: -1})
		rc.mu.Unlock()
		rc.pending.Add(1)
		rc.p.Produce(ctx, &client.Record{Topic: rc.topic, Value: []byte(id + "|")}, rc.done)
	}
}

func (rc *recreateRun) done(rec *client.Record, err error) {
	defer rc.pending.Done()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	id, _, _ := bytes.Cut(rec.Value, []byte("|"))
	pr := &rc.produced[rc.index[string(id)]]
	if err == nil {
		pr.Acked, pr.Partition, pr.Offset = true, rec.Partition, rec.Offset
		return
	}
	pr.NotWritten = errors.Is(err, client.ErrNotWritten)
	if rc.failed == nil {
		rc.failed = map[string]error{}
	}
	rc.failed[string(id)] = err
}

// await waits for every record handed over so far and returns how many of
// those named prefix-* were acknowledged.
func (rc *recreateRun) await(ctx context.Context, prefix string) int {
	done := make(chan struct{})
	go func() { rc.pending.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		rc.t.Fatalf("records of %s still unresolved: %v", prefix, ctx.Err())
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, pr := range rc.produced {
		if pr.Acked && strings.HasPrefix(pr.ID, prefix+"-") {
			n++
		}
	}
	return n
}

// errs returns the failures of the records named prefix-*.
func (rc *recreateRun) errs(prefix string) []error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []error
	for id, err := range rc.failed {
		if strings.HasPrefix(id, prefix+"-") {
			out = append(out, err)
		}
	}
	return out
}
