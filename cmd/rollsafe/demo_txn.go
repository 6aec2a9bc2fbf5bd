package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/compress"
)

// The transactions demo (`rollsafe demo -transactions`): a transactional
// producer writes transactions across every partition, the program aborts
// every fourth one, and the transaction coordinator's broker is killed just
// before one transaction commits. A read_committed read of the log must
// show every record of the committed transactions once, in order, at the
// offset its callback reported, and no record of an aborted one.

// txnDemoID is the demo producer's transactional id.
const txnDemoID = "rollsafe-demo"

// txnAbortEvery: the program aborts transactions 3, 7, 11, … (every fourth).
const txnAbortEvery = 4

// txnCluster is what the transactions demo needs of a cluster, the
// simulator or real brokers.
type txnCluster interface {
	addrs() []string
	// coordinator returns the broker coordinating transactional id id.
	coordinator(ctx context.Context, id string) (int32, error)
	// kill stops broker id as a crash does; start runs it again.
	kill(id int32) error
	start(ctx context.Context, id int32) error
}

// txnReport is what the transactions demo did and read back.
type txnReport struct {
	txns, perTxn                 int
	committed, aborted, errAbort int   // transactions: committed, aborted by the program, aborted after an error
	killed                       int32 // the coordinator killed before a commit (-1: none)
	movedTo                      int32 // the coordinator after the kill
	commitErr                    error // what the commit under the kill returned first (nil: committed at once)
	// Records: of committed and of aborted transactions, and what the
	// read_committed read found.
	committedRecs, abortedRecs                 int
	in, lost, duplicates, reordered, wrongAt   int
	abortedVisible, callbackFailed, unexpected int
	seconds                                    float64
}

func (r txnReport) passed() bool {
	return r.killed >= 0 && r.movedTo != r.killed && r.lost == 0 && r.duplicates == 0 && r.reordered == 0 && r.wrongAt == 0 &&
		r.abortedVisible == 0 && r.callbackFailed == 0 && r.unexpected == 0 && r.in == r.committedRecs
}

// txnRun is one run of the demo: the records of each transaction and
// where their callbacks placed them.
type txnRun struct {
	cfg demoConfig
	p   *client.Producer
	mu  sync.Mutex
	// Per record index: its transaction, its outcome.
	txnOf        []int
	part         []int32
	offset       []int64
	cbErr        []error
	fate         []txnFate // per transaction
	firstFailure error
}

type txnFate int8

const (
	txnOpen txnFate = iota
	txnCommitted
	txnAborted
)

func (r *txnRun) done(rec *client.Record, err error) {
	i := int(binary.BigEndian.Uint64(rec.Headers[0].Value))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.part[i], r.offset[i], r.cbErr[i] = rec.Partition, rec.Offset, err
}

// demoTransactions plays the transactions demo on c.
func demoTransactions(ctx context.Context, out io.Writer, cfg demoConfig, c txnCluster) (txnReport, error) {
	perTxn := cfg.txnRecords
	txns := (cfg.records + perTxn - 1) / perTxn
	n := cfg.records
	rep := txnReport{txns: txns, perTxn: perTxn, killed: -1}
	r := &txnRun{cfg: cfg, txnOf: make([]int, n), part: make([]int32, n), offset: make([]int64, n),
		cbErr: make([]error, n), fate: make([]txnFate, txns)}
	p, err := client.NewProducer(client.Brokers(c.addrs()...), client.Compression(cfg.codec, compress.DefaultLevel),
		client.TransactionalID(txnDemoID), client.TransactionTimeout(time.Minute))
	if err != nil {
		return rep, err
	}
	r.p = p
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = p.Close(cctx)
	}()
	fmt.Fprintf(out, "rollsafe demo -transactions: %d transactions of up to %d records of %d B (%s) to %d partitions;\n",
		txns, perTxn, cfg.size, cfg.codec, cfg.partitions)
	fmt.Fprintf(out, "  every %dth aborted by the program; the coordinator's broker killed just before transaction %d commits\n", txnAbortEvery, txns/2)
	start := time.Now()
	ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = callAgain(ictx, p.InitTransactions)
	cancel()
	if err != nil {
		return rep, fmt.Errorf("InitTransactions: %w", err)
	}
	gen := fixture.New(fixture.Seed)
	for t := range txns {
		if err := p.BeginTransaction(); err != nil {
			return rep, fmt.Errorf("BeginTransaction %d: %w", t, err)
		}
		for i := t * perTxn; i < min(n, (t+1)*perTxn); i++ {
			ev := gen.Next(cfg.size)
			idx := make([]byte, 8)
			binary.BigEndian.PutUint64(idx, uint64(i))
			r.txnOf[i] = t
			// No key: the records of a transaction spread over the partitions.
			p.Produce(ctx, &client.Record{Topic: demoTopic, Value: ev.Value, Timestamp: ev.Timestamp,
				Headers: []client.Header{{Key: demoHeader, Value: idx}}}, r.done)
		}
		fate, err := r.end(ctx, out, t, txns, c, &rep)
		if err != nil {
			return rep, err
		}
		r.fate[t] = fate
	}
	rep.seconds = time.Since(start).Seconds()
	for t, f := range r.fate {
		recs := min(n, (t+1)*perTxn) - t*perTxn
		if f == txnCommitted {
			rep.committed++
			rep.committedRecs += recs
		} else {
			rep.abortedRecs += recs
		}
	}
	if rep.killed >= 0 {
		sctx, cancel := context.WithTimeout(ctx, kafkaStepTimeout)
		err := c.start(sctx, rep.killed)
		cancel()
		if err != nil {
			return rep, fmt.Errorf("start broker %d again: %w", rep.killed, err)
		}
	}
	return rep, r.readBack(ctx, out, c.addrs(), &rep)
}

// end ends transaction t: the program aborts every fourth; the others
// commit, the one in the middle right after its coordinator is killed. A commit
// that fails abortable is aborted; a call whose context ended is called
// again, as a failed transaction call says.
func (r *txnRun) end(ctx context.Context, out io.Writer, t, txns int, c txnCluster, rep *txnReport) (txnFate, error) {
	p := r.p
	if t%txnAbortEvery == txnAbortEvery-1 {
		rep.aborted++
		return txnAborted, callAgain(ctx, p.AbortTransaction)
	}
	killedNow := false
	if t == txns/2 {
		// The coordinator's broker dies with the transaction open, some of
		// its batches perhaps still in flight to it (it leads partitions
		// too): the commit must find the new coordinator, and the batches
		// their new leaders, before EndTxn can be answered.
		coord, err := c.coordinator(ctx, txnDemoID)
		if err != nil {
			return txnOpen, fmt.Errorf("find the transaction coordinator: %w", err)
		}
		if err := c.kill(coord); err != nil {
			return txnOpen, fmt.Errorf("kill broker %d: %w", coord, err)
		}
		rep.killed, killedNow = coord, true
		fmt.Fprintf(out, "  broker %d (the transaction coordinator) killed; transaction %d commits\n", coord, t)
	}
	err := callAgain(ctx, p.CommitTransaction)
	if killedNow {
		rep.commitErr = err
		// Where the transaction's coordinator is now: another broker.
		if rep.movedTo, err = c.coordinator(ctx, txnDemoID); err != nil {
			return txnOpen, fmt.Errorf("find the transaction coordinator after the kill: %w", err)
		}
		err = rep.commitErr
	}
	switch {
	case err == nil:
		return txnCommitted, nil
	case errors.Is(err, client.ErrTxnAbortable):
		fmt.Fprintf(out, "  transaction %d cannot commit (%v): aborted\n", t, err)
		rep.errAbort++
		return txnAborted, callAgain(ctx, p.AbortTransaction)
	default:
		return txnOpen, fmt.Errorf("CommitTransaction %d: %w", t, err)
	}
}

// callAgain calls a transaction call with a context of txnCallTimeout
// until it ends otherwise than by that context (the call goes on in the
// background meanwhile, and calling it again waits for its outcome), for
// kafkaStepTimeout at most.
func callAgain(ctx context.Context, call func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, kafkaStepTimeout)
	defer cancel()
	for {
		cctx, cancel := context.WithTimeout(ctx, txnCallTimeout)
		err := call(cctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return err
		}
	}
}

// txnCallTimeout bounds one transaction call of the demo.
const txnCallTimeout = 30 * time.Second

// readBack reads the topic as a read_committed consumer and checks it
// against each transaction's fate and each record's callback.
func (r *txnRun) readBack(ctx context.Context, out io.Writer, addrs []string, rep *txnReport) error {
	fmt.Fprintln(out, "reading every partition back as read_committed ...")
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	raw, err := readback.ReadTopic(rctx, addrs, demoTopic)
	if err != nil {
		return err
	}
	n := len(r.txnOf)
	seen := make([]bool, n)
	last := map[int32]int{}
	r.mu.Lock()
	defer r.mu.Unlock()
	for part, recs := range readback.Committed(raw) {
		for _, rec := range recs {
			if len(rec.Headers) == 0 || rec.Headers[0].Key != demoHeader || len(rec.Headers[0].Value) != 8 {
				rep.unexpected++
				continue
			}
			i := int(binary.BigEndian.Uint64(rec.Headers[0].Value))
			if i >= n {
				rep.unexpected++
				continue
			}
			rep.in++
			if r.fate[r.txnOf[i]] != txnCommitted {
				rep.abortedVisible++
				continue
			}
			if seen[i] {
				rep.duplicates++
				continue
			}
			seen[i] = true
			if r.part[i] != part || r.offset[i] != rec.Offset {
				rep.wrongAt++
			}
			if l, ok := last[part]; ok && i < l {
				rep.reordered++
			}
			last[part] = max(last[part], i)
		}
	}
	for i := range n {
		committed := r.fate[r.txnOf[i]] == txnCommitted
		if committed && !seen[i] {
			rep.lost++
		}
		switch {
		case committed && r.cbErr[i] != nil, !committed && !errors.Is(r.cbErr[i], client.ErrAborted):
			rep.callbackFailed++
			if r.firstFailure == nil {
				r.firstFailure = fmt.Errorf("record %d (transaction %d, committed %v): callback %v", i, r.txnOf[i], committed, r.cbErr[i])
			}
		}
	}
	if r.firstFailure != nil {
		fmt.Fprintln(out, "first wrong callback:", r.firstFailure)
	}
	return nil
}

func printTxnReport(w io.Writer, r txnReport) {
	fmt.Fprintf(w, "transactions  %d: committed %d   aborted by the program %d   aborted after an error %d   (%.2fs)\n",
		r.txns, r.committed, r.aborted, r.errAbort, r.seconds)
	if r.killed >= 0 {
		outcome := "committed"
		if r.commitErr != nil {
			outcome = "returned: " + r.commitErr.Error()
		}
		fmt.Fprintf(w, "coordinator   broker %d killed just before a commit, which %s; the coordinator is now broker %d\n", r.killed, outcome, r.movedTo)
	} else {
		fmt.Fprintln(w, "coordinator   not killed (FAILED: the fault did not play)")
	}
	fmt.Fprintf(w, "records       of committed transactions %d   of aborted %d\n", r.committedRecs, r.abortedRecs)
	fmt.Fprintf(w, "read back     %d records (read_committed): lost %d   duplicates %d   reordered %d   elsewhere than acknowledged %d   aborted visible %d\n",
		r.in, r.lost, r.duplicates, r.reordered, r.wrongAt, r.abortedVisible)
	if r.callbackFailed != 0 || r.unexpected != 0 {
		fmt.Fprintf(w, "callbacks     %d records told another outcome than their transaction's   %d records not the demo's\n", r.callbackFailed, r.unexpected)
	}
	if r.passed() {
		fmt.Fprintln(w, "PASSED")
	} else {
		fmt.Fprintln(w, "FAILED")
	}
}
