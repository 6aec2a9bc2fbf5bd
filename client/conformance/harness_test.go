package conformance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

// Kafka error codes the scenarios look for in the sim's Recorder.
const (
	codeNone                 int16 = 0
	codeNotLeader            int16 = 6
	codeRequestTimedOut      int16 = 7
	codeMessageTooLarge      int16 = 10
	codeOutOfOrderSequence   int16 = 45
	codeInvalidProducerEpoch int16 = 47
	codeUnknownProducerID    int16 = 59
)

const topic = "t"

// hooks records the producer's recovery actions per partition.
type hooks struct {
	mu      sync.Mutex
	retries map[int32]int
	bumps   map[int32][]bump
	tails   map[int32]int
	losses  []client.DataLoss
}

type bump struct {
	pid   int64
	epoch int16
}

func newHooks() *hooks {
	return &hooks{retries: map[int32]int{}, bumps: map[int32][]bump{}, tails: map[int32]int{}}
}

func (h *hooks) BatchSent(_ string, p int32, _ int32, _ int, _ int, retry bool) {
	if retry {
		h.mu.Lock()
		h.retries[p]++
		h.mu.Unlock()
	}
}

func (h *hooks) EpochBumped(_ string, p int32, pid int64, epoch int16) {
	h.mu.Lock()
	h.bumps[p] = append(h.bumps[p], bump{pid, epoch})
	h.mu.Unlock()
}

func (h *hooks) TailRead(_ string, p int32, _ int64) {
	h.mu.Lock()
	h.tails[p]++
	h.mu.Unlock()
}

func (h *hooks) DataLossDetected(d client.DataLoss) {
	h.mu.Lock()
	h.losses = append(h.losses, d)
	h.mu.Unlock()
}

func (h *hooks) tailReads(p int32) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tails[p]
}

func (h *hooks) bumpsOf(p int32) []bump {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.bumps[p])
}

func (h *hooks) totalBumps() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, b := range h.bumps {
		n += len(b)
	}
	return n
}

// rig is one producer on one cluster and everything it reported.
type rig struct {
	c      *sim.Cluster
	p      *client.Producer
	h      *hooks
	before int // goroutines before the rig; -1: no leak check (runs in parallel)

	// producing serialises Produce calls with their numbering: records
	// produced by several goroutines (the waves, the chaos's records
	// during a hold, a steady load) are in the order of the calls, which
	// is what the order check compares, only if no other goroutine's call
	// comes between a record's number and its Produce.
	producing sync.Mutex

	mu       sync.Mutex
	produced []readback.Produced
	index    map[string]int
	errs     map[string]error
	ackTimes map[int32][]time.Time // when each acknowledgement arrived, per partition
	losses   []client.DataLoss     // through OnDataLoss
	pending  sync.WaitGroup

	dial func(ctx context.Context, network, addr string) (net.Conn, error) // nil: TCP
	// settle is SyncTest's wait for the rig's producers (nil: over TCP),
	// shared so that two of them never call synctest.Wait at once.
	settle func()

	// age, when set, stamps every record produced that long before now
	// (historical events replayed).
	age time.Duration
}

// cfg is how a rig is built.
type cfg struct {
	partitions int32
	parallel   bool // other rigs run at the same time: the caller checks leaks
	sim        []sim.Option
	client     []client.Option
	// net, when set, runs the rig on an in-memory network (inside a
	// testing/synctest bubble: virtual time, one execution per seed).
	net *memnet.Network
}

// start builds a 3-broker cluster with topic t (replication 3) and a
// producer on it.
func start(cf cfg) (*rig, error) {
	r := &rig{h: newHooks(), index: map[string]int{}, errs: map[string]error{}, ackTimes: map[int32][]time.Time{}, before: runtime.NumGoroutine()}
	if cf.parallel || cf.net != nil {
		r.before = -1 // a bubble checks its own goroutines
	}
	simOpts := []sim.Option{sim.Brokers(3), sim.Topic(topic, cf.partitions, 3), sim.RecorderLimit(0)}
	var netOpts []client.Option
	if cf.net != nil {
		r.dial, r.settle = cf.net.Dial, oneAtATime()
		simOpts = append(simOpts, sim.Network(cf.net))
		netOpts = []client.Option{client.Dialer(cf.net.Dial), client.SyncTest(r.settle)}
	}
	c, err := sim.NewCluster(append(simOpts, cf.sim...)...)
	if err != nil {
		return nil, err
	}
	r.c = c
	opts := append([]client.Option{
		client.Brokers(c.Addrs()...),
		client.Linger(2 * time.Millisecond),
		client.RequestTimeout(2 * time.Second),
		client.WithHooks(client.Hooks{BatchSent: r.h.BatchSent, EpochBumped: r.h.EpochBumped, TailRead: r.h.TailRead, DataLossDetected: r.h.DataLossDetected}),
		client.OnDataLoss(func(d client.DataLoss) {
			r.mu.Lock()
			r.losses = append(r.losses, d)
			r.mu.Unlock()
		}),
	}, netOpts...)
	if os.Getenv("ROLLSAFE_TRACE") != "" {
		// Every input and output of the producer's loop, and its logs, on
		// stderr (with virtual times in the deterministic world).
		opts = append(opts, client.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: client.LevelTrace}))))
	}
	opts = append(opts, cf.client...)
	p, err := client.NewProducer(opts...)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	r.p = p
	return r, nil
}

// startT is start for a test: it fails the test on error and closes the
// rig (checking for leaked goroutines) when the test ends.
func startT(t *testing.T, cf cfg) *rig {
	t.Helper()
	if cf.net == nil {
		cf.net = netOf(t)
	}
	r, err := start(cf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// close closes the producer and the cluster and checks that no goroutine
// of either is left.
func (r *rig) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	perr := r.p.Close(ctx)
	if errors.Is(perr, client.ErrClosed) && !strings.Contains(perr.Error(), "unresolved") {
		perr = nil
	}
	cerr := r.c.Close()
	if r.before < 0 {
		return errors.Join(perr, cerr)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > r.before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	var leak error
	if n := runtime.NumGoroutine(); n > r.before {
		buf := make([]byte, 1<<20)
		leak = fmt.Errorf("goroutines leaked: %d before, %d after\n%s", r.before, n, buf[:runtime.Stack(buf, true)])
	}
	return errors.Join(perr, cerr, leak)
}

// produceTo hands n records "prefix-i" to the producer; part chooses each
// record's partition (nil: keyed over keys "k<i%8>").
func (r *rig) produceTo(ctx context.Context, prefix string, n int, part func(i int) int32) {
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		rec := &client.Record{Topic: topic, Value: []byte(id)}
		if r.age > 0 {
			rec.Timestamp = time.Now().Add(-r.age)
		}
		if part != nil {
			rec.Partition, rec.HasPartition = part(i), true
		} else {
			rec.Key = []byte(fmt.Sprintf("k%d", i%8))
		}
		r.producing.Lock()
		r.mu.Lock()
		r.index[id] = len(r.produced)
		r.produced = append(r.produced, readback.Produced{ID: id, Offset: -1})
		r.mu.Unlock()
		r.pending.Add(1)
		r.p.Produce(ctx, rec, r.done)
		r.producing.Unlock()
	}
}

// produce spreads n records over the partitions by key.
func (r *rig) produce(ctx context.Context, prefix string, n int) { r.produceTo(ctx, prefix, n, nil) }

// steadyLoad produces n records every 5 ms ("load<tick>", tick t's records
// to partition part(t)) until the stop it returns is called; stop waits
// for the tick under way.
func (r *rig) steadyLoad(ctx context.Context, n int, part func(tick int) int32) (stop func()) {
	var halt atomic.Bool
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		for tick := 0; !halt.Load(); tick++ {
			r.produceTo(ctx, "load"+strconv.Itoa(tick), n, one(part(tick)))
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() {
		halt.Store(true)
		<-loaded
	}
}

func one(p int32) func(int) int32 { return func(int) int32 { return p } }

func (r *rig) done(rec *client.Record, err error) {
	defer r.pending.Done()
	r.mu.Lock()
	defer r.mu.Unlock()
	id := string(rec.Value)
	pr := &r.produced[r.index[id]]
	pr.Partition = rec.Partition
	if err == nil {
		pr.Acked, pr.Offset = true, rec.Offset
		r.ackTimes[rec.Partition] = append(r.ackTimes[rec.Partition], time.Now())
		return
	}
	pr.NotWritten = errors.Is(err, client.ErrNotWritten)
	r.errs[id] = err
	if errors.Is(err, client.ErrPurged) {
		if pr.NotWritten {
			purgedNotWritten.Add(1)
		} else {
			purgedUnknown.Add(1)
		}
	}
}

// purgedNotWritten and purgedUnknown count the records Purge failed, over
// the package's tests (chaos reports them).
var purgedNotWritten, purgedUnknown atomic.Int64

// wait waits (at most d) until every record produced so far is resolved.
func (r *rig) wait(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := r.p.Flush(ctx); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { r.pending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("callbacks outstanding after %v", d)
	}
}

// acked returns how many of the records whose id starts with prefix were
// acknowledged, and the errors of the others.
func (r *rig) acked(prefix string) (int, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	var errs []error
	for _, pr := range r.produced {
		if !strings.HasPrefix(pr.ID, prefix+"-") {
			continue
		}
		if pr.Acked {
			n++
		} else {
			errs = append(errs, fmt.Errorf("%s: %w", pr.ID, r.errs[pr.ID]))
		}
	}
	return n, errs
}

// goesOn checks that production carries on: n more records over every
// partition are all acknowledged.
func (r *rig) goesOn(prefix string, n int) error {
	r.produce(context.Background(), prefix, n)
	if err := r.wait(30 * time.Second); err != nil {
		return err
	}
	if got, errs := r.acked(prefix); got != n {
		return fmt.Errorf("production did not carry on: %d of %d acknowledged: %v", got, n, errors.Join(errs[:min(len(errs), 5)]...))
	}
	return nil
}

// verify reads the topic back and checks the log against the producer's
// reports: acknowledged records once each, in order, at their offsets;
// records reported not written absent; acknowledged records missing from
// the log exactly those a DataLoss event reported, with its range's ends on
// lost records.
func (r *rig) verify() (readback.Report, error) {
	if err := r.wait(30 * time.Second); err != nil {
		return readback.Report{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopicConn(ctx, r.c.Addrs(), topic, protocol.ConnConfig{Dial: r.dial})
	if err != nil {
		return readback.Report{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := readback.Check(log, r.produced, func(rec readback.Record) string { return string(rec.Value) })
	var problems []string
	if rep.Duplicates+rep.Reordered+rep.WrongOffset+rep.FailedPresent > 0 {
		problems = append(problems, rep.String())
		problems = append(problems, rep.Problems...)
	}
	if err := r.checkLossLocked(rep); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return rep, errors.New(strings.Join(problems, "\n"))
	}
	return rep, nil
}

// checkLossLocked requires the acknowledged records missing from the log to
// be exactly those covered by the DataLoss events, each event's first and
// last offset being a lost record's.
func (r *rig) checkLossLocked(rep readback.Report) error {
	lost := map[int32]map[int64]bool{}
	for _, id := range rep.LostIDs {
		pr := r.produced[r.index[id]]
		if lost[pr.Partition] == nil {
			lost[pr.Partition] = map[int64]bool{}
		}
		lost[pr.Partition][pr.Offset] = true
	}
	var errs []error
	covered := func(p int32, off int64) bool {
		if off < 0 {
			// Acknowledged by DUPLICATE_SEQUENCE_NUMBER (brokers before 2.0)
			// the record has no known offset, so no producer can tell that
			// a later truncation took it (idempotence/README.md, limits).
			return true
		}
		for _, d := range r.losses {
			if d.Partition == p && off >= d.FromOffset && off <= d.ToOffset {
				return true
			}
		}
		return false
	}
	for p, offs := range lost {
		var unreported []int64
		for off := range offs {
			if !covered(p, off) {
				unreported = append(unreported, off)
			}
		}
		if len(unreported) > 0 {
			slices.Sort(unreported)
			errs = append(errs, fmt.Errorf("partition %d: %d acknowledged records lost without a DataLoss report, offsets %v", p, len(unreported), unreported[:min(len(unreported), 20)]))
		}
	}
	for _, d := range r.losses {
		if d.Topic != topic || !lost[d.Partition][d.FromOffset] || !lost[d.Partition][d.ToOffset] {
			errs = append(errs, fmt.Errorf("%v does not match the acknowledged records lost on partition %d (%d of them)", d, d.Partition, len(lost[d.Partition])))
		}
	}
	r.h.mu.Lock()
	hookLosses := len(r.h.losses)
	r.h.mu.Unlock()
	if hookLosses != len(r.losses) {
		errs = append(errs, fmt.Errorf("DataLossDetected hook saw %d events, OnDataLoss %d", hookLosses, len(r.losses)))
	}
	return errors.Join(errs...)
}

// dataLosses returns the DataLoss events reported so far.
func (r *rig) dataLosses() []client.DataLoss {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.losses)
}

// dump is the tail of the recorder, for failure messages.
func (r *rig) dump() string {
	var sb strings.Builder
	_ = r.c.Recorder().Dump(&sb)
	s := sb.String()
	if len(s) > 30000 {
		s = "...\n" + s[len(s)-30000:]
	}
	return s
}

// check fails the test with the recorder's dump if err is not nil.
func (r *rig) check(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v\nrecorder (tail):\n%s", what, err, r.dump())
	}
}

// produces returns the recorded produce decisions for partition p.
func (r *rig) produces(p int32) []sim.ProduceRecord {
	var out []sim.ProduceRecord
	for _, pr := range r.c.Recorder().Produces() {
		if pr.Topic == topic && pr.Partition == p {
			out = append(out, pr)
		}
	}
	return out
}

// sequence reports whether partition p's recorded answers contain the
// matches in order (each a predicate on one produce record).
func (r *rig) sequence(p int32, matches ...func(sim.ProduceRecord) bool) bool {
	i := 0
	for _, pr := range r.produces(p) {
		if i < len(matches) && matches[i](pr) {
			i++
		}
	}
	return i == len(matches)
}

// answered matches an answer with code; natural ones only (not injected)
// when natural is set.
func answered(code int16, natural bool) func(sim.ProduceRecord) bool {
	return func(pr sim.ProduceRecord) bool {
		return pr.ErrorCode == code && (!natural || pr.Fault == "")
	}
}

// count counts partition p's recorded answers matching m.
func (r *rig) count(p int32, m func(sim.ProduceRecord) bool) int {
	n := 0
	for _, pr := range r.produces(p) {
		if m(pr) {
			n++
		}
	}
	return n
}

// waitUntil polls cond (the simulator and the recorder have no change
// notification) until it holds or d passes.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

func producedEntry(id string) readback.Produced { return readback.Produced{ID: id, Offset: -1} }

func itoa(i int) string { return strconv.Itoa(i) }
