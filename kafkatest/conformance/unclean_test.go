package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// The stale phase: records acknowledged by the leader alone, which the
// unclean election then loses. Each group is flushed on its own, so the
// phase is at most 2 batches a group — within the 64 acknowledged batches
// a partition remembers (idempotence/README.md, "Known limits").
const (
	staleGroups   = 25
	perGroup      = 20
	warmGroups    = 5
	afterGroups   = 10
	uncleanLeader = int32(1) // the leader that acknowledges alone, then dies
	staleReplica  = int32(2) // the follower that falls out of the ISR and is elected uncleanly
)

// uncleanCase is one topic of TestUncleanElection and its producer.
type uncleanCase struct {
	topic string
	warm  bool // the stale replica copied records of the producer before it stopped
	stop  bool // the producer runs with StopOnDataLoss
	l     *load
}

// TestUncleanElection: acknowledged records lost by a real unclean leader
// election. Each topic has one partition on two replicas (leader 1,
// follower 2), min.insync.replicas=1 and unclean.leader.election.enable.
// The follower is frozen until it drops out of the ISR; the leader alone
// acknowledges (acks=all) 500 records; then the leader is killed, the
// stale follower comes back and is elected uncleanly, and the old leader
// restarts and truncates its log to the new leader's. Producing again, the
// producer must report through DataLoss exactly the offsets the read-back
// finds missing — nothing else missing, no duplicate, no reordering — and
// go on producing (or, with StopOnDataLoss, fail what follows as stopped,
// none of it written). Three topics play it at once: a follower that had
// copied the producer's records before it stopped ("warm"), one that never
// saw the producer ("cold"), and the warm case under StopOnDataLoss.
// (The cluster's three nodes are also its KRaft voters: the follower is
// frozen rather than killed, so a majority of voters stays up while the
// leader is dead.)
func TestUncleanElection(t *testing.T) { playUncleanElection(t, cluster(t, uncleanTopics...)) }

// uncleanTopics are TestUncleanElection's topics, one per case.
var uncleanTopics = []string{"unclean-warm", "unclean-cold", "unclean-stop"}

func playUncleanElection(t *testing.T, c *kafkatest.Cluster) {
	cases := []*uncleanCase{
		{topic: uncleanTopics[0], warm: true},
		{topic: uncleanTopics[1]},
		{topic: uncleanTopics[2], warm: true, stop: true},
	}
	ctx := ctxFor(t, 5*time.Minute)
	for _, uc := range cases {
		err := c.CreateTopic(ctx, kafkatest.Topic{Name: uc.topic, Assignment: [][]int32{{uncleanLeader, staleReplica}},
			Configs: map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "true"}})
		if err != nil {
			t.Fatal(err)
		}
		var opts []client.Option
		if uc.stop {
			opts = append(opts, client.StopOnDataLoss())
		}
		uc.l = newLoad(t, c, uc.topic, 1, nil, opts...)
		if uc.warm {
			uc.l.groups(ctx, "warm", warmGroups)
		}
	}
	isr := func(want ...int32) {
		t.Helper()
		for _, uc := range cases {
			err := c.WaitFor(ctx, uc.topic, fmt.Sprintf("led by %d with ISR %v", want[0], want), func(p kafkatest.Partition) bool {
				return p.Leader == want[0] && slices.Equal(slices.Sorted(slices.Values(p.ISR)), slices.Sorted(slices.Values(want)))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	isr(uncleanLeader, staleReplica)

	// The follower stops (frozen): the controller fences it and shrinks
	// every ISR to the leader alone.
	if err := c.Pause(staleReplica); err != nil {
		t.Fatal(err)
	}
	frozen := time.Now()
	isr(uncleanLeader)
	t.Logf("broker %d frozen; ISR shrank to [%d] after %v", staleReplica, uncleanLeader, time.Since(frozen).Round(time.Millisecond))
	for _, uc := range cases {
		uc.l.groups(ctx, "stale", staleGroups)
		if n := uc.l.ackedWith("stale-"); n != staleGroups*perGroup {
			t.Fatalf("%s: %d of %d records acknowledged by the lone leader (%v)", uc.topic, n, staleGroups*perGroup, uc.l.errs)
		}
	}

	// The leader dies; only the stale follower comes back, and is elected.
	if err := c.Kill(uncleanLeader); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(staleReplica); err != nil {
		t.Fatal(err)
	}
	for _, uc := range cases {
		if err := c.ElectUncleanWait(ctx, uc.topic, 0, staleReplica); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("broker %d killed; broker %d resumed and elected uncleanly", uncleanLeader, staleReplica)
	if err := c.Start(ctx, uncleanLeader); err != nil {
		t.Fatal(err)
	}
	isr(staleReplica, uncleanLeader) // the old leader truncated to the new one's log
	t.Logf("broker %d restarted and follows broker %d", uncleanLeader, staleReplica)

	for _, uc := range cases {
		uc.l.groups(ctx, "after", afterGroups)
	}
	for _, uc := range cases {
		t.Run(uc.topic, func(t *testing.T) { uc.check(t, c) })
	}
}

// groups produces n groups of perGroup records "<prefix>-<i>", flushing
// after each group, and waits for every callback.
func (l *load) groups(ctx context.Context, prefix string, n int) {
	l.t.Helper()
	l.prefix = prefix
	for range n {
		for range perGroup {
			l.produceOne(ctx)
		}
		if err := l.p.Flush(ctx); err != nil {
			l.t.Fatalf("%s: flush %s: %v", l.topic, prefix, err)
		}
	}
	l.pending.Wait()
}

// ackedWith counts the acknowledged records whose id starts with prefix.
func (l *load) ackedWith(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, pr := range l.produced {
		if pr.Acked && strings.HasPrefix(pr.ID, prefix) {
			n++
		}
	}
	return n
}

// check reads uc's topic back and holds the producer's DataLoss events
// against it: the offsets reported lost are exactly the offsets of the
// acknowledged records missing from the log, and those are exactly the
// records acknowledged by the lone leader.
func (uc *uncleanCase) check(t *testing.T, c *kafkatest.Cluster) {
	l := uc.l
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := l.p.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	log, err := readback.ReadTopic(ctx, c.Addrs(), uc.topic)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	id := func(r readback.Record) string {
		v, _, _ := bytes.Cut(r.Value, []byte("|"))
		return string(v)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.h.mu.Lock()
	losses := slices.Clone(l.h.losses)
	l.h.mu.Unlock()
	rep := readback.Check(log, l.produced, id)
	t.Logf("%s: %v; data-loss events %v; %v", uc.topic, rep, losses, l.h)

	// What the read-back finds missing, by the offset it was acknowledged at.
	missing := map[int64]string{}
	for _, k := range rep.LostIDs {
		missing[l.produced[l.index[k]].Offset] = k
	}
	reported := map[int64]bool{}
	var records int64
	for _, d := range losses {
		if d.Topic != uc.topic || d.Partition != 0 || d.FromOffset > d.ToOffset {
			t.Errorf("malformed data-loss event %v", d)
			continue
		}
		for off := d.FromOffset; off <= d.ToOffset; off++ {
			if reported[off] {
				t.Errorf("offset %d reported lost twice (%v)", off, losses)
			}
			reported[off] = true
		}
		records += d.Records
	}
	if len(missing) == 0 {
		t.Fatalf("the unclean election lost no acknowledged record: the scenario did not happen (%v)", rep)
	}
	for off, k := range missing {
		if !reported[off] {
			t.Errorf("%q acknowledged at offset %d is missing from the log, and no DataLoss event names it", k, off)
		}
	}
	for off := range reported {
		if _, ok := missing[off]; !ok {
			t.Errorf("offset %d reported lost, but no acknowledged record missing from the log was there", off)
		}
	}
	if records != int64(len(missing)) {
		t.Errorf("data-loss events count %d records, the read-back misses %d", records, len(missing))
	}
	// The loss is exactly the lone leader's acknowledgements. (Records
	// written after the election took some of the lost offsets.)
	lostIDs := map[string]bool{}
	for _, k := range rep.LostIDs {
		lostIDs[k] = true
	}
	for i, pr := range l.produced {
		lost := lostIDs[pr.ID]
		stale := strings.HasPrefix(pr.ID, "stale-")
		if pr.Acked && lost != stale {
			t.Errorf("record #%d %q acknowledged at %d: lost %v", i, pr.ID, pr.Offset, lost)
		}
	}
	if rep.Duplicates != 0 || rep.Reordered != 0 || rep.WrongOffset != 0 || rep.FailedPresent != 0 {
		t.Errorf("read back: %v\n%v", rep, rep.Problems)
	}
	// After the loss: written on (every record acknowledged and in the
	// log), or with StopOnDataLoss failed as stopped, none of it written.
	for _, pr := range l.produced {
		if !strings.HasPrefix(pr.ID, "after-") {
			continue
		}
		err := l.errs[pr.ID]
		switch {
		case uc.stop && !errors.Is(err, client.ErrPartitionStopped):
			t.Errorf("%q after the loss under StopOnDataLoss: acked %v, err %v; want ErrPartitionStopped", pr.ID, pr.Acked, err)
		case uc.stop && !errors.Is(err, client.ErrNotWritten):
			t.Errorf("%q failed %v, which does not say it is not written", pr.ID, err)
		case !uc.stop && !pr.Acked:
			t.Errorf("%q after the loss not acknowledged: %v", pr.ID, err)
		}
	}
}
