package sim

import (
	"encoding/binary"
	"sort"
	"time"
)

// entry is one record batch in a replica's log. Entries are immutable once
// appended and shared between replicas: a follower's copy is the same entry,
// so comparing pointers finds where two logs diverge.
type entry struct {
	base        int64
	h           batchHeader
	leaderEpoch int32
	raw         []byte // as produced, base offset and leader epoch rewritten
	appendedAt  time.Time
}

func (e *entry) end() int64 { return e.base + e.h.count() }

// newEntry copies raw and rewrites its base offset and partition leader
// epoch, the only fields Kafka rewrites (the CRC does not cover them).
func newEntry(raw []byte, h batchHeader, base int64, leaderEpoch int32, now time.Time) *entry {
	b := make([]byte, len(raw))
	copy(b, raw)
	binary.BigEndian.PutUint64(b[0:], uint64(base))
	binary.BigEndian.PutUint32(b[12:], uint32(leaderEpoch))
	return &entry{base: base, h: h, leaderEpoch: leaderEpoch, raw: b, appendedAt: now}
}

// replica is one broker's copy of one partition: its log and its own
// producer-state table.
type replica struct {
	broker  int32
	entries []*entry
	start   int64 // log start offset
	leo     int64 // log end offset
	// hw is this replica's own high watermark: the partition's on the
	// leader; on a follower, the leader's as of its last fetch (capped by
	// its log end), which is what it serves reads up to.
	hw     int64
	pstate producerTable
	// done are the transactions completed here, in the order of their
	// markers (Kafka's transaction index, with the committed ones too,
	// which hold the last stable offset until their marker is below the
	// high watermark).
	done []completedTxn
}

func newReplica(broker int32) *replica {
	return &replica{broker: broker, pstate: producerTable{}}
}

func (r *replica) append(e *entry) {
	r.entries = append(r.entries, e)
	r.leo = e.end()
	r.track(e)
}

// track applies e to the producer state and the completed transactions.
func (r *replica) track(e *entry) {
	if done, ok := r.pstate.add(e); ok {
		r.done = append(r.done, done)
	}
}

// find returns the index of the first entry whose end is after offset.
func (r *replica) find(offset int64) int {
	return sort.Search(len(r.entries), func(i int) bool { return r.entries[i].end() > offset })
}

// commonPrefix is how many leading entries r shares with l.
func (r *replica) commonPrefix(l *replica) int {
	n := min(len(r.entries), len(l.entries))
	if n == 0 || r.entries[n-1] == l.entries[n-1] {
		return n
	}
	return sort.Search(n, func(i int) bool { return r.entries[i] != l.entries[i] })
}

// truncate drops entries from index i on, returns the offsets dropped
// ([from, to), from == to if none) and rebuilds producer state from the
// remaining log with the full window.
func (r *replica) truncate(i int) OffsetRange {
	if i >= len(r.entries) {
		return OffsetRange{From: r.leo, To: r.leo}
	}
	lost := OffsetRange{From: r.entries[i].base, To: r.leo}
	clear(r.entries[i:])
	r.entries = r.entries[:i]
	r.leo = lost.From
	r.hw = min(r.hw, r.leo)
	r.rebuild(false)
	return lost
}

// truncateTo drops every entry ending after offset.
func (r *replica) truncateTo(offset int64) OffsetRange {
	i := sort.Search(len(r.entries), func(i int) bool { return r.entries[i].end() > offset })
	return r.truncate(i)
}

// rebuild replays the log into a fresh producer-state table; snapshot keeps
// only each producer's last batch, as loading a Kafka snapshot does.
func (r *replica) rebuild(snapshot bool) {
	r.pstate = producerTable{}
	r.done = nil
	for _, e := range r.entries {
		r.track(e)
	}
	if snapshot {
		r.pstate.shrink()
	}
}

// epochEnd answers OffsetForLeaderEpoch: the largest epoch <= epoch found in
// the log and the offset where the next epoch starts (the log end if none).
// current is the partition's leader epoch.
func (r *replica) epochEnd(epoch, current int32) (int32, int64) {
	if epoch == current {
		return current, r.leo
	}
	if epoch > current {
		return -1, -1
	}
	i := sort.Search(len(r.entries), func(i int) bool { return r.entries[i].leaderEpoch > epoch })
	end := r.leo
	if i < len(r.entries) {
		end = r.entries[i].base
	}
	if i == 0 {
		return -1, -1
	}
	return r.entries[i-1].leaderEpoch, end
}

// OffsetRange is a half-open range of offsets [From, To).
type OffsetRange struct {
	From, To int64
}

// Len is the number of offsets in the range.
func (o OffsetRange) Len() int64 { return o.To - o.From }
