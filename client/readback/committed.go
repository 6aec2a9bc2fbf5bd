package readback

import "encoding/binary"

// Committed returns what a read_committed consumer reads of log (as
// ReadTopic returns it): the records written outside transactions and
// those of committed transactions, in offset order, without the
// transaction markers. A transaction's records are its producer's
// transactional records since its previous marker on the partition; an
// abort marker hides them, a commit marker shows them, and records whose
// transaction has no marker yet (above the last stable offset) are left
// out.
func Committed(log map[int32][]Record) map[int32][]Record {
	out := make(map[int32][]Record, len(log))
	for part, recs := range log {
		keep := make([]bool, len(recs))
		open := map[int64][]int{} // producer id -> its open transaction's records
		for i, r := range recs {
			switch {
			case r.Control:
				if commit, ok := markerCommits(r.Key); ok {
					for _, j := range open[r.ProducerID] {
						keep[j] = commit
					}
					delete(open, r.ProducerID)
				}
			case r.Transactional:
				open[r.ProducerID] = append(open[r.ProducerID], i)
			default:
				keep[i] = true
			}
		}
		var kept []Record
		for i, r := range recs {
			if keep[i] {
				kept = append(kept, r)
			}
		}
		out[part] = kept
	}
	return out
}

// markerCommits reads a control record's key (version int16, type int16:
// 0 abort, 1 commit); ok is false for any other control record.
func markerCommits(key []byte) (commit, ok bool) {
	if len(key) < 4 {
		return false, false
	}
	switch binary.BigEndian.Uint16(key[2:4]) {
	case 0:
		return false, true
	case 1:
		return true, true
	}
	return false, false
}
