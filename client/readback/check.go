package readback

import "fmt"

// Produced is what a producer reported for one record, listed in the order
// the records were handed to the producer.
type Produced struct {
	ID        string // identifies the record in the log (see Check's id)
	Partition int32
	Offset    int64 // reported offset when Acked; -1 if the producer did not know it
	Acked     bool
	// NotWritten: the producer said the record is certainly not in the log.
	NotWritten bool
}

// Report is the verdict of Check. Lost, Duplicates, Reordered, WrongOffset
// and FailedPresent must all be 0 for a correct producer (Lost may be
// non-zero only where the cluster itself truncated acknowledged records).
type Report struct {
	Acked         int
	Failed        int
	InLog         int // records in the log that Check could attribute
	Lost          int // acknowledged, not in the log
	LostIDs       []string
	Duplicates    int // extra copies of a record in the log
	Reordered     int // records that stand before one produced earlier to the same partition
	WrongOffset   int // acknowledged at one place, found at another
	FailedPresent int // reported not written, yet in the log
	Problems      []string
}

// OK reports whether the log holds exactly what the producer acknowledged,
// once each, in order.
func (r Report) OK() bool {
	return r.Lost == 0 && r.Duplicates == 0 && r.Reordered == 0 && r.WrongOffset == 0 && r.FailedPresent == 0
}

func (r Report) String() string {
	return fmt.Sprintf("acked %d failed %d in-log %d: lost %d, duplicates %d, reordered %d, wrong offset %d, failed-but-present %d",
		r.Acked, r.Failed, r.InLog, r.Lost, r.Duplicates, r.Reordered, r.WrongOffset, r.FailedPresent)
}

const maxProblems = 20

func (r *Report) problem(format string, args ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check compares the log with what the producer reported. id names a log
// record ("" for records that are not the producer's, which are ignored).
func Check(log map[int32][]Record, produced []Produced, id func(Record) string) Report {
	var rep Report
	type place struct {
		partition int32
		offset    int64
	}
	found := make(map[string][]place)
	for p, recs := range log {
		for _, r := range recs {
			k := id(r)
			if k == "" {
				continue
			}
			rep.InLog++
			if len(found[k]) > 0 {
				rep.Duplicates++
				rep.problem("duplicate %q at %d/%d (first at %d/%d)", k, p, r.Offset, found[k][0].partition, found[k][0].offset)
			}
			found[k] = append(found[k], place{p, r.Offset})
		}
	}
	order := make(map[string]int, len(produced))
	for i, pr := range produced {
		order[pr.ID] = i
		where := found[pr.ID]
		switch {
		case pr.Acked:
			rep.Acked++
			if len(where) == 0 {
				rep.Lost++
				rep.LostIDs = append(rep.LostIDs, pr.ID)
				rep.problem("lost %q (acknowledged at %d/%d)", pr.ID, pr.Partition, pr.Offset)
			} else if where[0].partition != pr.Partition || (pr.Offset >= 0 && where[0].offset != pr.Offset) {
				rep.WrongOffset++
				rep.problem("%q acknowledged at %d/%d, found at %d/%d", pr.ID, pr.Partition, pr.Offset, where[0].partition, where[0].offset)
			}
		default:
			rep.Failed++
			if pr.NotWritten && len(where) > 0 {
				rep.FailedPresent++
				rep.problem("%q reported not written, found at %d/%d", pr.ID, where[0].partition, where[0].offset)
			}
		}
	}
	for p, recs := range log {
		last, lastID := -1, ""
		for _, r := range recs {
			k := id(r)
			i, ok := order[k]
			if !ok {
				continue
			}
			if i < last {
				rep.Reordered++
				rep.problem("partition %d: %q (produced #%d) stands after %q (produced #%d)", p, k, i, lastID, last)
			}
			if i > last {
				last, lastID = i, k
			}
		}
	}
	return rep
}
