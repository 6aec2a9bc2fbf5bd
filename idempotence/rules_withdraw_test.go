package idempotence

import (
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

func TestRuleWithdraw(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "a queued batch is replaced by its part: the numbering has no hole", run: func(r *rig) {
			r.pr.cfg.MaxInFlight = 1
			r.enqueue(tp0, 2, 1)
			r.enqueue(tp0, 3, 2)
			r.enqueue(tp0, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.is(!r.pr.Withdrawable(tp0, 1), "the batch in flight holds a sequence")
			r.is(r.pr.Withdrawable(tp0, 2), "a queued batch holds none")
			r.is(r.pr.withdraw(tp0, 2, []Part{{ID: 7, Records: 1}}), "not withdrawn")
			r.is(r.pr.Withdrawable(tp0, 7) && !r.pr.Withdrawable(tp0, 2), "the part did not take the batch's place")
			r.none(r.take(), "an event for the withdrawn batch", 0)
			r.ok(tp0, 1, 10)
			r.delivered(r.take(), "1@10")
			r.sendsAre(r.send(tp0), "7@3/2") // one record, right after batch 1's two
			r.ok(tp0, 7, 12)
			r.delivered(r.take(), "7@12")
			r.sendsAre(r.send(tp0), "3@3/3")
		}},
		{name: "no parts: the batch is removed and the next one takes its sequence", run: func(r *rig) {
			r.pr.cfg.MaxInFlight = 1
			r.enqueue(tp0, 2, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.is(r.pr.withdraw(tp0, 2, nil), "not withdrawn")
			ev := r.take()
			r.is(len(find[Failed](ev)) == 0, "the caller settles a withdrawn batch, yet %v", ev)
			r.ok(tp0, 1, 10)
			r.delivered(r.take(), "1@10")
			r.sendsAre(r.send(tp0), "3@3/2")
		}},
		{name: "a numbered batch is left as it is: refused, it still holds its sequence", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 2, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.is(!r.pr.withdraw(tp0, 2, nil), "a numbered batch was withdrawn")
			r.is(!r.pr.withdraw(tp0, 9, nil), "an unknown batch was withdrawn")
		}},
	})
}
