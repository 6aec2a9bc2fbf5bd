package idempotence

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// transcript drives a Producer through Step and records every input and
// what Ready returned, one line each: the machine's whole behaviour as
// text, so that a recorded run is a test.
type transcript struct {
	pr    *Producer
	now   time.Time
	lines []string
}

func (tr *transcript) step(in Input) {
	tr.now = tr.now.Add(time.Second)
	tr.pr.Step(in, tr.now)
	tr.lines = append(tr.lines, fmt.Sprintf("> %T%+v", in, in))
	rd := tr.pr.Ready()
	for _, s := range rd.Sends {
		tr.lines = append(tr.lines, fmt.Sprintf("  send %d %d/%d/%d to %d@%d", s.ID, s.ProducerID, s.Epoch, s.BaseSequence, s.Broker, s.LeaderEpoch))
	}
	for _, e := range rd.Events {
		tr.lines = append(tr.lines, fmt.Sprintf("  %T%+v", e, e))
	}
	tr.pr.Advance()
}

// The seed's sequence (confluent-kafka-go#830) as inputs and outputs: a
// broker returns, takes leadership back without the last batches in its
// producer state, and answers OUT_OF_ORDER_SEQUENCE_NUMBER; the partition
// reads the leader's log and state, delivers what is there and renumbers
// only what is proven absent.
func TestStepTranscriptSeed(t *testing.T) {
	run := func() string {
		tr := &transcript{pr: New(Config{}), now: time.Unix(1000, 0)}
		tp := TopicPartition{Topic: "t", Partition: 0}
		tr.step(SetIdentity{ProducerID: 7, Epoch: 0})
		tr.step(LeaderChanged{TP: tp, Broker: 1, LeaderEpoch: 3})
		tr.step(NewBatch{TP: tp, ID: 1, Records: 2})
		tr.step(Answer{TP: tp, ID: 1, Response: Response{Code: kafkaerr.None, Class: Appended, BaseOffset: 0, LogStartOffset: 0}})
		tr.step(NewBatch{TP: tp, ID: 2, Records: 2})
		tr.step(NewBatch{TP: tp, ID: 3, Records: 2})
		tr.step(Answer{TP: tp, ID: 2, Response: Response{Code: kafkaerr.None, Class: Appended, BaseOffset: 2, LogStartOffset: 0}})
		tr.step(Answer{TP: tp, ID: 3, Response: Response{Code: kafkaerr.Transport, Class: MaybeAppended, BaseOffset: -1, LogStartOffset: -1}})
		tr.step(LeaderChanged{TP: tp, Broker: 2, LeaderEpoch: 4})
		tr.step(Tick{})
		tr.step(Answer{TP: tp, ID: 3, Response: Response{Code: kafkaerr.OutOfOrderSequenceNumber, Class: NotAppended, BaseOffset: -1, LogStartOffset: -1}})
		tr.step(TailRead{TP: tp, Tail: Tail{LogStartOffset: 0, HighWatermark: 4, Described: true,
			Batches:   []TailBatch{{BaseOffset: 2, ProducerID: 7, Epoch: 0, BaseSequence: 2, Records: 2}},
			Producers: []ProducerState{{ProducerID: 7, Epoch: 0, LastSequence: 3}}}})
		tr.step(Tick{})
		tr.step(Answer{TP: tp, ID: 3, Response: Response{Code: kafkaerr.None, Class: Appended, BaseOffset: 4, LogStartOffset: 0}})
		tr.step(Close{})
		return strings.Join(tr.lines, "\n")
	}
	got := run()
	want := strings.TrimSpace(`
> idempotence.SetIdentity{ProducerID:7 Epoch:0}
> idempotence.LeaderChanged{TP:{Topic:t Partition:0} Broker:1 LeaderEpoch:3 Incarnation:0}
> idempotence.NewBatch{TP:{Topic:t Partition:0} ID:1 Records:2 Deadline:0001-01-01 00:00:00 +0000 UTC Stamp:0001-01-01 00:00:00 +0000 UTC}
  send 1 7/0/0 to 1@3
> idempotence.Answer{TP:{Topic:t Partition:0} ID:1 Response:{Code:NONE Class:Appended BaseOffset:0 LogStartOffset:0}}
  idempotence.Delivered{TP:{Topic:t Partition:0} ID:1 BaseOffset:0}
> idempotence.NewBatch{TP:{Topic:t Partition:0} ID:2 Records:2 Deadline:0001-01-01 00:00:00 +0000 UTC Stamp:0001-01-01 00:00:00 +0000 UTC}
  send 2 7/0/2 to 1@3
> idempotence.NewBatch{TP:{Topic:t Partition:0} ID:3 Records:2 Deadline:0001-01-01 00:00:00 +0000 UTC Stamp:0001-01-01 00:00:00 +0000 UTC}
  send 3 7/0/4 to 1@3
> idempotence.Answer{TP:{Topic:t Partition:0} ID:2 Response:{Code:NONE Class:Appended BaseOffset:2 LogStartOffset:0}}
  idempotence.Delivered{TP:{Topic:t Partition:0} ID:2 BaseOffset:2}
> idempotence.Answer{TP:{Topic:t Partition:0} ID:3 Response:{Code:TRANSPORT Class:MaybeAppended BaseOffset:-1 LogStartOffset:-1}}
  idempotence.RefreshMetadata{TP:{Topic:t Partition:0}}
> idempotence.LeaderChanged{TP:{Topic:t Partition:0} Broker:2 LeaderEpoch:4 Incarnation:0}
  send 3 7/0/4 to 2@4
> idempotence.Tick{}
> idempotence.Answer{TP:{Topic:t Partition:0} ID:3 Response:{Code:OUT_OF_ORDER_SEQUENCE_NUMBER Class:NotAppended BaseOffset:-1 LogStartOffset:-1}}
  idempotence.ReadTail{TP:{Topic:t Partition:0} FromOffset:2}
> idempotence.TailRead{TP:{Topic:t Partition:0} Tail:{Batches:[{BaseOffset:2 ProducerID:7 Epoch:0 BaseSequence:2 Records:2}] LogStartOffset:0 HighWatermark:4 LogEndOffset:0 Described:true Producers:[{ProducerID:7 Epoch:0 LastSequence:3}] Err:<nil> Unreadable:false}}
  send 3 7/1/0 to 2@4
  idempotence.EpochBumped{TP:{Topic:t Partition:0} ProducerID:7 Epoch:1}
> idempotence.Tick{}
> idempotence.Answer{TP:{Topic:t Partition:0} ID:3 Response:{Code:NONE Class:Appended BaseOffset:4 LogStartOffset:0}}
  idempotence.Delivered{TP:{Topic:t Partition:0} ID:3 BaseOffset:4}
> idempotence.Close{}`)
	if got != want {
		t.Fatalf("transcript changed:\n%s\n\nwant:\n%s", got, want)
	}
	if again := run(); again != got {
		t.Fatalf("the same inputs gave another transcript:\n%s", again)
	}
}

// A partition with no leader when its metadata is first read (every
// replica down as the producer starts), or whose leader was lost while it
// was idle on brokers that give no leader epochs: its first batch asks
// for metadata again, and each answer still without a leader asks once
// more, so that the producer keeps looking until one is elected (chaos
// seed 9745 waited for its metadata's maximum age instead).
func TestFirstBatchOfALeaderlessPartitionAsksForMetadata(t *testing.T) {
	tp := TopicPartition{Topic: "t", Partition: 0}
	for name, before := range map[string][]LeaderChanged{
		"leaderless at the first read":     {{TP: tp, Broker: -1, LeaderEpoch: -1}},
		"lost while idle, no leader epoch": {{TP: tp, Broker: 1, LeaderEpoch: -1}, {TP: tp, Broker: -1, LeaderEpoch: -1}},
		"lost while idle":                  {{TP: tp, Broker: 1, LeaderEpoch: 4}, {TP: tp, Broker: -1, LeaderEpoch: -1}},
	} {
		t.Run(name, func(t *testing.T) {
			tr := &transcript{pr: New(Config{}), now: time.Unix(1000, 0)}
			tr.step(SetIdentity{ProducerID: 7, Epoch: 0})
			for _, lc := range before {
				tr.step(lc)
			}
			refreshes := func() int { return strings.Count(strings.Join(tr.lines, "\n"), "RefreshMetadata") }
			tr.step(NewBatch{TP: tp, ID: 1, Records: 2})
			if refreshes() != 1 {
				t.Fatalf("no metadata asked for the batch of a leaderless partition:\n%s", strings.Join(tr.lines, "\n"))
			}
			tr.step(LeaderChanged{TP: tp, Broker: -1, LeaderEpoch: -1})
			if refreshes() != 2 {
				t.Fatalf("still leaderless, not asked again:\n%s", strings.Join(tr.lines, "\n"))
			}
			tr.step(LeaderChanged{TP: tp, Broker: 2, LeaderEpoch: 5})
			if !strings.Contains(tr.lines[len(tr.lines)-1], "send 1 7/0/0 to 2@5") {
				t.Fatalf("not sent once a leader is known:\n%s", strings.Join(tr.lines, "\n"))
			}
		})
	}
}
