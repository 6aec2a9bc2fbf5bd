package idempotence

import (
	"errors"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// CORRUPT_MESSAGE is retried unchanged (a CRC failure in transit) up to
// maxCorrupt answers, then the batch fails as not written with its code,
// and the batch behind it goes on under a fresh epoch.
func TestRuleCorruptMessage(t *testing.T) {
	t.Run("cured by a resend", func(t *testing.T) {
		r := newRig(t, Config{})
		r.enqueue(tp0, 1, 1)
		for range maxCorrupt - 1 {
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.CorruptMessage, NotAppended, -1)
			r.later()
		}
		r.sendsAre(r.send(tp0), "1@3/0")
		r.ok(tp0, 1, 40)
		r.delivered(r.take(), "1@40")
	})
	t.Run("refused every time", func(t *testing.T) {
		r := newRig(t, Config{})
		r.enqueue(tp0, 1, 1, 2)
		r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
		r.answer(tp0, 1, kafkaerr.CorruptMessage, NotAppended, -1)
		r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
		for range maxCorrupt - 1 {
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.CorruptMessage, NotAppended, -1)
		}
		ev := r.take()
		r.failed(ev, 1, ErrNotWritten)
		var ce *CodeError
		for _, f := range find[Failed](ev) {
			if f.ID == 1 {
				r.is(errors.As(f.Err, &ce) && ce.Code == kafkaerr.CorruptMessage, "failed with %v, want code 2", f.Err)
			}
		}
		r.later()
		r.sendsAre(r.send(tp0), "2@4/0")
	})
}
