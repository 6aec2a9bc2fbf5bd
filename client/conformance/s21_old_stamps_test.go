package conformance

import (
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
)

// TestConformance21OldTimestampsForgotten: Kafka expires a producer's
// state by the largest record timestamp of its last batch
// (producer.id.expiration.ms, a day by default), and a broker loading its
// producer-state snapshot drops every such producer. Events replayed with
// their historical timestamps are therefore forgotten at a restart, and the
// broker then accepts the producer's next batch at any sequence: resending
// a batch whose first attempt was appended writes it twice. Found on real
// Kafka (rollsafe demo -kafka, fixture events stamped 2024): 254
// duplicates after the seed's roll. A batch is appended and left
// unanswered (records stamped long ago go one batch at a time); the leader
// restarts alone; its retry must resolve through the log, not through the
// broker's (forgotten) sequence state.
func TestConformance21OldTimestampsForgotten(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, client: []client.Option{client.BatchBytes(512), client.Linger(0)}})
		r.age = 48 * time.Hour
		r.unansweredThenRestartAlone(t, 1)
		r.check(t, r.goesOn("after", 200), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		if r.h.tailReads(0) == 0 {
			t.Fatal("no tail read resolved the unanswered batches")
		}
	})
}
