package conformance

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestConformance18LeaderlessPartition: partition 0's
// leadership moves from L to F1 unseen by the producer, L falls out of the
// ISR and F1 stops: the partition is offline (leader -1) while L, the
// leader the producer knows, still runs. Records produced then meet
// NOT_LEADER_OR_FOLLOWER at L and a metadata refresh showing no leader.
// Once F1 returns and leads again, production resumes well within the
// delivery timeout — the periodic metadata refresh is left at its 5 minute
// default — with nothing lost or duplicated.
func TestConformance18LeaderlessPartition(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 2,
			client: []client.Option{client.DeliveryTimeout(8 * time.Second), client.RetryBackoff(20 * time.Millisecond)}})
		ctx := context.Background()
		r.produceTo(ctx, "warm", 200, func(i int) int32 { return int32(i % 2) })
		r.check(t, r.wait(10*time.Second), "warm-up")
		r.replicated(t, 0)
		leader, fs := r.followers(t, 0)
		f1, f2 := fs[0], fs[1]
		r.check(t, r.c.StopBroker(f2), "stop f2")
		r.check(t, r.c.MoveLeader(topic, 0, f1), "move")
		r.check(t, r.c.PauseReplication(topic, 0, leader), "pause the old leader")
		r.check(t, r.c.StopBroker(f1), "stop f1")
		if l, _ := r.c.Leader(topic, 0); l != -1 {
			t.Fatalf("partition 0 still led by %d", l)
		}
		r.produceTo(ctx, "offline", 300, one(0))
		// Long enough for the producer to meet the deposed leader and refresh
		// metadata that names no leader.
		if !waitUntil(5*time.Second, func() bool { return r.sawLeaderless(0) }) {
			t.Fatalf("the producer never saw partition 0 without a leader\n%s", r.dump())
		}
		time.Sleep(500 * time.Millisecond)
		if n, _ := r.acked("offline"); n != 0 {
			t.Fatalf("%d records acknowledged on a partition without a leader", n)
		}
		back := time.Now()
		r.check(t, r.c.StartBroker(f1), "restart f1")
		if l, _ := r.c.Leader(topic, 0); l != f1 {
			t.Fatalf("partition 0 led by %d after its last in-sync replica returned", l)
		}
		r.check(t, r.wait(15*time.Second), "resume")
		resumed := time.Since(back)
		if n, errs := r.acked("offline"); n != 300 {
			t.Fatalf("%d of 300 records produced while the partition had no leader acknowledged: %v\n%s", n, errs[:min(3, len(errs))], r.dump())
		}
		r.check(t, r.c.ResumeReplication(topic, 0, leader), "resume replication")
		r.check(t, r.c.StartBroker(f2), "restart f2")
		r.check(t, r.goesOn("after", 200), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		t.Logf("resumed %v after a leader returned", resumed)
	})
}

// sawLeaderless reports whether a metadata response showed partition p
// without a leader.
func (r *rig) sawLeaderless(p int32) bool {
	for _, ex := range r.c.Recorder().Exchanges() {
		mr, ok := ex.Response.(*kmsg.MetadataResponse)
		if !ok {
			continue
		}
		for _, mt := range mr.Topics {
			for _, mp := range mt.Partitions {
				if mt.Topic != nil && *mt.Topic == topic && mp.Partition == p && mp.Leader == -1 {
					return true
				}
			}
		}
	}
	return false
}

// TestConformance19CompressedMessageTooLarge: the broker
// refuses a compressed batch bigger than message.max.bytes although each of
// its records, compressed alone, fits easily; its uncompressed size is far
// bigger still. The producer splits by uncompressed size and delivers
// every record; none fails ErrRecordTooLarge.
func TestConformance19CompressedMessageTooLarge(t *testing.T) {
	world(t, func(t *testing.T) {
		const maxBatch = 2048
		r := startT(t, cfg{partitions: 2, sim: []sim.Option{sim.MaxBatchBytes(maxBatch)},
			client: []client.Option{client.BatchBytes(256 << 10), client.Compression(compress.LZ4, compress.DefaultLevel), client.Linger(20 * time.Millisecond)}})
		ctx := context.Background()
		// Records of about 4 KiB that compress to about 300 bytes each (a
		// record-specific 256-byte noise block, then repetition): each is
		// bigger than maxBatch uncompressed and fits compressed; a batch of a
		// dozen does not.
		pad := strings.Repeat("rollsafe", 480)
		rng := rand.New(rand.NewPCG(12, 7))
		for i := range 400 {
			noise := make([]byte, 256)
			for j := range noise {
				noise[j] = 'a' + byte(rng.IntN(26))
			}
			id := "big-" + itoa(i) + "-" + string(noise) + pad
			r.mu.Lock()
			r.index[id] = len(r.produced)
			r.produced = append(r.produced, producedEntry(id))
			r.mu.Unlock()
			r.pending.Add(1)
			r.p.Produce(ctx, &client.Record{Topic: topic, Partition: int32(i % 2), HasPartition: true, Value: []byte(id)}, r.done)
		}
		r.check(t, r.wait(20*time.Second), "produce")
		if n, errs := r.acked("big"); n != 400 {
			t.Fatalf("%d of 400 acknowledged: %.300v", n, errs[0])
		}
		if r.count(0, answered(codeMessageTooLarge, true))+r.count(1, answered(codeMessageTooLarge, true)) == 0 {
			t.Fatalf("the broker never answered MESSAGE_TOO_LARGE\n%s", r.dump())
		}
		r.check(t, r.goesOn("after", 200), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
	})
}

// TestConformance20BrokersVanishToNewAddresses: while
// records are produced, the three brokers vanish one after the other — each
// host gone from the network with no RST and no FIN, its connections left
// open and silent, new connections to it accepted and never answered — and
// each node id comes back at a new port a moment later (a replaced host, a
// rescheduled pod), rejoining the ISR and serving the producer again before
// the next one goes (an operator replacing hosts one at a time). Requests
// written to a vanished broker just hang; its partitions have new leaders.
// The producer refreshes metadata every 500 ms, so it learns each move
// within about 4.5 s (a refresh that meets a silent broker asks the next
// one after a third of its timeout, 4 s); it must then drop the silent
// connection and carry on at the new address. Waiting for the silent
// connection's own timeout instead (RequestTimeout + 2 s = 14 s) outlasts
// the 10 s delivery timeout: the old client leaves records of each
// vanished broker's partitions unresolved for longer than that. Every
// record is delivered, none lost or duplicated. (Replacing the next broker
// after a fixed 4 s instead raced the producer's 4 s metadata attempts:
// the deterministic world found the schedule where each attempt meets the
// broker that just vanished.)
func TestConformance20BrokersVanishToNewAddresses(t *testing.T) {
	world(t, func(t *testing.T) {
		const deliveryTimeout = 10 * time.Second
		r := startT(t, cfg{partitions: 3, client: []client.Option{
			client.RequestTimeout(12 * time.Second), client.DeliveryTimeout(deliveryTimeout),
			client.RetryBackoff(20 * time.Millisecond), client.MetadataMaxAge(500 * time.Millisecond),
		}})
		ctx := context.Background()
		r.produce(ctx, "warm", 300)
		r.check(t, r.wait(10*time.Second), "warm-up")
		old := r.c.Addrs()
		start := time.Now()
		moved := make(chan error, 1)
		// Records are produced from two goroutines: one at a time, so that
		// the order the harness lists them in is the order Produce saw.
		var producing sync.Mutex
		produceTo := func(prefix string, n int, part func(int) int32) {
			producing.Lock()
			defer producing.Unlock()
			r.produceTo(ctx, prefix, n, part)
		}
		go func() {
			for b := range int32(3) {
				if err := r.c.VanishBroker(b); err != nil {
					moved <- err
					return
				}
				time.Sleep(200 * time.Millisecond)
				if _, err := r.c.StartBrokerAt(b, "127.0.0.1:0"); err != nil {
					moved <- err
					return
				}
				if !waitUntil(10*time.Second, func() bool { return r.inAllISRs(b) }) {
					moved <- errors.New("broker " + itoa(int(b)) + " never rejoined the ISRs")
					return
				}
				// An operator replaces the next broker once this one is
				// back in sync and serving clients again: a record to
				// every partition acknowledged after the move (the old
				// client never learns it, and fails here after 10 s).
				probe := "probe" + itoa(int(b))
				produceTo(probe, 3, func(i int) int32 { return int32(i) })
				if !waitUntil(10*time.Second, func() bool { n, _ := r.acked(probe); return n == 3 }) {
					moved <- errors.New("the producer did not learn broker " + itoa(int(b)) + "'s move within 10 s")
					return
				}
				time.Sleep(500 * time.Millisecond)
			}
			moved <- nil
		}()
		const per = 200
		runs := 0
		for done := false; !done; runs++ {
			produceTo("run"+itoa(runs), per, nil)
			select {
			case err := <-moved:
				r.check(t, err, "move brokers")
				done = true
			case <-time.After(100 * time.Millisecond):
			}
		}
		r.check(t, r.wait(2*deliveryTimeout), "produce")
		took := time.Since(start)
		for i, a := range r.c.Addrs() {
			if a == old[i] {
				t.Fatalf("broker %d still at %s", i, a)
			}
		}
		failed := 0
		var errs []error
		for i := range runs {
			n, e := r.acked("run" + itoa(i))
			failed += per - n
			errs = append(errs, e...)
		}
		if failed > 0 {
			t.Fatalf("%d of %d records failed while the brokers moved: %v\n%s", failed, runs*per, errs[:min(3, len(errs))], r.dump())
		}
		r.check(t, r.goesOn("after", 300), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		t.Logf("%d records delivered in %v while every broker vanished and came back elsewhere", runs*per, took)
	})
}

// inAllISRs reports whether broker b is in the ISR of every partition.
func (r *rig) inAllISRs(b int32) bool {
	for p := range int32(3) {
		isr, err := r.c.ISR(topic, p)
		if err != nil || !slices.Contains(isr, b) {
			return false
		}
	}
	return true
}

// TestConformance20BrokersMoveAddress (the polite case: old
// clients pass it too): while 20,000 records are produced, the three
// brokers are stopped and restarted in turn, each coming back with the
// same id on a new port, two of them on the port another one left; the
// old ports refuse or reach another broker. Every record is delivered,
// none lost or duplicated.
func TestConformance20BrokersMoveAddress(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 3, client: []client.Option{client.DeliveryTimeout(20 * time.Second), client.RetryBackoff(20 * time.Millisecond)}})
		ctx := context.Background()
		r.produce(ctx, "warm", 300)
		r.check(t, r.wait(10*time.Second), "warm-up")
		old := r.c.Addrs()
		start := time.Now()
		var wg sync.WaitGroup
		var moveErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Brokers 0 and 1 stop together; 1 comes back on the port 0
			// left (a rescheduled pod taking a freed address), 0 on a fresh
			// one; then 2 comes back on the port 1 left. An old address now
			// reaches another broker, and the id the producer dials there
			// is not the one that answers.
			steps := []struct {
				stop []int32
				to   func() []string // new addresses, by stopped broker
			}{
				{[]int32{0, 1}, func() []string { return []string{"127.0.0.1:0", old[0]} }},
				{[]int32{2}, func() []string { return []string{old[1]} }},
			}
			for _, st := range steps {
				time.Sleep(200 * time.Millisecond)
				for _, b := range st.stop {
					if err := r.c.StopBroker(b); err != nil {
						moveErr = err
						return
					}
				}
				time.Sleep(100 * time.Millisecond)
				to := st.to()
				for i := range st.stop {
					if _, err := r.c.StartBrokerAt(st.stop[i], to[i]); err != nil {
						moveErr = err
						return
					}
				}
			}
		}()
		for i := range 20 {
			r.produce(ctx, "run"+itoa(i), 1000)
			time.Sleep(40 * time.Millisecond)
		}
		wg.Wait()
		r.check(t, moveErr, "move brokers")
		r.check(t, r.wait(30*time.Second), "produce")
		took := time.Since(start)
		now := r.c.Addrs()
		for i, a := range now {
			if a == old[i] {
				t.Fatalf("broker %d still at %s", i, a)
			}
		}
		if now[1] != old[0] || now[2] != old[1] {
			t.Fatalf("brokers did not take their predecessors' addresses: %v, were %v", now, old)
		}
		total := 0
		for i := range 20 {
			n, errs := r.acked("run" + itoa(i))
			if n != 1000 {
				t.Fatalf("run %d: %d of 1000 acknowledged: %v", i, n, errs[:min(3, len(errs))])
			}
			total += n
		}
		r.check(t, r.goesOn("after", 300), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		t.Logf("%d records delivered in %v while every broker moved", total, took)
	})
}
