package scenario

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// ChaosConfig shapes the schedules Random draws.
type ChaosConfig struct {
	Topic      string
	Partitions int32 // of Topic (>= 1)
	Brokers    int32 // in the cluster (>= 1)
	// Faults is the number of fault episodes, each in its own slot of
	// Span (default 4). An episode is one of: a leader move, a broker
	// bounce (stop, start, catch up, leadership back), an unclean
	// election of a paused replica, injected errors, connections closed
	// after append, dropped responses, delayed responses, follower lag,
	// producer state expiry.
	Faults int
	// Span is the time the episodes are spread over (default 400ms).
	Span time.Duration
	// Unclean allows unclean broker stops and unclean elections of
	// lagging replicas, which can lose acknowledged records.
	Unclean bool
	// Drops allows dropped responses (a client then waits out its request
	// timeout).
	Drops bool
	// Expiry allows producer state expiry.
	Expiry bool
	// ExpiryIdle is how long a producer must have been idle on a
	// partition for its state there to expire (as producer.id.expiration.ms;
	// default 50ms). It must exceed the client's retry latency, as Kafka's
	// day-long default exceeds any delivery timeout: a broker that forgets
	// a producer with a retry pending accepts the retry as new, and no
	// client can then avoid the duplicate.
	ExpiryIdle time.Duration

	// The faults below make the simulator as unkind as a real cluster
	// They are off unless set: the default mix leaves them out.

	// Stall, when > 0, adds episodes where a follower stops copying for
	// Stall while it stays in sync: the high watermark stays behind the
	// leader's log end, acks=all answers REQUEST_TIMED_OUT once the
	// produce timeout passes, and the batches commit when it resumes. Set
	// it above the producer's request timeout.
	Stall time.Duration
	// Late adds episodes where a produce request is processed after its
	// connection dropped (ProcessAfterDisconnect, LateBy later, default
	// 20ms) or held LateHold (default 300ms) before the leader processes it
	// (DelayProcessing: set LateHold above the producer's request timeout
	// for the append to land after it gave up).
	Late     bool
	LateBy   time.Duration
	LateHold time.Duration
	// Compaction adds episodes compacting a partition (the topic must be
	// created with sim.CompactTopic).
	Compaction bool
	// MoveBrokers adds episodes where a partition's leader stops cleanly
	// and comes back on a new address (a replaced host, a rescheduled pod).
	MoveBrokers bool
	// Vanish makes half the MoveBrokers episodes a leader that vanishes
	// from the network instead (VanishLeader: its connections open and
	// silent, requests on them never answered) before it comes back on a
	// new address. A producer learns of it only from metadata or its
	// connection's timeout: give it a short MetadataMaxAge or a delivery
	// timeout above RequestTimeout + 2 s.
	Vanish bool
	// Crashes adds episodes where every replica of a partition is killed
	// (kill -9, logs kept: KillReplicas), its leader a fifth of a slot
	// after its followers, then restarted last killed first: the old
	// leader leads again with its whole log (Kafka's last known leader),
	// the others catch up from it, and leadership goes back where it began.
	Crashes bool
	// PowerCuts adds episodes where a partition's followers stop copying
	// (out of the ISR), its leader takes acks=all writes alone, then loses
	// power (CutLeaderPower) and leads again without them: acknowledged
	// records lost, which a producer must report.
	PowerCuts bool
}

func (cfg ChaosConfig) withDefaults() ChaosConfig {
	if cfg.ExpiryIdle <= 0 {
		cfg.ExpiryIdle = 50 * time.Millisecond
	}
	if cfg.Faults <= 0 {
		cfg.Faults = 4
	}
	if cfg.Span <= 0 {
		cfg.Span = 400 * time.Millisecond
	}
	if cfg.LateBy <= 0 {
		cfg.LateBy = 20 * time.Millisecond
	}
	if cfg.LateHold <= 0 {
		cfg.LateHold = 300 * time.Millisecond
	}
	cfg.Partitions = max(cfg.Partitions, 1)
	cfg.Brokers = max(cfg.Brokers, 1)
	return cfg
}

// injected is an error code a random schedule may inject, and whether the
// batch is written before the answer (as the broker would have done).
type injected struct {
	code  int16
	after bool
}

// chaosCodes are answers a real broker gives to a produce request.
var chaosCodes = []injected{
	{int16(kafkaerr.LeaderNotAvailable), false},
	{int16(kafkaerr.NotLeaderOrFollower), false},
	{int16(kafkaerr.NotLeaderOrFollower), true}, // after the old leader appended
	{int16(kafkaerr.RequestTimedOut), true},     // waiting for replication
	{int16(kafkaerr.MessageTooLarge), false},
	{int16(kafkaerr.NotEnoughReplicas), false},
	{int16(kafkaerr.NotEnoughReplicasAfterAppend), true},
	{int16(kafkaerr.OutOfOrderSequenceNumber), false},
	{int16(kafkaerr.DuplicateSequenceNumber), true}, // a success
	{int16(kafkaerr.InvalidProducerEpoch), false},
	{int16(kafkaerr.UnknownProducerID), false},
}

type episode int

const (
	epMove episode = iota
	epBounce
	epUnclean
	epInject
	epClose
	epDrop
	epDelay
	epLag
	epExpire
	epStall
	epLateDrop
	epLateHold
	epCompact
	epMoveAddr
	epCrash
	epPowerCut
)

// stallLag is the follower lag of a stall episode: nothing is copied until
// the episode ends it.
const stallLag = time.Hour

// Random draws a fault schedule from seed: the same seed and config give
// the same schedule. Targets chosen when the steps run (Any) make it
// meaningful whatever the cluster's state then; which broker a step hits
// can still depend on timing.
func Random(seed int64, cfg ChaosConfig) Schedule {
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(uint64(seed), 0xc4a05))
	eps := []episode{epMove, epMove, epBounce, epBounce, epInject, epInject, epInject, epClose, epDelay, epLag}
	if cfg.Unclean {
		eps = append(eps, epUnclean, epUnclean)
	}
	if cfg.Drops {
		eps = append(eps, epDrop)
	}
	if cfg.Expiry {
		eps = append(eps, epExpire)
	}
	if cfg.Stall > 0 {
		eps = append(eps, epStall)
	}
	if cfg.Late {
		eps = append(eps, epLateDrop, epLateHold)
	}
	if cfg.Compaction {
		eps = append(eps, epCompact)
	}
	if cfg.MoveBrokers {
		eps = append(eps, epMoveAddr)
	}
	if cfg.Crashes {
		eps = append(eps, epCrash)
	}
	if cfg.PowerCuts {
		eps = append(eps, epPowerCut)
	}
	slot := cfg.Span / time.Duration(cfg.Faults)
	var steps []Step
	for i := range cfg.Faults {
		t0 := slot * time.Duration(i)
		at := func(frac float64) time.Duration {
			return (t0 + time.Duration(frac*float64(slot))).Round(time.Millisecond)
		}
		part := rng.Int32N(cfg.Partitions)
		base := Step{Topic: cfg.Topic, Partition: part, Broker: Any}
		step := func(frac float64, k Kind, mod func(*Step)) {
			s := base
			s.At, s.Kind = at(frac), k
			if mod != nil {
				mod(&s)
			}
			steps = append(steps, s)
		}
		switch eps[rng.IntN(len(eps))] {
		case epMove:
			step(rng.Float64()/2, MoveLeader, nil)
		case epBounce:
			clean := !cfg.Unclean || rng.IntN(2) == 0
			step(0, StopLeader, func(s *Step) { s.Clean = clean })
			step(0.4, StartBroker, nil)
			step(0.4, AwaitInSync, func(s *Step) { s.Duration = slot / 2 })
			step(0.4, RestoreLeaders, nil)
		case epUnclean:
			step(0, PauseReplication, nil)
			step(0.5, UncleanElect, nil)
			step(0.75, ResumeReplication, nil)
		case epInject:
			ic := chaosCodes[rng.IntN(len(chaosCodes))]
			n := 1 + rng.IntN(3)
			step(rng.Float64()/2, InjectError, func(s *Step) { s.Code, s.N, s.AfterAppend = ic.code, n, ic.after })
		case epClose:
			n := 1 + rng.IntN(2)
			step(rng.Float64()/2, CloseAfterAppend, func(s *Step) { s.N = n })
		case epDrop:
			after := rng.IntN(2) == 0
			step(rng.Float64()/2, DropResponses, func(s *Step) { s.N, s.AfterAppend = 1, after })
		case epDelay:
			d := time.Duration(5+rng.IntN(30)) * time.Millisecond
			step(0, DelayResponses, func(s *Step) { s.Duration = d })
			step(0.75, DelayResponses, nil)
		case epLag:
			b := rng.Int32N(cfg.Brokers)
			d := time.Duration(5+rng.IntN(25)) * time.Millisecond
			step(0, FollowerLag, func(s *Step) { s.Broker, s.Duration = b, d })
			step(0.75, FollowerLag, func(s *Step) { s.Broker = b })
		case epExpire:
			step(rng.Float64()/2, ExpireProducers, func(s *Step) { s.Topic, s.Duration = "", cfg.ExpiryIdle })
		case epStall:
			b := rng.Int32N(cfg.Brokers)
			step(0, FollowerLag, func(s *Step) { s.Broker, s.Duration = b, stallLag })
			end := base
			end.At, end.Kind, end.Broker = at(0)+cfg.Stall, FollowerLag, b
			steps = append(steps, end)
		case epLateDrop:
			by := time.Duration(rng.Int64N(int64(cfg.LateBy) + 1))
			step(rng.Float64()/2, ProcessAfterDisconnect, func(s *Step) { s.N, s.Duration = 1, by })
		case epLateHold:
			step(rng.Float64()/2, DelayProcessing, func(s *Step) { s.N, s.Duration = 1, cfg.LateHold })
		case epCompact:
			step(rng.Float64(), Compact, nil)
		case epMoveAddr:
			if cfg.Vanish && rng.IntN(2) == 0 {
				step(0, VanishLeader, nil)
			} else {
				step(0, StopLeader, func(s *Step) { s.Clean = true })
			}
			step(0.4, StartBrokerElsewhere, nil)
			step(0.4, AwaitInSync, func(s *Step) { s.Duration = slot / 2 })
			step(0.4, RestoreLeaders, nil)
		case epCrash:
			step(0, KillReplicas, func(s *Step) { s.Duration = slot / 5 })
			// One start per broker the partition may have (a start with
			// none stopped is skipped), the old leader first.
			for i := range cfg.Brokers {
				step(0.3+0.05*float64(i), StartBroker, nil)
			}
			step(0.5, AwaitInSync, func(s *Step) { s.Duration = slot / 2 })
			step(0.5, RestoreLeaders, nil)
		case epPowerCut:
			for range cfg.Brokers - 1 { // every follower (Any: the first in sync)
				step(0, PauseReplication, nil)
			}
			step(0.3, CutLeaderPower, nil)
			step(0.4, StartBroker, nil)
			for range cfg.Brokers - 1 {
				step(0.5, ResumeReplication, nil)
			}
			step(0.5, AwaitInSync, func(s *Step) { s.Duration = slot / 2 })
			step(0.5, RestoreLeaders, nil)
		}
	}
	sortSteps(steps)
	return Schedule{Name: fmt.Sprintf("chaos-%d", seed), Seed: seed, Steps: steps}
}
