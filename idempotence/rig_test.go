package idempotence

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

var (
	tp0 = TopicPartition{Topic: "orders", Partition: 0}
	tp1 = TopicPartition{Topic: "orders", Partition: 1}
)

// rig drives a Producer by hand for the rule tests.
type rig struct {
	t   *testing.T
	pr  *Producer
	now time.Time
	ev  []Event // events collected since the last take
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	r := &rig{t: t, pr: New(cfg), now: time.Unix(5000, 0)}
	r.pr.setIdentity(1000, 3)
	r.pr.leaderChanged(tp0, 1, 7)
	r.pr.leaderChanged(tp1, 2, 9)
	// As if producer id 1000 had already written to both partitions, so
	// that their first batches may be pipelined.
	for _, p := range r.pr.order {
		p.ackedPID, p.hasAckedPID = 1000, true
	}
	r.pr.takeEvents()
	return r
}

func (r *rig) collect() { r.ev = append(r.ev, r.pr.takeEvents()...) }

// take returns and forgets the events collected so far.
func (r *rig) take() []Event {
	r.collect()
	ev := r.ev
	r.ev = nil
	clear(r.pr.woken)
	return ev
}

func (r *rig) enqueue(tp TopicPartition, records int32, ids ...BatchID) {
	r.enqueueStamped(tp, records, time.Time{}, ids...)
}

func (r *rig) send(tp TopicPartition) []Send {
	s := r.pr.sendable(tp, r.now)
	r.collect()
	return s
}

func (r *rig) answer(tp TopicPartition, id BatchID, code kafkaerr.Code, class Class, base int64) {
	r.pr.respond(tp, id, Response{Code: code, Class: class, BaseOffset: base, LogStartOffset: -1}, r.now)
	r.collect()
}

func (r *rig) ok(tp TopicPartition, id BatchID, base int64) {
	r.answer(tp, id, kafkaerr.None, Appended, base)
}

// later moves the clock past any backoff.
func (r *rig) later() {
	r.now = r.now.Add(time.Second)
	r.pr.tick(r.now)
	r.collect()
}

// sendsAre checks the batches sent: ids, epochs and base sequences.
func (r *rig) sendsAre(got []Send, want ...string) {
	r.t.Helper()
	var g []string
	for _, s := range got {
		g = append(g, fmt.Sprintf("%d@%d/%d", s.ID, s.Epoch, s.BaseSequence))
	}
	if fmt.Sprint(g) != fmt.Sprint(want) {
		r.t.Fatalf("sent %v, want %v", g, want)
	}
}

// find returns the events of type T.
func find[T Event](ev []Event) []T {
	var out []T
	for _, e := range ev {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func (r *rig) delivered(ev []Event, want ...string) {
	r.t.Helper()
	var g []string
	for _, d := range find[Delivered](ev) {
		g = append(g, fmt.Sprintf("%d@%d", d.ID, d.BaseOffset))
	}
	if fmt.Sprint(g) != fmt.Sprint(want) {
		r.t.Fatalf("delivered %v, want %v (events %v)", g, want, ev)
	}
}

func (r *rig) failed(ev []Event, id BatchID, is ...error) {
	r.t.Helper()
	for _, f := range find[Failed](ev) {
		if f.ID != id {
			continue
		}
		for _, target := range is {
			if !errors.Is(f.Err, target) {
				r.t.Fatalf("batch %d failed with %v, want errors.Is %v", id, f.Err, target)
			}
		}
		return
	}
	r.t.Fatalf("batch %d did not fail (events %v)", id, ev)
}

func (r *rig) none(ev []Event, what string, n int) {
	r.t.Helper()
	if n != 0 {
		r.t.Fatalf("unexpected %s in %v", what, ev)
	}
}

func (r *rig) is(cond bool, format string, args ...any) {
	r.t.Helper()
	if !cond {
		r.t.Fatalf(format, args...)
	}
}

// enqueueStamped is enqueue with batches whose largest record timestamp
// is stamp.
func (r *rig) enqueueStamped(tp TopicPartition, records int32, stamp time.Time, ids ...BatchID) {
	for _, id := range ids {
		r.pr.enqueue(tp, id, records, time.Time{}, stamp)
	}
	r.collect()
}
