package sim

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// completedTxn is a transaction whose marker a replica holds: its
// producer, the offsets of its first batch and of its marker here, and
// whether it was aborted.
type completedTxn struct {
	pid         int64
	first, last int64
	aborted     bool
}

// lastStable is the replica's last stable offset given its high watermark
// hw, as Kafka computes it: below the first offset of every transaction
// still open here and of every completed one whose marker is not yet
// below the high watermark, and never above hw.
func (r *replica) lastStable(hw int64) int64 {
	lso := hw
	for _, pe := range r.pstate {
		if pe.txnFirst >= 0 && pe.txnFirst < lso {
			lso = pe.txnFirst
		}
	}
	for i := len(r.done) - 1; i >= 0 && r.done[i].last >= hw; i-- {
		lso = min(lso, r.done[i].first)
	}
	return lso
}

// abortedIn lists the aborted transactions a read_committed fetch from
// offset from that returned records up to (not including) offset to must
// skip: those whose marker is at from or later and whose first batch is
// before to, as Kafka's transaction index lookup collects them, in marker
// order. It is never nil: read_committed answers carry a list.
func (r *replica) abortedIn(from, to int64) []kmsg.FetchResponseTopicPartitionAbortedTransaction {
	out := []kmsg.FetchResponseTopicPartitionAbortedTransaction{}
	if to <= from {
		return out
	}
	i := sort.Search(len(r.done), func(i int) bool { return r.done[i].last >= from })
	for ; i < len(r.done); i++ {
		d := r.done[i]
		if d.aborted && d.first < to {
			a := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
			a.ProducerID, a.FirstOffset = d.pid, d.first
			out = append(out, a)
		}
	}
	return out
}
