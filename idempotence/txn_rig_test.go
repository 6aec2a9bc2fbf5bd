package idempotence

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// trig drives a transactional Producer through Step and Ready, as the
// client does.
type trig struct {
	t     *testing.T
	pr    *Producer
	now   time.Time
	ev    []Event
	sends []Send
}

func newTrig(t *testing.T, cfg Config) *trig {
	t.Helper()
	cfg.Transactional = true
	r := &trig{t: t, pr: New(cfg), now: time.Unix(5000, 0)}
	r.step(LeaderChanged{TP: tp0, Broker: 1, LeaderEpoch: 7})
	r.step(LeaderChanged{TP: tp1, Broker: 2, LeaderEpoch: 9})
	return r
}

// step feeds one input and collects what Ready asks.
func (r *trig) step(in Input) {
	r.pr.Step(in, r.now)
	rd := r.pr.Ready()
	r.ev = append(r.ev, rd.Events...)
	r.sends = append(r.sends, rd.Sends...)
	r.pr.Advance()
}

func (r *trig) take() ([]Event, []Send) {
	ev, s := r.ev, r.sends
	r.ev, r.sends = nil, nil
	return ev, s
}

// later moves the clock past any backoff.
func (r *trig) later() {
	r.now = r.now.Add(time.Second)
	r.step(Tick{})
}

// init brings the producer to TxnReady under producer id 1000, epoch 3.
func (r *trig) init() {
	r.t.Helper()
	r.step(InitTransactions{})
	r.want(FindCoordinator{})
	r.step(CoordinatorFound{Broker: 9})
	r.want(InitProducerIDRequest{Broker: 9, ProducerID: -1, Epoch: -1})
	r.step(InitProducerIDAnswer{Code: kafkaerr.None, ProducerID: 1000, Epoch: 3})
	r.state(TxnReady)
	r.take()
}

// begin opens a transaction with one batch per id on tp, added and sent.
func (r *trig) begin(tp TopicPartition, ids ...BatchID) []Send {
	r.t.Helper()
	r.step(BeginTxn{})
	for _, id := range ids {
		r.step(NewBatch{TP: tp, ID: id, Records: 1})
	}
	_, epoch, _ := r.pr.Identity()
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: epoch, Partitions: []TopicPartition{tp}})
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp: kafkaerr.None}})
	_, s := r.take()
	return s
}

func (r *trig) answer(tp TopicPartition, id BatchID, code kafkaerr.Code, base int64) {
	class := Appended
	if code != kafkaerr.None {
		class = MaybeAppended
	}
	r.step(Answer{TP: tp, ID: id, Response: Response{Code: code, Class: class, BaseOffset: base, LogStartOffset: -1}})
}

// want checks that the events collected include e (and forgets nothing).
func (r *trig) want(e Event) {
	r.t.Helper()
	for _, x := range r.ev {
		if fmt.Sprint(x) == fmt.Sprint(e) {
			return
		}
	}
	r.t.Fatalf("no %T %v in %v", e, e, r.ev)
}

// wantNo checks that no collected event is of e's type.
func (r *trig) wantNo(e Event) {
	r.t.Helper()
	for _, x := range r.ev {
		if fmt.Sprintf("%T", x) == fmt.Sprintf("%T", e) {
			r.t.Fatalf("unexpected %T in %v", x, r.ev)
		}
	}
}

func (r *trig) state(s TxnState) {
	r.t.Helper()
	if got := r.pr.TxnState(); got != s {
		r.t.Fatalf("state %v, want %v (events %v)", got, s, r.ev)
	}
}

// outcome returns the one outcome event of batch id collected so far.
func (r *trig) outcome(id BatchID) Event {
	r.t.Helper()
	var out []Event
	for _, e := range r.ev {
		switch x := e.(type) {
		case Delivered:
			if x.ID == id {
				out = append(out, x)
			}
		case Failed:
			if x.ID == id {
				out = append(out, x)
			}
		}
	}
	if len(out) != 1 {
		r.t.Fatalf("batch %d: %d outcomes %v (events %v)", id, len(out), out, r.ev)
	}
	return out[0]
}

func (r *trig) failedIs(id BatchID, is []error, isNot []error) {
	r.t.Helper()
	f, ok := r.outcome(id).(Failed)
	if !ok {
		r.t.Fatalf("batch %d: %v, want Failed", id, r.outcome(id))
	}
	for _, e := range is {
		if !errors.Is(f.Err, e) {
			r.t.Fatalf("batch %d failed with %v, want errors.Is %v", id, f.Err, e)
		}
	}
	for _, e := range isNot {
		if errors.Is(f.Err, e) {
			r.t.Fatalf("batch %d failed with %v, want not errors.Is %v", id, f.Err, e)
		}
	}
}

func (r *trig) noOutcome(id BatchID) {
	r.t.Helper()
	for _, e := range r.ev {
		switch x := e.(type) {
		case Delivered:
			if x.ID == id {
				r.t.Fatalf("batch %d delivered early: %v", id, r.ev)
			}
		case Failed:
			if x.ID == id {
				r.t.Fatalf("batch %d failed early: %v", id, r.ev)
			}
		}
	}
}
