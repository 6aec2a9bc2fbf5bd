package idempotence

import (
	"fmt"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Acknowledgements out of send order, then a truncation below the whole
// history: a batch answered REQUEST_TIMED_OUT (appended, not yet
// replicated) while the four pipelined behind it are acknowledged, then
// deduplicated on its resend at its original, lower offset. The loss below
// the history still starts where the log now ends: every acknowledged
// record of ours from offset 10 on is reported, the late one included.
func TestLossBelowTheHistoryAckedOutOfOrder(t *testing.T) {
	r := newRig(t, Config{})
	n := historySize + 10
	off := int64(10)
	var bases []int64
	for i := 1; i <= n; i++ {
		bases = append(bases, off)
		off += 2
	}
	for i := 1; i <= n; {
		if i != 3 {
			r.enqueue(tp0, 2, BatchID(i))
			r.send(tp0)
			r.ok(tp0, BatchID(i), bases[i-1])
			i++
			continue
		}
		// Batches 3..7 in flight; 3 times out, 4..7 are acknowledged.
		for j := 3; j <= 7; j++ {
			r.enqueue(tp0, 2, BatchID(j))
		}
		r.sendsAre(r.send(tp0), "3@3/4", "4@3/6", "5@3/8", "6@3/10", "7@3/12")
		r.answer(tp0, 3, kafkaerr.RequestTimedOut, MaybeAppended, -1)
		for j := 4; j <= 7; j++ {
			r.ok(tp0, BatchID(j), bases[j-1])
		}
		r.later()
		r.sendsAre(r.send(tp0), "3@3/4")
		r.ok(tp0, 3, bases[2]) // the broker's copy: its original offset
		i = 8
	}
	r.take()
	r.enqueue(tp0, 2, BatchID(n+1))
	r.send(tp0)
	r.answer(tp0, BatchID(n+1), kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
	// The log now ends at 10: every batch of ours is gone.
	dl := readUntilLoss(r, Tail{LogStartOffset: 0, HighWatermark: 10, LogEndOffset: 10, Described: true})
	r.is(len(dl) == 1, "no data loss reported")
	want := DataLoss{TP: tp0, FromOffset: 10, ToOffset: bases[n-1] + 1, Records: int64(2 * n)}
	r.is(dl[0] == want, "data loss %v, want %v", dl[0], want)
}

// The truncation is found by one large batch written where the lost ones
// were, ending past the oldest batch the history remembers: the read's
// high watermark is above that batch, yet every offset of ours from where
// the large batch starts is gone (the high watermark is the producer's
// own rewrite, not proof the older records are there).
func TestLossBelowTheHistoryLargeRewrite(t *testing.T) {
	r := newRig(t, Config{})
	n := historySize + 10
	bases := ackTwoRecordBatches(r, n, false)
	oldest := bases[n-historySize]
	big := int32(oldest-20) + 10 // from 20 to past the oldest remembered
	r.enqueue(tp0, big, BatchID(n+1))
	r.sendsAre(r.send(tp0), fmt.Sprintf("%d@3/%d", n+1, 2*n))
	r.ok(tp0, BatchID(n+1), 20)
	end := 20 + int64(big)
	dl := readUntilLoss(r, Tail{LogStartOffset: 0, HighWatermark: end, LogEndOffset: end, Described: true,
		Batches:   []TailBatch{{BaseOffset: 20, ProducerID: 1000, Epoch: 3, BaseSequence: int32(2 * n), Records: big}},
		Producers: []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: int32(2*n) + big - 1}}})
	r.is(len(dl) == 1, "no data loss reported")
	want := DataLoss{TP: tp0, FromOffset: 20, ToOffset: bases[n-1] + 1, Records: int64(2*n - 10)}
	r.is(dl[0] == want, "data loss %v, want %v", dl[0], want)
}

// A broker that cannot show its log end (before Kafka 2.3: LogEndOffset
// -1), whose new leader's high watermark trails what was acknowledged:
// the short read is never believed on a guess — no DataLoss, nothing
// written again — while the leader's producer state shows it holds the
// acknowledged batch; once the high watermark catches up the read settles
// the partition.
func TestShortReadWithoutLogEnd(t *testing.T) {
	r := newRig(t, Config{})
	r.enqueue(tp0, 2, 1, 2, 3)
	r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4")
	r.ok(tp0, 1, 10)
	r.ok(tp0, 2, 12)
	r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1) // desync: a read follows
	held := []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: 3}}
	trailing := Tail{LogStartOffset: 0, HighWatermark: 12, LogEndOffset: -1, Described: true, Producers: held,
		Batches: []TailBatch{{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 2}}}
	for range maxOpenReads + 5 {
		ev := r.take()
		r.none(ev, "data loss", len(find[DataLoss](ev)))
		for _, s := range r.send(tp0) {
			r.is(s.ID != 2, "batch 2 written again on a trailing high watermark: %+v", s)
		}
		if len(find[ReadTail](ev)) == 0 {
			r.later()
			continue
		}
		r.pr.tailRead(tp0, trailing)
	}
	caught := trailing
	caught.HighWatermark = 14
	caught.Batches = append(caught.Batches, TailBatch{BaseOffset: 12, ProducerID: 1000, Epoch: 3, BaseSequence: 2, Records: 2})
	for range 30 {
		ev := r.take()
		r.none(ev, "data loss", len(find[DataLoss](ev)))
		if len(find[ReadTail](ev)) > 0 {
			r.pr.tailRead(tp0, caught)
			break
		}
		r.later()
	}
	r.later()
	r.sendsAre(r.send(tp0), "3@4/0")
}

// An acknowledgement below the offsets of a batch numbered before it (the
// last delivered one, here) proves the log was cut below them: our
// batches lie in numbering order in an intact log. The loss is reported
// at once, with no read — a broker that shows neither its log end nor its
// producers (before Kafka 2.3) would never prove it by a read, and once
// the acknowledged batch becomes the anchor nothing remembers the lost
// offsets. Found by the random walk (seed 169727) once its pre-2.3 broker
// stopped describing producers.
func TestRuleAckBelowRememberedReportsLoss(t *testing.T) {
	runRules(t, []ruleCase{{name: "acknowledged below the last delivered batch", run: func(r *rig) {
		r.enqueue(tp0, 1, 1)
		r.sendsAre(r.send(tp0), "1@3/0")
		r.ok(tp0, 1, 3)
		r.delivered(r.take(), "1@3")
		r.enqueue(tp0, 1, 2)
		r.sendsAre(r.send(tp0), "2@3/1")
		r.ok(tp0, 2, 0)
		ev := r.take()
		dl := find[DataLoss](ev)
		r.is(len(dl) == 1 && dl[0].FromOffset == 3 && dl[0].ToOffset == 3 && dl[0].Records == 1, "no loss of 3..3 reported: %v", ev)
	}}})
}
