package idempotence

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func (pr *Producer) clone() *Producer {
	c := *pr
	c.parts = map[TopicPartition]*partition{}
	c.order = nil
	c.events = slices.Clone(pr.events)
	c.woken = maps.Clone(pr.woken)
	for _, p := range pr.order {
		cp := *p
		cp.batches = make([]*batch, len(p.batches))
		cp.byID = make(map[BatchID]*batch, len(p.byID))
		for i, b := range p.batches {
			nb := *b
			cp.batches[i] = &nb
			cp.byID[b.id] = &nb
		}
		cp.history = slices.Clone(p.history)
		cp.forgot.segs = slices.Clone(p.forgot.segs)
		c.parts[p.tp] = &cp
		c.order = append(c.order, &cp)
	}
	return &c
}

func (w *world) clone() *world {
	c := *w
	c.pr = w.pr.clone()
	c.m = w.m.clone()
	c.net = map[TopicPartition][]req{}
	for tp, q := range w.net {
		c.net[tp] = slices.Clone(q)
	}
	c.wb = map[BatchID]*wbatch{}
	for id, b := range w.wb {
		nb := *b
		c.wb[id] = &nb
	}
	c.seqKey = map[TopicPartition]map[numbering]int32{}
	for tp, m := range w.seqKey {
		c.seqKey[tp] = maps.Clone(m)
	}
	c.lastEpoch = maps.Clone(w.lastEpoch)
	c.errSince = maps.Clone(w.errSince)
	c.lastDeliv = maps.Clone(w.lastDeliv)
	c.leaderEpoch = maps.Clone(w.leaderEpoch)
	c.trace = slices.Clone(w.trace)
	c.late = slices.Clone(w.late)
	return &c
}

// explore visits every reachable state of a small configuration: at each
// step any partition with a request in flight may be answered, with any
// fault (the base set, fOK to fRestart, plus extra) while the fault budget
// lasts; a request the broker read before its connection dropped (fLate) is
// processed at the next step. States already seen are not expanded again.
func explore(t *testing.T, perTP []int, faults int, epochPerPID bool, budget int, extra ...fault) int {
	n, _ := exploreCounting(t, perTP, faults, epochPerPID, budget, extra...)
	return n
}

// exploreCounting is explore, also counting (with extra faults) the visited
// states whose history holds a compaction, a late request processed and a
// tail read.
func exploreCounting(t *testing.T, perTP []int, faults int, epochPerPID bool, budget int, extra ...fault) (int, map[string]int) {
	t.Helper()
	type node struct {
		w      *world
		faults int
	}
	cfg := Config{MaxInFlight: 5}
	root := newWorld(t.Fatalf, cfg, epochPerPID, perTP, 0)
	if slices.Contains(extra, fForget) {
		// Only a producer writing records stamped long ago is forgotten
		// while it writes.
		root = newWorldStamped(root, root.now.Add(-48*time.Hour))
	}
	seen := map[string]bool{}
	stack := []node{{root, faults}}
	states := 0
	marks := map[string]int{}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := fmt.Sprint(n.faults, n.w.key())
		if seen[k] {
			continue
		}
		seen[k] = true
		states++
		if states > budget {
			t.Fatalf("state budget %d exceeded", budget)
		}
		if len(extra) > 0 {
			for _, k := range []string{"compacted", "late p", "read tail", "expired every producer"} {
				if slices.ContainsFunc(n.w.trace, func(l string) bool { return strings.Contains(l, k) }) {
					marks[k]++
				}
			}
		}
		// Liveness: from every reachable state, once faults stop, every batch
		// is delivered within a bounded number of answers.
		n.w.settleWithoutFaults(200)
		busy := n.w.busy()
		if len(busy) == 0 && len(n.w.late) > 0 {
			c := n.w.clone()
			c.processLate()
			c.pump()
			stack = append(stack, node{c, n.faults})
			continue
		}
		if len(busy) == 0 {
			n.w.quiesce(true)
			continue
		}
		var all []fault
		for f := fOK; f < numFaults; f++ {
			all = append(all, f)
		}
		all = append(all, extra...)
		for _, i := range busy {
			for _, f := range all {
				left := n.faults
				if f != fOK {
					if left == 0 {
						break // fOK comes first
					}
					left--
				}
				c := n.w.clone()
				c.step(i, f)
				stack = append(stack, node{c, left})
			}
		}
	}
	return states, marks
}

func TestExploreExhaustive(t *testing.T) {
	cases := []struct {
		perTP  []int
		faults int
	}{
		{[]int{4, 4}, 1},
		{[]int{3, 2}, 2},
		{[]int{2, 2}, 3},
		{[]int{4, 1}, 2},
		{[]int{4, 4}, 2},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, epochPerPID := range []bool{false, true} {
		for _, c := range cases {
			name := fmt.Sprintf("batches=%v/faults=%d/epochPerPID=%v", c.perTP, c.faults, epochPerPID)
			t.Run(name, func(t *testing.T) {
				start := time.Now()
				n := explore(t, c.perTP, c.faults, epochPerPID, 2_000_000)
				t.Logf("%d states in %v", n, time.Since(start))
			})
		}
	}
}

// TestExploreLateAndCompaction adds to the exhaustive search a request the
// broker processes after its connection dropped (at the next step, after
// the producer may have resent or renumbered it) and the cleaner removing
// a committed batch — possibly the producer's anchor — without moving the
// log start. Smaller configurations than TestExploreExhaustive: each extra
// fault multiplies the branching (4,400 states, about 8 s under -race on
// the shared machine).
func TestExploreLateAndCompaction(t *testing.T) {
	exploreExtra(t, []exploreCase{{[]int{3, 2}, 2}, {[]int{4}, 3}, {[]int{5, 1}, 2}},
		[]fault{fLate, fCompact}, "compacted", "late p")
}

// exploreCase is one small configuration of an exhaustive search: batches
// per partition and the fault budget.
type exploreCase struct {
	perTP  []int
	faults int
}

// exploreExtra runs the exhaustive search over cases (the first only with
// -short) with the extra faults, and fails a case whose visited states
// never show each of the trace marks wanted.
func exploreExtra(t *testing.T, cases []exploreCase, extra []fault, wanted ...string) {
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		name := fmt.Sprintf("batches=%v/faults=%d", c.perTP, c.faults)
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			n, marks := exploreCounting(t, c.perTP, c.faults, false, 2_000_000, extra...)
			t.Logf("%d states in %v; states after each mark: %v", n, time.Since(start), marks)
			for _, w := range wanted {
				if marks[w] == 0 {
					t.Fatalf("the search never reached %q: %v", w, marks)
				}
			}
		})
	}
}

// TestExploreForgotten adds to the exhaustive search a leader that forgets
// the producer — Kafka's periodic expiry, which drops a producer writing
// records stamped longer ago than producer.id.expiration.ms at any moment —
// and then accepts its next batch at any sequence. The batches are stamped
// two days ago, so the producer sends them one at a time and settles every
// unknown outcome by a read that reaches the leader's log end. (A request
// processed late, after the producer's read, stays out: README's known
// limits.)
func TestExploreForgotten(t *testing.T) {
	exploreExtra(t, []exploreCase{{[]int{3, 2}, 2}, {[]int{4}, 3}, {[]int{2, 2}, 3}},
		[]fault{fForget}, "expired every producer", "read tail")
}

// settleWithoutFaults answers, on a copy, every request without a fault
// until nothing is in flight, and checks that everything was delivered.
func (w *world) settleWithoutFaults(maxSteps int) {
	c := w.clone()
	for i := 0; ; i++ {
		busy := c.busy()
		if len(busy) == 0 && len(c.late) > 0 {
			c.processLate()
			c.pump()
			continue
		}
		if len(busy) == 0 {
			c.quiesce(true)
			return
		}
		if i == maxSteps {
			c.fail("no quiescence after %d fault-free answers: %s", maxSteps, c.dump())
		}
		c.step(busy[i%len(busy)], fOK)
	}
}

// TestRandomWalk drives larger configurations through seeded random faults,
// delivery deadlines, failing tail reads and epoch exhaustion.
func TestRandomWalk(t *testing.T) {
	walks := 3000
	if testing.Short() {
		walks = 50
	}
	// ROLLSAFE_WALKS=1000000 plays more (a larger run on demand);
	// ROLLSAFE_WALK_FIRST=N starts at seed N (ROLLSAFE_WALKS=1 with it
	// replays one walk).
	if n, err := strconv.Atoi(os.Getenv("ROLLSAFE_WALKS")); err == nil && n > 0 {
		walks = n
	}
	first := uint64(1)
	if n, err := strconv.ParseUint(os.Getenv("ROLLSAFE_WALK_FIRST"), 10, 64); err == nil && n > 0 {
		first = n
	}
	goroutines := runtime.NumGoroutine()
	defer func() {
		if n := runtime.NumGoroutine(); n > goroutines {
			t.Errorf("goroutines: %d before, %d after (the package must start none)", goroutines, n)
		}
	}()
	stats := map[string]int{}
	defer func() { t.Logf("%v", stats) }()
	// ROLLSAFE_WALK_TRANSCRIPT=file writes one line per walk: its seed and
	// a hash of everything the machine emitted (events, sends) and of the
	// walk's trace — two builds that behave alike write the same file.
	var sums *os.File
	if path := os.Getenv("ROLLSAFE_WALK_TRANSCRIPT"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sums = f
	}
	for seed := first; seed < first+uint64(walks); seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		// rng2 draws the dimensions added later, so that rng's draws (and
		// every seed's walk without them) stay as they were.
		rng2 := rand.New(rand.NewPCG(seed, 0xdee9))
		parts := 1 + rng.IntN(3)
		perTP := make([]int, parts)
		for i := range perTP {
			perTP[i] = 1 + rng.IntN(10)
		}
		cfg := Config{MaxInFlight: 1 + rng.IntN(5)}
		// Half the walks remember only 1 to 4 acknowledged batches per
		// partition, so truncations reach below the history.
		if rng2.IntN(2) == 0 {
			cfg.history = 1 + rng2.IntN(4)
		}
		startEpoch := int16(0)
		if rng.IntN(4) == 0 {
			startEpoch = math.MaxInt16 - int16(rng.IntN(2))
		}
		w := newWorld(func(f string, a ...any) { t.Fatalf("seed %d: "+f, append([]any{seed}, a...)...) },
			cfg, rng.IntN(2) == 0, perTP, startEpoch)
		deadlines := rng.IntN(3) == 0
		if deadlines {
			// Re-enqueue with deadlines: a fresh world whose batches expire.
			w = newWorldDeadlines(w, rng)
		}
		// Every fifth walk replays historical events: records stamped two
		// days ago, whose producer the leader forgets before every step.
		forgetful := seed%5 == 0
		if forgetful {
			w = newWorldStamped(w, w.now.Add(-48*time.Hour))
			w.forgetful = true
		}
		w.tailErrs = rng.IntN(3)
		truncations := rng.IntN(3) == 0
		// Broker feature levels: one walk in four plays a broker before
		// Kafka 2.3 (no log end in a read); one in three has leader
		// elections leave a trailing high watermark for up to 15 reads.
		// A broker without the log end (before 2.3) also has the sequence
		// rules before 2.5 (pre25: UNKNOWN_PRODUCER_ID to a producer it
		// forgot, at any sequence but 0). In walks with deadlines it
		// does not describe producers either (before 2.8), as a real one:
		// an outcome it cannot settle stays unknown until its deadline
		// (without deadlines the partition would read forever), and only
		// those walks combine it with a forgetting leader.
		w.noEndOffset = rng2.IntN(4) == 0 && (!forgetful || deadlines)
		w.m.pre25 = w.noEndOffset
		w.noDescribe = w.noEndOffset && deadlines
		lagging := rng2.IntN(3) == 0
		if truncations && rng2.IntN(2) == 0 {
			w.deep = rng2 // unclean elections take up to 6 batches
		}
		faults := rng.IntN(14)
		// Every fourth walk purges now and then (the queue, or the queue
		// and what is in flight) and enqueues more batches after it: the
		// producer goes on.
		purges, purgeInFlight := 0, false
		if seed%4 == 1 {
			purges = 1 + rng.IntN(3)
			// A purge of what is in flight leaves sequence holes, closed
			// by a bump after a read: like a deadline, it meets the known
			// limit of a request processed after the read (fLate), so
			// those walks leave late requests out.
			purgeInFlight = rng.IntN(2) == 0
		}
		// Late requests meet that known limit (docs/guarantees.md, "What a tail
		// read can prove") whenever a batch may be renumbered after a read:
		// after a deadline's or a purge's hole, or a truncation. Only walks
		// without those have them (200,000 walks found the limit at seeds
		// 10064, deadlines, and 41779, a truncation, when they had them
		// too). Forgetting walks have them: a late request is processed
		// within the answer timeout of its send (lateReq), and the read
		// that settles an attempt without an answer waits that long (seed
		// 190 found the resend written twice when it did not).
		lateOK := !deadlines && !truncations && !purgeInFlight
		// Every sixth walk deletes and re-creates the topic of a busy
		// partition up to twice (drawn from rng2, only in these walks,
		// so that every other walk stays as it was): a new log without
		// producer state, leader epochs from 0.
		recreations := 0
		if seed%6 == 5 {
			recreations = 1 + rng2.IntN(2)
		}
		var tx hash.Hash
		if sums != nil {
			tx = sha256.New()
			w.tx = tx
		}
		for steps := 0; steps < 2000; steps++ {
			if purges > 0 && rng.IntN(8) == 0 {
				purges--
				queued, inFlight := true, purgeInFlight && rng.IntN(2) == 0
				if inFlight {
					queued = rng.IntN(2) == 0
				}
				w.logf("purge queued=%v in-flight=%v", queued, inFlight)
				w.pr.purge(queued, inFlight)
				w.pump()
				w.enqueueMore(rng)
			}
			busy := w.busy()
			if len(busy) == 0 && len(w.late) > 0 {
				w.processLate()
				w.pump()
				continue
			}
			if len(busy) == 0 {
				if deadlines && !w.pr.Idle() {
					// Let time pass: deadlines expire.
					w.now = w.now.Add(10 * time.Second)
					w.pump()
					continue
				}
				break
			}
			f := fOK
			if faults > 0 && rng.IntN(3) == 0 {
				f = fault(1 + rng.IntN(int(numFaults)-1))
				switch x := rng.IntN(12); {
				case truncations && x == 0:
					f = fTruncate
				case x == 1:
					f = fFatal
				case x == 2:
					f = fTooLarge
				case x == 3:
					f = fMove
				case x == 4:
					f = fLeaderless
				case x == 5 && lateOK:
					f = fLate
				case x == 6:
					f = fCompact
				}
				faults--
			}
			i := busy[rng.IntN(len(busy))]
			if lagging && rng2.IntN(6) == 0 {
				tp := w.tps[i]
				at := rng2.Int64N(w.m.part(tp).hw + 1)
				// (Up to 15 reads: a batch the leader holds above a high
				// watermark that trails for more than maxHeldReads reads
				// fails ErrOutcomeUnknown, the bound of that rule.)
				reads := 1 + rng2.IntN(15)
				w.logf("p%d high watermark trails at %d for %d reads", i, at, reads)
				w.m.lag(tp, at, reads)
			}
			if recreations > 0 && rng2.IntN(10) == 0 {
				recreations--
				w.recreate(i, rng2)
			}
			w.step(i, f)
		}
		if len(w.busy()) != 0 {
			t.Fatalf("seed %d: walk did not finish", seed)
		}
		for _, line := range w.trace {
			for _, k := range []string{"purge", "purged", "expired every producer", "read tail", "bumped", "new producer id", "failed", "delivered", "send", "deadline", "unknown-processed", "restart", "code 45", "code 47", "truncated", "data loss", "split", "fatal", "leader-move", "late p", "compacted", "recreated"} {
				if strings.Contains(line, k) {
					stats[k]++
				}
			}
		}
		w.quiesce(!deadlines && !w.sawTailErr && !w.sawFatal && !w.sawPurge)
		// A truncation is noticed when the partition writes again: one
		// more batch on every partition an election truncated, answered
		// without faults, then every lost delivered record must have been
		// reported, and nothing else.
		if truncations {
			for _, tp := range w.tps {
				if w.truncatedIn(tp) {
					w.enqueueOn(tp, 1)
				}
			}
			for steps := 0; len(w.busy()) > 0; steps++ {
				if steps == 200 {
					t.Fatalf("seed %d: the write after the walk did not finish: %s", seed, w.dump())
				}
				busy := w.busy()
				w.step(busy[steps%len(busy)], fOK)
			}
			// A broker that neither shows its log end nor describes
			// producers proves a truncation only by an acknowledgement
			// landing over the lost offsets (README, known limits): write
			// on until the log reaches past them.
			for more := 0; w.noDescribe; more++ {
				behind := false
				for _, tp := range w.tps {
					if w.m.part(tp).end < w.lostEnd(tp) {
						behind = true
						w.enqueueOn(tp, 1)
					}
				}
				if !behind {
					break
				}
				if more == 50 {
					t.Fatalf("seed %d: the writes after the walk do not reach the lost offsets: %s", seed, w.dump())
				}
				for steps := 0; len(w.busy()) > 0; steps++ {
					if steps == 200 {
						t.Fatalf("seed %d: the write after the walk did not finish: %s", seed, w.dump())
					}
					busy := w.busy()
					w.step(busy[steps%len(busy)], fOK)
				}
			}
			w.quiesce(false)
			if !w.sawTailErr {
				w.checkLossExact()
			}
		}
		if tx != nil {
			for _, line := range w.trace {
				fmt.Fprintln(tx, line)
			}
			fmt.Fprintf(sums, "%d %x %d\n", seed, tx.Sum(nil)[:8], len(w.trace))
		}
	}
}

// enqueueMore adds one to three batches to a random partition, after the
// ones it has.
func (w *world) enqueueMore(rng *rand.Rand) {
	tp := w.tps[rng.IntN(len(w.tps))]
	w.enqueueOn(tp, 1+rng.IntN(3), rng)
}

// enqueueOn enqueues n batches on tp, after its last one, of 1 to 3
// records drawn from rng (one record each without it).
func (w *world) enqueueOn(tp TopicPartition, n int, rng ...*rand.Rand) {
	last := -1.0
	for _, b := range w.wb {
		if b.tp == tp && b.idx+b.width > last {
			last = b.idx + b.width
		}
	}
	for range n {
		w.nextID++
		recs := int32(1)
		if len(rng) > 0 {
			recs = int32(1 + rng[0].IntN(3))
		}
		w.wb[w.nextID] = &wbatch{tp: tp, idx: last, width: 1, records: recs, offset: -2}
		w.ids = append(w.ids, w.nextID)
		var deadline time.Time
		if w.noDescribe {
			// Where an outcome may stay unknown until its deadline, every
			// batch has one.
			deadline = w.now.Add(20 * time.Second)
		}
		w.pr.enqueue(tp, w.nextID, recs, deadline, w.stamp)
		last++
	}
	w.pump()
}

// newWorldStamped rebuilds w with the same batches (and deadlines), each
// stamped at stamp.
func newWorldStamped(w *world, stamp time.Time) *world {
	nw := newWorld(w.fatalf, w.pr.cfg, w.m.epochPerPID, nil, w.pr.epoch)
	nw.tailErrs = w.tailErrs
	nw.stamp = stamp
	for _, tp := range w.tps {
		nw.tps = append(nw.tps, tp)
		nw.seqKey[tp] = map[numbering]int32{}
		nw.lastDeliv[tp] = -1
		nw.pr.leaderChangedIn(tp, 1, 0, 1)
	}
	for _, id := range w.ids {
		b := w.wb[id]
		nw.wb[id] = &wbatch{tp: b.tp, idx: b.idx, width: b.width, records: b.records, offset: -2}
		nw.ids = append(nw.ids, id)
		nw.pr.enqueue(b.tp, id, b.records, w.pr.parts[b.tp].byID[id].deadline, stamp)
	}
	nw.pump()
	return nw
}

// newWorldDeadlines rebuilds w's configuration with delivery deadlines.
func newWorldDeadlines(w *world, rng *rand.Rand) *world {
	perTP := make([]int, len(w.tps))
	for _, b := range w.wb {
		perTP[b.tp.Partition]++
	}
	nw := newWorld(w.fatalf, w.pr.cfg, w.m.epochPerPID, nil, w.pr.epoch)
	id := BatchID(1)
	for i, n := range perTP {
		tp := TopicPartition{Topic: "t", Partition: int32(i)}
		nw.tps = append(nw.tps, tp)
		nw.seqKey[tp] = map[numbering]int32{}
		nw.lastDeliv[tp] = -1
		nw.pr.leaderChangedIn(tp, 1, 0, 1)
		for j := 0; j < n; j++ {
			recs := int32(1 + rng.IntN(3))
			nw.wb[id] = &wbatch{tp: tp, idx: float64(j), width: 1, records: recs, offset: -2}
			nw.ids = append(nw.ids, id)
			nw.pr.enqueue(tp, id, recs, nw.now.Add(time.Duration(1+rng.IntN(20))*time.Second), time.Time{})
			id++
		}
	}
	nw.pump()
	return nw
}
