package client

import (
	"time"

	"github.com/rollsafe/rollsafe/idempotence"
)

// A partition whose produce attempts keep failing (a min.insync.replicas
// outage, an unreachable leader) waits out growing backoffs without any
// record failing until its delivery timeout. The loop says so in the log:
// a warning once the failures have lasted failWarnAfter — a leader moving
// takes less and logs nothing —, again every failWarnEvery while they go
// on, and an Info line when the partition is acknowledged again.
const (
	failWarnAfter = 5 * time.Second
	failWarnEvery = 30 * time.Second
)

// failStreak is a partition's run of failed attempts.
type failStreak struct {
	since    time.Time // the first failure
	attempts int
	warned   time.Time // the last warning, zero if none
}

// attemptFailed calls the AttemptFailed hook and counts the failure into
// the partition's streak, warning when it has lasted.
func (l *loop) attemptFailed(o outgoing, broker int32, err error) {
	p := l.p
	p.hooks.AttemptFailed(o.tp.Topic, o.tp.Partition, broker, o.n, err)
	now := time.Now()
	f := l.failing[o.tp]
	if f == nil {
		f = &failStreak{since: now}
		l.failing[o.tp] = f
	}
	f.attempts++
	if now.Sub(f.since) < failWarnAfter || (!f.warned.IsZero() && now.Sub(f.warned) < failWarnEvery) {
		return
	}
	f.warned = now
	p.log.Warn("rollsafe: produce attempts to a partition keep failing", "topic", o.tp.Topic, "partition", o.tp.Partition,
		"broker", broker, "attempts", f.attempts, "for", now.Sub(f.since).Round(time.Millisecond), "err", err)
}

// acknowledged ends tp's streak of failures, if it has one.
func (l *loop) acknowledged(tp idempotence.TopicPartition) {
	f := l.failing[tp]
	if f == nil {
		return
	}
	delete(l.failing, tp)
	if !f.warned.IsZero() {
		l.p.log.Info("rollsafe: partition acknowledged again", "topic", tp.Topic, "partition", tp.Partition,
			"failed_attempts", f.attempts, "after", time.Since(f.since).Round(time.Millisecond))
	}
}
