package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// hooks counts the producer's recovery actions.
type hooks struct {
	mu      sync.Mutex
	retries map[int32]int
	bumps   int
	tails   int
	losses  []client.DataLoss
	maxSent int // largest batch sent, bytes
	sentTo  map[int32]map[int32]int
}

func (h *hooks) BatchSent(_ string, p int32, broker int32, _ int, n int, retry bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if retry {
		h.retries[p]++
	}
	h.maxSent = max(h.maxSent, n)
	if h.sentTo[p] == nil {
		h.sentTo[p] = map[int32]int{}
	}
	h.sentTo[p][broker]++
}

func (h *hooks) EpochBumped(string, int32, int64, int16) { h.mu.Lock(); h.bumps++; h.mu.Unlock() }
func (h *hooks) TailRead(string, int32, int64)           { h.mu.Lock(); h.tails++; h.mu.Unlock() }
func (h *hooks) DataLossDetected(d client.DataLoss) {
	h.mu.Lock()
	h.losses = append(h.losses, d)
	h.mu.Unlock()
}

// retried returns how many batches were sent again so far, by partition.
func (h *hooks) retried() map[int32]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.retries)
}

func (h *hooks) String() string {
	n := 0
	for _, r := range h.retried() {
		n += r
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprintf("retries %d, epoch bumps %d, tail reads %d, data-loss events %d", n, h.bumps, h.tails, len(h.losses))
}

// load is one rollsafe producer writing to every partition of a topic at
// a steady rate, and everything it reported.
type load struct {
	t     *testing.T
	c     *kafkatest.Cluster
	topic string
	parts int32
	p     *client.Producer
	h     *hooks
	pad   func(i int) []byte
	rate  int // records per tick (default perTick)
	// age, when set, stamps every record that long before now (historical
	// events replayed): brokers forget the producer while it writes.
	age time.Duration

	mu       sync.Mutex
	produced []readback.Produced
	index    map[string]int
	errs     map[string]error
	acks     map[int32][]time.Time
	pending  sync.WaitGroup

	next    int
	prefix  string
	stop    chan struct{}
	stopped chan struct{}
	began   time.Time
	ended   time.Time
}

// rate: records handed to the producer per tick, one tick every 5 ms.
const perTick = 10

// newLoad builds the producer (rollsafe's defaults: idempotent, acks=all,
// plus opts) for topic's parts partitions. pad returns record i's payload
// after its id (nil: 100 bytes).
func newLoad(t *testing.T, c *kafkatest.Cluster, topic string, parts int32, pad func(int) []byte, opts ...client.Option) *load {
	t.Helper()
	l := &load{t: t, c: c, topic: topic, parts: parts, pad: pad, rate: perTick,
		h:     &hooks{retries: map[int32]int{}, sentTo: map[int32]map[int32]int{}},
		index: map[string]int{}, errs: map[string]error{}, acks: map[int32][]time.Time{}}
	if l.pad == nil {
		filler := bytes.Repeat([]byte("x"), 100)
		l.pad = func(int) []byte { return filler }
	}
	opts = append([]client.Option{client.Brokers(c.Addrs()...), client.WithHooks(client.Hooks{BatchSent: l.h.BatchSent, EpochBumped: l.h.EpochBumped, TailRead: l.h.TailRead, DataLossDetected: l.h.DataLossDetected})}, opts...)
	if dir := os.Getenv("ROLLSAFE_TRACE"); dir != "" {
		// The producer's transcript (every Step input and Ready, and its
		// logs) in DIR/<topic>.trace: what a stall or a duplicate on the
		// real cluster is diagnosed from.
		name := topic
		if i := strings.LastIndexByte(t.Name(), '/'); i >= 0 { // a subtest, e.g. one random schedule
			name += "-" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()[i+1:])
		}
		f, err := os.Create(filepath.Join(dir, name+".trace"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		opts = append(opts, client.WithLogger(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: client.LevelTrace}))))
	}
	p, err := client.NewProducer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	l.p = p
	t.Cleanup(func() {
		if l.stop != nil { // a test that ended early: stop the load first
			select {
			case <-l.stopped:
			default:
				close(l.stop)
				<-l.stopped
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = l.p.Close(ctx) // a no-op after finish
	})
	return l
}

// run starts producing records "<prefix>-<i>" in the background, round
// robin over the partitions, until halt.
func (l *load) run(prefix string) {
	l.prefix, l.stop, l.stopped = prefix, make(chan struct{}), make(chan struct{})
	l.began = time.Now()
	go func() {
		defer close(l.stopped)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			for range l.rate {
				l.produceOne(context.Background())
			}
		}
	}()
}

func (l *load) produceOne(ctx context.Context) {
	i := l.next
	l.next++
	id := fmt.Sprintf("%s-%d", l.prefix, i)
	rec := &client.Record{Topic: l.topic, Partition: int32(i) % l.parts, HasPartition: true,
		Value: append([]byte(id+"|"), l.pad(i)...)}
	if l.age > 0 {
		rec.Timestamp = time.Now().Add(-l.age)
	}
	l.mu.Lock()
	l.index[id] = len(l.produced)
	l.produced = append(l.produced, readback.Produced{ID: id, Partition: rec.Partition, Offset: -1})
	l.mu.Unlock()
	l.pending.Add(1)
	l.p.Produce(ctx, rec, l.done)
}

// halt stops producing (records already handed over still resolve).
func (l *load) halt() {
	close(l.stop)
	<-l.stopped
	l.ended = time.Now()
}

func (l *load) done(rec *client.Record, err error) {
	defer l.pending.Done()
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	id, _, _ := bytes.Cut(rec.Value, []byte("|"))
	pr := &l.produced[l.index[string(id)]]
	if err == nil {
		pr.Acked, pr.Offset = true, rec.Offset
		l.acks[rec.Partition] = append(l.acks[rec.Partition], now)
		return
	}
	pr.NotWritten = errors.Is(err, client.ErrNotWritten)
	l.errs[string(id)] = err
}

// acked returns how many records of partition p were acknowledged so far.
func (l *load) acked(p int32) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acks[p])
}

// ackedAll returns how many records were acknowledged so far, over all
// partitions.
func (l *load) ackedAll() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ts := range l.acks {
		n += len(ts)
	}
	return n
}

// awaitAcks waits until partition p has n more acknowledgements than
// now: proof that production flows there (before or after a fault).
func (l *load) awaitAcks(p int32, n int, within time.Duration) {
	l.t.Helper()
	want := l.acked(p) + n
	deadline := time.Now().Add(within)
	for l.acked(p) < want {
		if time.Now().After(deadline) {
			l.t.Fatalf("partition %d: %d acknowledgements, want %d within %v (%v)", p, l.acked(p), want, within, l.h)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitAllAcks waits until every partition has n more acknowledgements
// than now, all partitions counted from the same moment (awaitAcks on one
// partition after another would count each from when the previous one
// was done, waiting ever longer).
func (l *load) awaitAllAcks(n int, within time.Duration) {
	l.t.Helper()
	want := make([]int, l.parts)
	for p := range l.parts {
		want[p] = l.acked(p) + n
	}
	deadline := time.Now().Add(within)
	for p := range l.parts {
		for l.acked(p) < want[p] {
			if time.Now().After(deadline) {
				l.t.Fatalf("partition %d: %d acknowledgements, want %d within %v (%v)", p, l.acked(p), want[p], within, l.h)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// stall is the longest gap between two acknowledgements on one partition
// while the load ran.
func (l *load) stall() (time.Duration, int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var worst time.Duration
	part := int32(-1)
	for p, ts := range l.acks {
		prev := l.began
		for _, at := range ts {
			if at.After(l.ended) {
				break
			}
			if gap := at.Sub(prev); gap > worst {
				worst, part = gap, p
			}
			prev = at
		}
	}
	return worst, part
}

// finish resolves every record and closes the producer; t fails if that
// takes over 3 minutes.
func (l *load) finish() {
	t := l.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := l.p.Flush(ctx); err != nil {
		t.Fatalf("flush: %v (%v)", err, l.h)
	}
	waited := make(chan struct{})
	go func() { l.pending.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		t.Fatal("callbacks still outstanding after 3m")
	}
	if err := l.p.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) > 0 {
		var some []string
		for k, err := range l.errs {
			some = append(some, fmt.Sprintf("%s: %v", k, err))
		}
		slices.Sort(some)
		t.Errorf("%d records failed back to the app, e.g. %v", len(l.errs), some[:min(5, len(some))])
	}
	l.h.mu.Lock()
	defer l.h.mu.Unlock()
	if len(l.h.losses) > 0 {
		t.Errorf("data loss reported on a cluster that lost nothing: %v", l.h.losses)
	}
}

// verify resolves every record, closes the producer, reads every partition
// back and asserts: every record acknowledged, 0 lost, 0 duplicates, 0
// reordered, each at the offset reported, no data-loss event. It returns
// the readback report.
func (l *load) verify() readback.Report {
	t := l.t
	t.Helper()
	worst, part := l.stall()
	l.finish()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	log, err := readback.ReadTopic(ctx, l.c.Addrs(), l.topic)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id := func(r readback.Record) string {
		v, _, _ := bytes.Cut(r.Value, []byte("|"))
		return string(v)
	}
	rep := readback.Check(log, l.produced, id)
	t.Logf("%s: produced %d in %v; %v; longest production stall %v (partition %d); %v",
		l.topic, len(l.produced), l.ended.Sub(l.began).Round(time.Millisecond), rep, worst.Round(time.Millisecond), part, l.h)
	if !rep.OK() {
		t.Errorf("read back: %v\n%v", rep, rep.Problems)
	}
	// Every record in the log was reported a success, none ErrNotWritten.
	for p, recs := range log {
		for _, r := range recs {
			k := id(r)
			i, ok := l.index[k]
			if !ok {
				t.Errorf("partition %d offset %d: record %q was never produced", p, r.Offset, k)
				continue
			}
			if !l.produced[i].Acked {
				t.Errorf("partition %d offset %d: %q is in the log but its callback said %v", p, r.Offset, k, l.errs[k])
			}
		}
	}
	if rep.InLog != len(l.produced) {
		t.Errorf("%d of %d records in the log", rep.InLog, len(l.produced))
	}
	return rep
}
