package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance29TopicRecreated: a topic deleted and
// created again under the same name is a new topic — a new topic id
// (Metadata v10+), empty logs, no producer state, leader epochs from 0 —
// possibly with another partition count. The producer knew leader epochs
// above 0 (each partition's leader moved once) and ignored the lower ones,
// so every record to the new topic waited out its delivery deadline.
//
// Every record produced once the producer's metadata shows the new topic
// must be acknowledged, once each, in order, at its offset in the new
// topic's log (read back), and nothing of the old topic may be in it;
// records produced at the re-creation end exact (acknowledged there, absent
// if reported not written, or reported unknown). Played with topic ids, and on
// brokers without them (before Kafka 2.8): there the re-creation shows as
// the topic missing from a metadata answer and then back, or as leader
// epochs going backwards with another partition count.
func TestConformance29TopicRecreated(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   bool
		gap   bool  // the producer's metadata sees the topic missing in between
		parts int32 // the new topic's partition count
	}{
		{name: "ids/same-count", ids: true, parts: 3},
		{name: "ids/fewer", ids: true, parts: 2},
		{name: "ids/more", ids: true, parts: 5},
		{name: "no-ids/missing-between", gap: true, parts: 3},
		{name: "no-ids/count-changed", parts: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			world(t, func(t *testing.T) {
				var simOpts []sim.Option
				if !tc.ids {
					simOpts = append(simOpts, sim.WithoutTopicIDs())
				}
				r := startT(t, cfg{partitions: 3, sim: simOpts, client: []client.Option{
					client.MetadataMaxAge(100 * time.Millisecond), client.DeliveryTimeout(20 * time.Second),
				}})
				ctx := context.Background()
				for p := int32(0); p < 3; p++ {
					leader, _ := r.c.Leader(topic, p)
					r.check(t, r.c.MoveLeader(topic, p, r.otherInSync(t, p, leader)), "leader move")
				}
				r.produce(ctx, "old", 30)
				r.check(t, r.wait(30*time.Second), "old records")
				if n, errs := r.acked("old"); n != 30 {
					t.Fatalf("%d of 30 old records acknowledged: %v", n, errs)
				}

				r.check(t, r.c.DeleteTopic(topic), "delete")
				if tc.gap {
					// Metadata refreshes (every 100 ms) see it gone.
					time.Sleep(time.Second)
				}
				r.check(t, r.c.CreateTopic(topic, tc.parts, 3), "create")
				for p := int32(0); p < tc.parts; p++ {
					if _, epoch := r.c.Leader(topic, p); epoch != 0 {
						t.Fatalf("partition %d of the new topic at leader epoch %d, want 0", p, epoch)
					}
				}

				// Records produced before the producer's metadata shows the
				// new topic go where the old one was (its partition count,
				// its leaders): each ends exact — acknowledged, not written
				// (absent), or outcome unknown (in flight at the re-creation)
				// — which the read-back checks.
				r.produce(ctx, "race", 30)
				r.check(t, r.wait(60*time.Second), "records produced at the re-creation")
				_, unknown, notWritten := r.outcomes(t, "race")
				t.Logf("at the re-creation: %d unknown, %d not written", unknown, notWritten)

				r.produce(ctx, "new", 30)
				r.check(t, r.wait(60*time.Second), "new records")
				if n, errs := r.acked("new"); n != 30 {
					t.Fatalf("%d of 30 records to the re-created topic acknowledged: %v\n%s", n, errs[:min(len(errs), 5)], r.dump())
				}
				if losses := r.dataLosses(); len(losses) != 0 {
					t.Fatalf("data loss reported for a deleted topic: %v", losses)
				}

				// The old records went with the old topic: the read-back
				// checks the new one against what was produced to it.
				r.forget(func(pr readback.Produced) bool { return strings.HasPrefix(pr.ID, "old-") })
				_, err := r.verify()
				r.check(t, err, "read-back")
				if old := r.inLog(t, "old"); len(old) != 0 {
					t.Fatalf("%d old records in the new topic's log", len(old))
				}
				if n, _ := r.p.Buffered(); n != 0 {
					t.Fatalf("%d records still buffered", n)
				}
			})
		})
	}
}
