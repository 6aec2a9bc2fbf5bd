package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// The transactional scenarios' bookkeeping: every record a transactional
// producer was handed, the transaction it belongs to, what its callback
// said, and how the test saw the transaction end (committed: the commit
// returned nil; aborted: AbortTransaction, a fence or a timeout). verify
// reads the topic back as a read_committed consumer does and holds the log
// to it; the producer's own report is what is checked, never the proof.

// txnRounds is how many rounds the scenarios with a fault per round play
// (ROLLSAFE_TXN_ROUNDS, default 1: what CI plays).
func txnRounds(t *testing.T) int {
	s := os.Getenv("ROLLSAFE_TXN_ROUNDS")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("ROLLSAFE_TXN_ROUNDS=%q: want a count of at least 1", s)
	}
	return n
}

// txnRecord is one record handed to a transactional producer.
type txnRecord struct {
	id     string
	txn    string // its transaction's name
	part   int32
	done   bool
	err    error
	offset int64
}

// ledger is every record of a topic's transactional producers.
type ledger struct {
	t     *testing.T
	c     *kafkatest.Cluster
	topic string

	mu      sync.Mutex
	recs    []*txnRecord
	byID    map[string]*txnRecord
	ends    map[string]bool // transaction name -> committed
	names   map[string]int  // instances per transactional id
	pending sync.WaitGroup
}

func newLedger(t *testing.T, c *kafkatest.Cluster, topic string) *ledger {
	return &ledger{t: t, c: c, topic: topic, byID: map[string]*txnRecord{}, ends: map[string]bool{}, names: map[string]int{}}
}

// txnProducer is one transactional producer writing to the ledger's topic.
type txnProducer struct {
	l    *ledger
	id   string // transactional id
	name string // the id, #2, #3… for a second instance with the same id
	p    *client.Producer
	txn  string // the open transaction's name
	n    int    // transactions begun
	next int    // records produced in the open transaction
}

// newTxnProducer builds a transactional producer with id (rollsafe's
// defaults plus opts) and closes it when the test ends.
func (l *ledger) newTxnProducer(id string, opts ...client.Option) *txnProducer {
	t := l.t
	t.Helper()
	opts = append([]client.Option{client.Brokers(l.c.Addrs()...), client.TransactionalID(id)}, opts...)
	if dir := os.Getenv("ROLLSAFE_TRACE"); dir != "" {
		f, err := os.Create(filepath.Join(dir, l.topic+"-"+id+".trace"))
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
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Close(ctx)
	})
	l.names[id]++
	name := id
	if n := l.names[id]; n > 1 {
		name = fmt.Sprintf("%s#%d", id, n)
	}
	return &txnProducer{l: l, id: id, name: name, p: p}
}

// init runs InitTransactions, failing the test on an error.
func (tp *txnProducer) init(ctx context.Context) {
	tp.l.t.Helper()
	if err := tp.p.InitTransactions(ctx); err != nil {
		tp.l.t.Fatalf("%s: InitTransactions: %v", tp.id, err)
	}
}

// begin opens the producer's next transaction, named <name>.<n>.
func (tp *txnProducer) begin() {
	tp.l.t.Helper()
	if err := tp.p.BeginTransaction(); err != nil {
		tp.l.t.Fatalf("%s: BeginTransaction: %v", tp.id, err)
	}
	tp.n++
	tp.txn, tp.next = fmt.Sprintf("%s.%d", tp.name, tp.n), 0
}

// produce hands n records of 100 bytes to the open transaction, round
// robin over parts partitions.
func (tp *txnProducer) produce(n int, parts int32) {
	for range n {
		tp.produceTo(int32(tp.next)%parts, nil)
	}
}

// produceTo hands one record to partition part, pad after its id (nil:
// 100 bytes), and returns its id.
func (tp *txnProducer) produceTo(part int32, pad []byte) string {
	l := tp.l
	id := fmt.Sprintf("%s-%d", tp.txn, tp.next)
	tp.next++
	if pad == nil {
		pad = bytes.Repeat([]byte("x"), 100)
	}
	r := &txnRecord{id: id, txn: tp.txn, part: part, offset: -1}
	l.mu.Lock()
	l.recs = append(l.recs, r)
	l.byID[id] = r
	l.mu.Unlock()
	l.pending.Add(1)
	rec := &client.Record{Topic: l.topic, Partition: part, HasPartition: true, Value: append([]byte(id+"|"), pad...)}
	tp.p.Produce(context.Background(), rec, func(rec *client.Record, err error) {
		defer l.pending.Done()
		l.mu.Lock()
		defer l.mu.Unlock()
		r.done, r.err = true, err
		if err == nil {
			r.offset = rec.Offset
		}
	})
	return id
}

// ended records how the open transaction ended.
func (tp *txnProducer) ended(committed bool) {
	tp.l.mu.Lock()
	tp.l.ends[tp.txn] = committed
	tp.l.mu.Unlock()
}

// commit commits the open transaction, failing the test on an error.
func (tp *txnProducer) commit(ctx context.Context) {
	tp.l.t.Helper()
	if err := tp.p.CommitTransaction(ctx); err != nil {
		tp.l.t.Fatalf("%s: CommitTransaction of %s: %v", tp.id, tp.txn, err)
	}
	tp.ended(true)
}

// abort aborts the open transaction, failing the test on an error.
func (tp *txnProducer) abort(ctx context.Context) {
	tp.l.t.Helper()
	if err := tp.p.AbortTransaction(ctx); err != nil {
		tp.l.t.Fatalf("%s: AbortTransaction of %s: %v", tp.id, tp.txn, err)
	}
	tp.ended(false)
}

// recordID is a log record's id (before the "|"); "" for a marker.
func recordID(r readback.Record) string {
	if r.Control {
		return ""
	}
	v, _, _ := bytes.Cut(r.Value, []byte("|"))
	return string(v)
}

// openTransactions lists, by partition, the producers whose transactional
// records in log are not yet closed by a marker (above the last stable
// offset: a read_committed reader waits for them).
func openTransactions(log map[int32][]readback.Record) map[int32][]int64 {
	out := map[int32][]int64{}
	for part, recs := range log {
		open := map[int64]bool{}
		for _, r := range recs {
			switch {
			case r.Control:
				delete(open, r.ProducerID)
			case r.Transactional:
				open[r.ProducerID] = true
			}
		}
		for pid := range open {
			out[part] = append(out[part], pid)
		}
	}
	return out
}

// readStable reads the topic back once no transaction in it is open (the
// coordinator writes the markers after it answers EndTxn): what a
// read_committed reader reads, and the raw log under it.
func (l *ledger) readStable(ctx context.Context) (committed, raw map[int32][]readback.Record) {
	t := l.t
	t.Helper()
	for {
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		log, err := readback.ReadTopic(rctx, l.c.Addrs(), l.topic)
		cancel()
		if err != nil {
			t.Fatalf("read back %s: %v", l.topic, err)
		}
		open := openTransactions(log)
		if len(open) == 0 {
			return readback.Committed(log), log
		}
		select {
		case <-ctx.Done():
			t.Fatalf("read back %s: transactions still open (no marker) by partition: %v", l.topic, open)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// awaitWritten waits until the records ids are in the log (in open
// transactions, invisible to read_committed): the writes happened.
func (l *ledger) awaitWritten(ctx context.Context, ids ...string) {
	t := l.t
	t.Helper()
	for {
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		log, err := readback.ReadTopic(rctx, l.c.Addrs(), l.topic)
		cancel()
		if err != nil {
			t.Fatalf("read back %s: %v", l.topic, err)
		}
		in := map[string]bool{}
		for _, recs := range log {
			for _, r := range recs {
				in[recordID(r)] = true
			}
		}
		missing := 0
		for _, id := range ids {
			if !in[id] {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of %d records still not in the log of %s", missing, len(ids), l.topic)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ids returns the ids of transaction txn's records.
func (l *ledger) ids(txn string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.recs {
		if r.txn == txn {
			out = append(out, r.id)
		}
	}
	return out
}

// verify waits for every callback, reads the topic back as read_committed
// and asserts: every record of a committed transaction called back nil and
// present exactly once, at the offset its callback gave, in the order
// produced on its partition; no record of an aborted transaction visible
// (each called back ErrAborted); no other record. It returns the raw log.
func (l *ledger) verify(ctx context.Context) map[int32][]readback.Record {
	t := l.t
	t.Helper()
	// Commit and abort return after their records' callbacks: none can
	// still be outstanding.
	waited := make(chan struct{})
	go func() { l.pending.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		l.mu.Lock()
		var out []string
		for _, r := range l.recs {
			if !r.done {
				out = append(out, fmt.Sprintf("%s (partition %d, transaction ended committed=%v)", r.id, r.part, l.ends[r.txn]))
			}
		}
		l.mu.Unlock()
		t.Fatalf("%d callbacks never ran, 30 s after every transaction ended: %v", len(out), out)
	}
	committed, raw := l.readStable(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	errs := 0
	errorf := func(format string, args ...any) {
		t.Helper()
		if errs++; errs <= 20 {
			t.Errorf(format, args...)
		}
	}
	defer func() {
		if errs > 20 {
			t.Errorf("and %d more", errs-20)
		}
	}()
	var produced []readback.Produced
	nCommitted, nAborted := 0, 0
	for _, r := range l.recs {
		ok, ended := l.ends[r.txn]
		switch {
		case !ended:
			errorf("%s: its transaction %s never ended in the test", r.id, r.txn)
		case ok:
			nCommitted++
			if r.err != nil {
				errorf("%s of committed %s called back %v", r.id, r.txn, r.err)
			}
			produced = append(produced, readback.Produced{ID: r.id, Partition: r.part, Offset: r.offset, Acked: true})
		default:
			nAborted++
			if !errors.Is(r.err, client.ErrAborted) {
				errorf("%s of aborted %s called back %v, want ErrAborted", r.id, r.txn, r.err)
			}
		}
	}
	rep := readback.Check(committed, produced, recordID)
	if !rep.OK() || rep.InLog != nCommitted {
		errorf("read_committed %s: %v (%d records visible, %d committed)\n%s", l.topic, rep, rep.InLog, nCommitted, strings.Join(rep.Problems, "\n"))
	}
	for part, recs := range committed {
		for _, r := range recs {
			id := recordID(r)
			rec := l.byID[id]
			switch {
			case rec == nil:
				errorf("%s[%d]@%d: record %q was never produced", l.topic, part, r.Offset, id)
			case !l.ends[rec.txn]:
				errorf("%s[%d]@%d: %s of aborted %s is visible to read_committed", l.topic, part, r.Offset, id, rec.txn)
			}
		}
	}
	inRaw := 0
	for _, recs := range raw {
		for _, r := range recs {
			if rec := l.byID[recordID(r)]; rec != nil && !l.ends[rec.txn] {
				inRaw++
			}
		}
	}
	t.Logf("%s read back as read_committed: %d records of committed transactions, %d of aborted ones (%d of these in the log under abort markers)", l.topic, nCommitted, nAborted, inRaw)
	return raw
}

// epochs lists, in log order, the distinct (producer id, epoch) of the
// data batches and the markers of partition part: how the coordinator
// moved a producer's epoch.
func epochs(raw map[int32][]readback.Record, part int32) string {
	var out []string
	for _, r := range raw[part] {
		kind := "records"
		if r.Control {
			kind = "abort marker"
			if c, ok := markerCommits(r.Key); ok && c {
				kind = "commit marker"
			}
		}
		s := fmt.Sprintf("%s pid %d epoch %d", kind, r.ProducerID, r.Epoch)
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// markerCommits reads a control record's key: version int16, type int16
// (0 abort, 1 commit).
func markerCommits(key []byte) (commit, ok bool) {
	if len(key) < 4 {
		return false, false
	}
	switch int(key[2])<<8 | int(key[3]) {
	case 0:
		return false, true
	case 1:
		return true, true
	}
	return false, false
}

// mustErr fails t unless err matches every one of want.
func mustErr(t *testing.T, what string, err error, want ...error) {
	t.Helper()
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Fatalf("%s: %v, want %v", what, err, want)
		}
	}
}

// txnTopic creates a topic for a transactional scenario: parts partitions,
// replication 3, min.insync.replicas 2.
func txnTopic(t *testing.T, c *kafkatest.Cluster, name string, parts int32, configs map[string]string) *ledger {
	newTopic(t, c, name, parts, configs)
	return newLedger(t, c, name)
}
