package scenario

import (
	"fmt"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Kind is what a Step does.
type Kind uint8

// The step kinds. Broker -1 (Any) means the target is chosen when the step
// runs, as each kind's comment says.
const (
	// StopLeader stops the broker leading Topic/Partition (Clean: keep its
	// whole log; unclean: lose what is above the high watermark).
	StopLeader Kind = iota + 1
	// StopBroker stops Broker (Clean as for StopLeader).
	StopBroker
	// StartBroker starts Broker; Any: the broker this player stopped last.
	StartBroker
	// AwaitInSync waits, at most Duration, until Broker (Any: the broker
	// this player started last) is in the ISR of every partition of Topic
	// it replicates.
	AwaitInSync
	// RestoreLeaders gives every partition of Topic whose leader moved
	// since the player began back to that first leader, where it is
	// running and in sync (a preferred-replica election).
	RestoreLeaders
	// MoveLeader moves Topic/Partition's leadership to Broker (Any: the
	// next in-sync replica after the current leader) in a clean election.
	MoveLeader
	// PauseReplication stops Broker's replica of Topic/Partition from
	// copying (Any: the first in-sync follower), dropping it from the ISR.
	PauseReplication
	// ResumeReplication undoes PauseReplication (Any: the replica this
	// player paused last on that partition).
	ResumeReplication
	// UncleanElect makes Broker (Any: the replica this player paused on
	// that partition, else the first running follower) the leader of
	// Topic/Partition even when it is not in sync; acknowledged records
	// may be lost.
	UncleanElect
	// DropResponses loses the responses to Topic/Partition's next N
	// produce requests (AfterAppend: the batches are written first).
	DropResponses
	// CloseAfterAppend writes Topic/Partition's next N batches, then
	// closes the connection instead of answering.
	CloseAfterAppend
	// InjectError answers Topic/Partition's next N produce requests with
	// Code (AfterAppend: the batch is written first).
	InjectError
	// DelayResponses delays every response of Broker (Any: the leader of
	// Topic/Partition) by Duration; 0 ends the delay.
	DelayResponses
	// FollowerLag makes Broker copy batches Duration after its leader
	// appended them (0 ends the lag).
	FollowerLag
	// ExpireProducers forgets producer state as producer.id.expiration.ms
	// does: with a Duration, of producers idle that long on a partition;
	// without, of every producer id the cluster holds.
	ExpireProducers
)

// Any is the Broker value that lets the step choose its target when it runs.
const Any int32 = -1

var kindNames = map[Kind]string{
	StopLeader: "stop-leader", StopBroker: "stop-broker", StartBroker: "start-broker",
	AwaitInSync: "await-in-sync", RestoreLeaders: "restore-leaders", MoveLeader: "move-leader",
	PauseReplication: "pause-replication", ResumeReplication: "resume-replication",
	UncleanElect: "unclean-elect", DropResponses: "drop-responses", CloseAfterAppend: "close-after-append",
	InjectError: "inject-error", DelayResponses: "delay-responses", FollowerLag: "follower-lag",
	ExpireProducers: "expire-producers",
}

// String returns the kind's name.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Step is one action of a schedule. Only the fields its Kind uses matter.
type Step struct {
	At          time.Duration // offset from the schedule's start
	Kind        Kind
	Topic       string
	Partition   int32
	Broker      int32 // Any: chosen when the step runs
	Clean       bool  // StopLeader, StopBroker
	N           int   // DropResponses, CloseAfterAppend, InjectError
	Code        int16 // InjectError
	AfterAppend bool  // DropResponses, InjectError
	ExpiryCheck bool  // ResetAfterResponse
	Duration    time.Duration
	Hold        time.Duration // ResetAfterResponse
}

func (s Step) broker() string {
	if s.Broker == Any {
		return "any"
	}
	return fmt.Sprint(s.Broker)
}

func (s Step) tp() string { return fmt.Sprintf("%s/%d", s.Topic, s.Partition) }

// codeName is a Kafka error code's name, e.g. OUT_OF_ORDER_SEQUENCE_NUMBER
// for 45 (the number too for codes Kafka does not define).
func codeName(code int16) string { return kafkaerr.Code(code).String() }

func cleanWord(clean bool) string {
	if clean {
		return "clean"
	}
	return "unclean"
}

func appendWord(after bool) string {
	if after {
		return "after append"
	}
	return "before append"
}

// String describes the step on one line, e.g. "+120ms stop-leader t/2 unclean".
func (s Step) String() string {
	return fmt.Sprintf("+%v %s", s.At, s.What())
}

// What describes the step without its time.
func (s Step) What() string {
	if isRealism(s.Kind) {
		return whatRealism(s)
	}
	k := s.Kind.String()
	switch s.Kind {
	case StopLeader:
		return fmt.Sprintf("%s %s %s", k, s.tp(), cleanWord(s.Clean))
	case StopBroker:
		return fmt.Sprintf("%s %s %s", k, s.broker(), cleanWord(s.Clean))
	case StartBroker:
		return fmt.Sprintf("%s %s", k, s.broker())
	case AwaitInSync:
		return fmt.Sprintf("%s %s broker %s within %v", k, s.Topic, s.broker(), s.Duration)
	case ExpireProducers:
		if s.Duration > 0 {
			return fmt.Sprintf("%s idle for %v", k, s.Duration)
		}
		return k
	case RestoreLeaders:
		if s.Topic == "" {
			return k
		}
		return fmt.Sprintf("%s %s", k, s.Topic)
	case MoveLeader, PauseReplication, ResumeReplication, UncleanElect:
		return fmt.Sprintf("%s %s to broker %s", k, s.tp(), s.broker())
	case DropResponses:
		return fmt.Sprintf("%s %s x%d %s", k, s.tp(), s.N, appendWord(s.AfterAppend))
	case CloseAfterAppend:
		return fmt.Sprintf("%s %s x%d", k, s.tp(), s.N)
	case InjectError:
		return fmt.Sprintf("%s %s %s x%d %s", k, s.tp(), codeName(s.Code), s.N, appendWord(s.AfterAppend))
	case DelayResponses:
		if s.Broker == Any {
			return fmt.Sprintf("%s leader of %s by %v", k, s.tp(), s.Duration)
		}
		return fmt.Sprintf("%s broker %d by %v", k, s.Broker, s.Duration)
	case FollowerLag:
		return fmt.Sprintf("%s broker %s by %v", k, s.broker(), s.Duration)
	}
	return k
}
