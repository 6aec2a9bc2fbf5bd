package conformance

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
)

// compound is a compound failure, on the sim: the leader of
// some partitions frozen, a second broker lost while it is, both back.
type compound struct {
	// quorumLost: the kill goes unnoticed (KRaft's combined nodes: one
	// voter frozen, one killed, no quorum) until the frozen broker is back;
	// then the controller fences the killed one fenceKilled later. Else the
	// controller fences it at once and every batch is refused
	// NOT_ENOUGH_REPLICAS.
	quorumLost  bool
	fenceKilled time.Duration
	restart     time.Duration // the killed broker starts this long after the thaw
	catchUp     time.Duration // the thawed broker copies again this long after the thaw
	respDelay   time.Duration // every broker answers this late (a loaded machine)
	lag         time.Duration // followers copy this late
}

const (
	compoundFreeze  = 60 * time.Second // the leader stays frozen this long
	compoundFenceAt = 4 * time.Second  // the controller fences it (kafkatest's broker.session.timeout.ms)
	compoundKillAt  = 10 * time.Second // a second broker is killed
	compoundAfter   = 30 * time.Second // the load goes on this long after the heal
	compoundStall   = 5 * time.Second  // the longest a partition may go unacknowledged once it has two replicas in sync again
	compoundParts   = 6
)

// TestConformance28CompoundFailure: found on real Kafka 4.4. Six
// partitions (replication 3, min.insync.replicas=2) take 2,000 records/s
// (gzip, the default 30 s request timeout, a 120 s delivery timeout). The
// leader of partition 0 freezes (SIGSTOP) for 60 s: its connections stay
// open and silent; 4 s in, the controller fences it and its partitions
// elect other leaders; 10 s in, a second broker is killed. Then the frozen
// broker resumes, answering what waited on its connections, and the
// killed one restarts. kgo and sarama delivered every record; rollsafe
// failed hundreds at their delivery deadline, some partitions making no
// progress for over a minute after the heal. Every record must be
// acknowledged, exactly once and in order, and no partition may go longer
// than compoundStall without an acknowledgement once it has two replicas
// in sync again. Variants:
//
//   - fenced: the controller fences the killed broker at once: one replica
//     in sync everywhere, every batch refused NOT_ENOUGH_REPLICAS (those
//     appended just before wait above a high watermark that does not move);
//   - quorum-lost: as on kafkatest's combined KRaft nodes, where one voter
//     frozen and one killed leave no quorum: the killed broker stays leader
//     and in sync in the metadata, so its partitions' clients meet a
//     refused address and the others' acks=all batches are appended and
//     time out; back, the controller fences it 4 s later, it restarts 20 s
//     later and the thawed broker copies again after 5 s; brokers answer
//     100 ms late and followers copy 300 ms late (a loaded machine).
func TestConformance28CompoundFailure(t *testing.T) {
	for _, v := range []struct {
		name string
		sc   compound
	}{
		{"fenced", compound{lag: 20 * time.Millisecond}},
		{"quorum-lost", compound{quorumLost: true, fenceKilled: 4 * time.Second, restart: 20 * time.Second,
			catchUp: 5 * time.Second, respDelay: 100 * time.Millisecond, lag: 300 * time.Millisecond}},
	} {
		t.Run(v.name, func(t *testing.T) {
			world(t, func(t *testing.T) { compoundFailure(t, v.sc) })
		})
	}
}

func compoundFailure(t *testing.T, sc compound) {
	const parts = compoundParts
	r := startT(t, cfg{partitions: parts,
		client: []client.Option{
			client.RequestTimeout(30 * time.Second),
			client.DeliveryTimeout(120 * time.Second),
			client.Compression(compress.Gzip, -1),
		},
		sim: []sim.Option{sim.MinInsyncReplicas(topic, 2), sim.FollowerLag(sc.lag)}})
	for b := range int32(3) {
		if err := r.c.DelayResponses(b, sc.respDelay); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	r.produceTo(ctx, "warm", 60, func(i int) int32 { return int32(i % parts) })
	r.check(t, r.wait(20*time.Second), "warm-up")

	var halt atomic.Bool
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		next := 0
		for tick := 0; !halt.Load(); tick++ {
			base := next
			r.produceTo(ctx, "load"+strconv.Itoa(tick), 10, func(i int) int32 { return int32((base + i) % parts) })
			next += 10
			time.Sleep(5 * time.Millisecond)
		}
	}()
	time.Sleep(2 * time.Second)

	frozen, _ := r.c.Leader(topic, 0)
	var killed int32 = -1
	for _, b := range []int32{0, 1, 2} {
		if b != frozen {
			killed = b
			break
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	must(r.c.FreezeBroker(frozen))
	time.Sleep(compoundFenceAt)
	must(r.c.FenceBroker(frozen))
	time.Sleep(compoundKillAt - compoundFenceAt)
	if sc.quorumLost {
		must(r.c.KillProcessUnnoticed(killed))
	} else {
		must(r.c.KillProcess(killed))
	}
	time.Sleep(compoundFreeze - compoundKillAt)
	if sc.catchUp > 0 {
		// Back, the frozen broker registers again before it copies.
		for p := range int32(parts) {
			must(r.c.PauseReplication(topic, p, frozen))
		}
	}
	must(r.c.ThawBroker(frozen))
	thawed := time.Now()
	type step struct {
		at time.Duration
		do func() error
	}
	steps := []step{
		{sc.restart, func() error { return r.c.StartBroker(killed) }},
		{sc.catchUp, func() error {
			for p := range int32(parts) {
				if err := r.c.ResumeReplication(topic, p, frozen); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	if sc.quorumLost {
		steps = append(steps, step{sc.fenceKilled, func() error { return r.c.FenceBroker(killed) }})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	// Each partition heals when two replicas are in sync again.
	healed := make([]time.Time, parts)
	watch := func() {
		for p := range int32(parts) {
			if healed[p].IsZero() && r.inSync(t, p) >= 2 {
				healed[p] = time.Now()
			}
		}
	}
	for _, st := range steps {
		for time.Since(thawed) < st.at {
			watch()
			time.Sleep(10 * time.Millisecond)
		}
		must(st.do())
	}
	for slices.ContainsFunc(healed, time.Time.IsZero) {
		watch()
		time.Sleep(10 * time.Millisecond)
	}
	last := slices.MaxFunc(healed, time.Time.Compare)
	t.Logf("broker %d frozen at 0 s, fenced at %v; broker %d killed at %v (noticed: %v); thawed at %v; every partition two replicas in sync at %v",
		frozen, compoundFenceAt, killed, compoundKillAt, !sc.quorumLost, thawed.Sub(began), last.Sub(began))
	time.Sleep(compoundAfter)
	halt.Store(true)
	<-loaded
	ended := time.Now()
	r.check(t, r.wait(3*time.Minute), "every outcome")

	var worst time.Duration
	for p := range int32(parts) {
		gap, at := r.longestGap(p, healed[p], ended)
		all, _ := r.longestGap(p, began, ended)
		t.Logf("partition %d: in sync again %v after the freeze; longest stall after that %v (from %v after it); longest stall %v; tail reads %d, bumps %d",
			p, healed[p].Sub(began).Round(time.Millisecond), gap.Round(time.Millisecond), at.Sub(healed[p]).Round(time.Millisecond), all.Round(time.Millisecond), r.h.tailReads(p), len(r.h.bumpsOf(p)))
		worst = max(worst, gap)
	}
	acked, unknown, notWritten := r.loadOutcomes(t)
	rep, err := r.verify()
	t.Logf("acknowledged %d, failed %d (unknown outcome %d, not written %d); read back: %s; longest stall after the heal %v",
		acked, unknown+notWritten, unknown, notWritten, rep.String(), worst.Round(time.Millisecond))
	r.check(t, err, "read-back")
	if unknown+notWritten > 0 {
		t.Errorf("%d records failed (unknown outcome %d, not written %d); every record must be acknowledged", unknown+notWritten, unknown, notWritten)
	}
	if worst > compoundStall {
		t.Errorf("a partition went %v without an acknowledgement once two of its replicas were in sync again; at most %v", worst.Round(time.Millisecond), compoundStall)
	}
}

// loadOutcomes counts the load's records acknowledged, failed with an
// unknown outcome and failed as not written.
func (r *rig) loadOutcomes(t *testing.T) (acked, unknown, notWritten int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pr := range r.produced {
		if !strings.HasPrefix(pr.ID, "load") {
			continue
		}
		err := r.errs[pr.ID]
		u, nw := errors.Is(err, client.ErrOutcomeUnknown), errors.Is(err, client.ErrNotWritten)
		switch {
		case pr.Acked:
			acked++
		case u && !nw:
			unknown++
		case nw && !u:
			notWritten++
		default:
			t.Fatalf("record %s: %v; want acknowledged, or exactly one of ErrOutcomeUnknown and ErrNotWritten", pr.ID, err)
		}
	}
	return acked, unknown, notWritten
}

// inSync is how many replicas of partition p are in sync and running (a
// killed broker the controller has not fenced stays in the ISR).
func (r *rig) inSync(t *testing.T, p int32) int {
	t.Helper()
	isr, err := r.c.ISR(topic, p)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range isr {
		if r.c.BrokerUp(b) && !r.c.BrokerFrozen(b) {
			n++
		}
	}
	return n
}
