//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rollsafe/rollsafe/client"
)

// The transactional peers: each runs one transaction per txnReq the
// scenario hands it and says what its API said of it. Nothing they say is
// trusted for the verdict but which transactions they call committed or
// aborted, which the read_committed read back checks.

// txnReq is one transaction: its records (ids and partitions), whether the
// program aborts it, and how long the peer holds it open after producing
// before it ends it (the timeout scenario).
type txnReq struct {
	n     int
	abort bool
	hold  time.Duration
	recs  []peerRec
}

// txnOutcome is what a peer's API said of a transaction.
type txnOutcome string

const (
	txnCommitted    txnOutcome = "committed"     // the commit succeeded
	txnAbortedPlan  txnOutcome = "aborted"       // the program aborted it, and the abort succeeded
	txnAbortedError txnOutcome = "aborted-error" // a call failed, the abort the client's docs prescribe succeeded
	txnError        txnOutcome = "error"         // a call failed and the prescribed handling failed too
	txnFatal        txnOutcome = "fatal"         // the client says it can go no further
	txnNoAnswer     txnOutcome = "no-answer"     // the peer said nothing within txnReplyWait
)

// txnReply is a peer's report of one transaction; detail is the error's
// class and message.
type txnReply struct {
	outcome txnOutcome
	detail  string
}

// txnSession is one transactional producer of a scenario.
type txnSession interface {
	// do runs one transaction to its end (bounded by ctx).
	do(ctx context.Context, req txnReq) txnReply
	// finish closes the producer (bounded by ctx).
	finish(ctx context.Context) error
}

// txnPeerOpts are what a scenario changes in a transactional peer.
type txnPeerOpts struct {
	// timeout, if set, is the transaction timeout; zero keeps each
	// client's default (60 s for all of them).
	timeout time.Duration
}

// txnPeer is one client of the transactions table.
type txnPeer struct {
	name string
	// start opens a transactional producer with id to topic and
	// initializes its transactions (bounded by ctx).
	start func(ctx context.Context, addrs []string, topic, id string, o txnPeerOpts, tl *tally) (txnSession, error)
}

func txnPeers() []txnPeer {
	return []txnPeer{
		{"rollsafe", startRollsafeTxn},
		{"kgo", startKgoTxn},
		{"java", startJavaTxn},
		{"confluent-kafka-" + pinnedConfluentKafka, startPythonTxn(false)},
		{"debian-confluent-kafka", startPythonTxn(true)},
	}
}

// --- rollsafe ---

type rollsafeTxn struct {
	p     *client.Producer
	topic string
	trace *os.File // ROLLSAFE_TRACE, closed by finish
}

// rollsafeTrace opens DIR/name.trace when ROLLSAFE_TRACE=DIR and returns
// the option logging rollsafe's transcript there.
func rollsafeTrace(name string) (*os.File, []client.Option, error) {
	dir := os.Getenv("ROLLSAFE_TRACE")
	if dir == "" {
		return nil, nil, nil
	}
	f, err := os.Create(filepath.Join(dir, name+".trace"))
	if err != nil {
		return nil, nil, err
	}
	return f, []client.Option{client.WithLogger(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: client.LevelTrace})))}, nil
}

func startRollsafeTxn(ctx context.Context, addrs []string, topic, id string, o txnPeerOpts, _ *tally) (txnSession, error) {
	opts := []client.Option{client.Brokers(addrs...), client.ClientID("bench-rollsafe"), client.TransactionalID(id)}
	if o.timeout > 0 {
		opts = append(opts, client.TransactionTimeout(o.timeout))
	}
	trace, topts, err := rollsafeTrace(topic)
	if err != nil {
		return nil, err
	}
	p, err := client.NewProducer(append(opts, topts...)...)
	if err != nil {
		return nil, err
	}
	if err := txnCallAgain(ctx, p.InitTransactions); err != nil {
		_ = p.Close(ctx)
		return nil, fmt.Errorf("InitTransactions: %w", err)
	}
	return &rollsafeTxn{p: p, topic: topic, trace: trace}, nil
}

// txnCallAgain calls a rollsafe transaction call with a bounded context
// until it ends otherwise than by that context (as its docs say: the call
// goes on meanwhile, calling again waits for it), or ctx ends.
func txnCallAgain(ctx context.Context, call func(context.Context) error) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := call(cctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return err
		}
	}
}

// rollsafeClass names the documented class a rollsafe error belongs to.
func rollsafeClass(err error) string {
	switch {
	case errors.Is(err, client.ErrFenced):
		return "ErrFenced"
	case errors.Is(err, client.ErrTxnFatal):
		return "ErrTxnFatal"
	case errors.Is(err, client.ErrTxnAbortable):
		return "ErrTxnAbortable"
	case errors.Is(err, client.ErrTxnState):
		return "ErrTxnState"
	}
	return "other"
}

func (s *rollsafeTxn) do(ctx context.Context, req txnReq) txnReply {
	p := s.p
	if err := p.BeginTransaction(); err != nil {
		return txnReply{txnFatal, "BeginTransaction: " + rollsafeClass(err) + ": " + err.Error()}
	}
	for _, r := range req.recs {
		p.Produce(ctx, &client.Record{Topic: s.topic, Partition: r.partition, HasPartition: true, Value: peerValue(r.id)},
			func(*client.Record, error) {})
	}
	if req.hold > 0 {
		time.Sleep(req.hold) // the scenario's hold: the transaction stays open past its timeout
	}
	if req.abort {
		if err := txnCallAgain(ctx, p.AbortTransaction); err != nil {
			return rollsafeFailed("AbortTransaction", err)
		}
		return txnReply{outcome: txnAbortedPlan}
	}
	err := txnCallAgain(ctx, p.CommitTransaction)
	if err == nil {
		return txnReply{outcome: txnCommitted}
	}
	if !errors.Is(err, client.ErrTxnAbortable) {
		return rollsafeFailed("CommitTransaction", err)
	}
	// The documented handling: abort and go on.
	if aerr := txnCallAgain(ctx, p.AbortTransaction); aerr != nil {
		return rollsafeFailed("AbortTransaction after "+err.Error(), aerr)
	}
	return txnReply{txnAbortedError, "CommitTransaction: " + rollsafeClass(err) + ": " + err.Error()}
}

func rollsafeFailed(call string, err error) txnReply {
	out := txnError
	if errors.Is(err, client.ErrTxnFatal) {
		out = txnFatal
	}
	return txnReply{out, call + ": " + rollsafeClass(err) + ": " + err.Error()}
}

func (s *rollsafeTxn) finish(ctx context.Context) error {
	err := s.p.Close(ctx)
	if s.trace != nil {
		_ = s.trace.Close()
	}
	return err
}

// --- franz-go kgo ---

type kgoTxn struct {
	cl    *kgo.Client
	topic string
}

func startKgoTxn(_ context.Context, addrs []string, topic, id string, o txnPeerOpts, tl *tally) (txnSession, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ClientID("bench-kgo"), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionalID(id), kgo.WithLogger(kgoLogger{tl})}
	if o.timeout > 0 {
		opts = append(opts, kgo.TransactionTimeout(o.timeout))
	}
	// kgo initializes its producer id with the first transaction.
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	return &kgoTxn{cl: cl, topic: topic}, nil
}

// kgoClass names a kgo error: the Kafka error code's name, or the Go type.
func kgoClass(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Message
	}
	var t string
	for e := err; e != nil; e = errors.Unwrap(e) {
		t = reflect.TypeOf(e).String()
	}
	return t
}

func (s *kgoTxn) do(ctx context.Context, req txnReq) txnReply {
	cl := s.cl
	if err := cl.BeginTransaction(); err != nil {
		return txnReply{txnFatal, "BeginTransaction: " + kgoClass(err) + ": " + err.Error()}
	}
	var mu sync.Mutex
	var failed error
	for _, r := range req.recs {
		cl.Produce(ctx, &kgo.Record{Topic: s.topic, Partition: r.partition, Value: peerValue(r.id)}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				failed = cmpOr(failed, err)
				mu.Unlock()
			}
		})
	}
	// EndTransaction's docs: Flush first.
	ferr := cl.Flush(ctx)
	if req.hold > 0 {
		time.Sleep(req.hold)
	}
	mu.Lock()
	failed = cmpOr(failed, ferr)
	mu.Unlock()
	abort := func(why string) txnReply {
		if err := cl.AbortBufferedRecords(ctx); err != nil {
			return txnReply{txnError, why + "; AbortBufferedRecords: " + kgoClass(err) + ": " + err.Error()}
		}
		if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
			return txnReply{txnError, why + "; EndTransaction(TryAbort): " + kgoClass(err) + ": " + err.Error()}
		}
		if why == "" {
			return txnReply{outcome: txnAbortedPlan}
		}
		return txnReply{txnAbortedError, why}
	}
	if req.abort {
		return abort("")
	}
	if failed != nil {
		// A record failed: the transaction cannot commit.
		return abort("produce: " + kgoClass(failed) + ": " + failed.Error())
	}
	err := cl.EndTransaction(ctx, kgo.TryCommit)
	if err == nil {
		return txnReply{outcome: txnCommitted}
	}
	why := "EndTransaction(TryCommit): " + kgoClass(err) + ": " + err.Error()
	// EndTransaction's docs: retry with TryAbort after OperationNotAttempted,
	// TransactionAbortable or an unconfirmed outcome (not a Kafka error
	// code, or UNKNOWN_SERVER_ERROR); not on any other error.
	var ke *kerr.Error
	if errors.Is(err, kerr.OperationNotAttempted) || errors.Is(err, kerr.TransactionAbortable) ||
		errors.Is(err, kerr.UnknownServerError) || !errors.As(err, &ke) {
		return abort(why)
	}
	return txnReply{txnError, why}
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (s *kgoTxn) finish(ctx context.Context) error {
	s.cl.Close()
	return nil
}
