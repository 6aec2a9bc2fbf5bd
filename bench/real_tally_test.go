//go:build linux

package bench

import (
	"regexp"
	"slices"
	"sync"
	"time"
)

// tally collects what a peer reported about each record of a scenario,
// when each acknowledgement arrived, and the peer's fatal errors and log.
// Nothing in it is trusted for the verdict but the partition and offset
// of an acknowledgement, which the read back checks.
type tally struct {
	mu      sync.Mutex
	results map[string]peerOutcome
	acks    map[int32][]time.Time
	fatals  []string
	logs    []string
	dropped int // log lines beyond maxLogs
}

type peerOutcome struct {
	acked     bool
	partition int32
	offset    int64
	reason    string // why it failed
}

const maxLogs = 200

func newTally() *tally {
	return &tally{results: map[string]peerOutcome{}, acks: map[int32][]time.Time{}}
}

// fatalRE finds a fatal error in a peer's record error or log line:
// librdkafka's "Fatal error" / _FATAL, the Java producer's fatal state.
var fatalRE = regexp.MustCompile(`(?i)fatal`)

// outcome records a producer callback's result for the record whose
// value is value: acknowledged at off, or failed with err.
func (t *tally) outcome(value []byte, p int32, off int64, err error) {
	if err != nil {
		t.fail(valueID(value), p, err.Error())
		return
	}
	t.ack(valueID(value), p, off)
}

func (t *tally) ack(id string, p int32, off int64) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.results[id] = peerOutcome{acked: true, partition: p, offset: off}
	t.acks[p] = append(t.acks[p], now)
}

func (t *tally) fail(id string, p int32, reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.results[id] = peerOutcome{partition: p, offset: -1, reason: reason}
	if fatalRE.MatchString(reason) && len(t.fatals) < 5 {
		t.fatals = append(t.fatals, "record error: "+reason)
	}
}

func (t *tally) fatal(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.fatals) < 5 {
		t.fatals = append(t.fatals, reason)
	}
	t.logLocked("FATAL " + reason)
}

func (t *tally) log(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if fatalRE.MatchString(line) && len(t.fatals) < 5 {
		t.fatals = append(t.fatals, "log: "+line)
	}
	t.logLocked(line)
}

func (t *tally) logLocked(line string) {
	if len(t.logs) >= maxLogs {
		t.dropped++
		return
	}
	t.logs = append(t.logs, time.Now().Format("15:04:05.000 ")+line)
}

// logTail returns the last n log lines.
func (t *tally) logTail(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.logs[max(0, len(t.logs)-n):])
}

// acked returns how many acknowledgements partition p has had.
func (t *tally) acked(p int32) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.acks[p])
}

func (t *tally) isFatal() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.fatals) > 0
}

// stall is the longest time one of parts partitions went without an
// acknowledgement between began and ended, the last stretch included (a
// partition that never resumed stalls until ended). Only time after began
// counts: a gap that straddles began counts from began, and one that ended
// before it (a peer slow to warm up) not at all. at is when the worst gap
// began.
func (t *tally) stall(parts int32, began, ended time.Time) (worst time.Duration, part int32, resumed bool, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	part, resumed, at = -1, true, began
	for p := range parts {
		prev := began
		for _, ack := range t.acks[p] {
			if ack.After(ended) {
				break
			}
			if gap := ack.Sub(prev); gap > worst {
				worst, part, at = gap, p, prev
			}
			if ack.After(prev) {
				prev = ack
			}
		}
		if gap := ended.Sub(prev); gap > worst {
			worst, part, at = gap, p, prev
		}
		if ended.Sub(prev) > 5*time.Second {
			resumed = false
		}
	}
	return worst, part, resumed, at
}

// gap is one stretch a partition went without an acknowledgement.
type gap struct {
	part     int32
	from     time.Time
	duration time.Duration
}

// gaps lists, by start, every stretch of at least min between began and
// ended (counted as stall counts them) on the parts partitions: where each
// peer stalled, to compare peers fault by fault.
func (t *tally) gaps(parts int32, began, ended time.Time, min time.Duration) []gap {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []gap
	for p := range parts {
		prev := began
		for _, ack := range t.acks[p] {
			if ack.After(ended) {
				break
			}
			if d := ack.Sub(prev); d >= min {
				out = append(out, gap{p, prev, d})
			}
			if ack.After(prev) {
				prev = ack
			}
		}
		if d := ended.Sub(prev); d >= min {
			out = append(out, gap{p, prev, d})
		}
	}
	slices.SortStableFunc(out, func(a, b gap) int { return a.from.Compare(b.from) })
	return out
}
