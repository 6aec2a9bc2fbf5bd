package idempotence

// forgotSegs bounds the segments of the forgotten run; beyond it the
// oldest are dropped (a loss reaching below them is then undercounted).
const forgotSegs = 64

// forgotSeg is a stretch of the forgotten run: offsets from..to of
// acknowledged batches of ours evicted from the history, told (the caller
// heard they were written) or untold (reported unknown before their
// acknowledgement: their loss is not the caller's to hear, but their
// offsets keep the run contiguous).
type forgotSeg struct {
	from, to int64
	untold   bool
}

// forgotRun is the run of offsets, ours alone and without a gap, of the
// acknowledged batches evicted from the history up to its oldest: what a
// truncation below the whole history took of them can still be told.
type forgotRun struct {
	segs []forgotSeg // in offset order, each starting where the one before ends
}

func (r *forgotRun) empty() bool { return len(r.segs) == 0 }
func (r *forgotRun) from() int64 { return r.segs[0].from }
func (r *forgotRun) to() int64   { return r.segs[len(r.segs)-1].to }

// add extends the run with an evicted batch when it follows the run
// without a gap, else starts a new run (the offsets between were another
// producer's, or not ours to know).
func (r *forgotRun) add(a ackRec) {
	if !r.empty() && a.base == r.to()+1 {
		last := &r.segs[len(r.segs)-1]
		if last.untold == a.untold {
			last.to = a.end()
			return
		}
		r.segs = append(r.segs, forgotSeg{from: a.base, to: a.end(), untold: a.untold})
		if len(r.segs) > forgotSegs {
			r.segs = r.segs[1:]
		}
		return
	}
	r.segs = append(r.segs[:0], forgotSeg{from: a.base, to: a.end(), untold: a.untold})
}

// overlaps reports whether offsets base..end meet the run.
func (r *forgotRun) overlaps(base, end int64) bool {
	return !r.empty() && r.from() <= end && base <= r.to()
}

// cut removes the offsets at and above from (gone with a truncation) and
// returns them as a loss: the range of the told ones and their count.
func (r *forgotRun) cut(tp TopicPartition, from int64) (DataLoss, bool) {
	loss := DataLoss{TP: tp, FromOffset: -1}
	kept := r.segs[:0]
	for _, s := range r.segs {
		if s.to < from {
			kept = append(kept, s)
			continue
		}
		if s.from < from {
			kept = append(kept, forgotSeg{from: s.from, to: from - 1, untold: s.untold})
			s.from = from
		}
		if s.untold {
			continue
		}
		if loss.FromOffset < 0 {
			loss.FromOffset = s.from
		}
		loss.ToOffset = s.to
		loss.Records += s.to - s.from + 1
	}
	r.segs = kept
	return loss, loss.Records > 0
}

// addLoss adds l to loss (From..To widened, records summed).
func addLoss(loss *DataLoss, l DataLoss) {
	if l.Records == 0 {
		return
	}
	if loss.FromOffset < 0 || l.FromOffset < loss.FromOffset {
		loss.FromOffset = l.FromOffset
	}
	loss.ToOffset = max(loss.ToOffset, l.ToOffset)
	loss.Records += l.Records
}
