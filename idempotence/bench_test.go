package idempotence

import (
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// BenchmarkSteadyState measures one batch's round trip (Enqueue, Sendable,
// Response, Events) on a partition with a backlog of queued batches.
func BenchmarkSteadyState(b *testing.B) {
	for _, backlog := range []int{0, 1000} {
		b.Run("backlog="+itoa(backlog), func(b *testing.B) {
			pr := New(Config{})
			now := time.Unix(1, 0)
			pr.setIdentity(1, 0)
			pr.leaderChanged(tp0, 1, 0)
			id := BatchID(1)
			for ; id <= BatchID(backlog); id++ {
				pr.enqueue(tp0, id, 10, now.Add(time.Hour), time.Time{})
			}
			var off int64
			var inflight []BatchID
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pr.enqueue(tp0, id, 10, now.Add(time.Hour), time.Time{})
				id++
				for _, s := range pr.sendable(tp0, now) {
					inflight = append(inflight, s.ID)
				}
				pr.respond(tp0, inflight[0], Response{Code: kafkaerr.None, BaseOffset: off, LogStartOffset: -1}, now)
				inflight = inflight[1:]
				off += 10
				pr.takeEvents()
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
