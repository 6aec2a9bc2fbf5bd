package scenario

import (
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// SeedConfig shapes the Seed scenario.
type SeedConfig struct {
	Topic     string
	Partition int32 // whose leader goes down
	// Down is when the leader stops (default 100ms); Up how long it stays
	// down (default 200ms); CatchUp bounds the wait for it to rejoin every
	// ISR (default 2s).
	Down, Up, CatchUp time.Duration
	// OutOfOrderOnReturn makes the partition's first produce request after
	// leadership is restored answer OUT_OF_ORDER_SEQUENCE_NUMBER, as the
	// returning leader did in confluent-kafka-go#830 / librdkafka#3584.
	OutOfOrderOnReturn bool
}

// Seed is the scenario the rollsafe demo plays: the leader of a partition
// goes down (cleanly), leadership moves, the broker comes back, catches up
// and takes its partitions' leadership back while the producer writes.
func Seed(cfg SeedConfig) Schedule {
	if cfg.Down <= 0 {
		cfg.Down = 100 * time.Millisecond
	}
	if cfg.Up <= 0 {
		cfg.Up = 200 * time.Millisecond
	}
	if cfg.CatchUp <= 0 {
		cfg.CatchUp = 2 * time.Second
	}
	up := cfg.Down + cfg.Up
	s := Schedule{Name: "seed", Steps: []Step{
		{At: cfg.Down, Kind: StopLeader, Topic: cfg.Topic, Partition: cfg.Partition, Broker: Any, Clean: true},
		{At: up, Kind: StartBroker, Broker: Any},
		{At: up, Kind: AwaitInSync, Topic: cfg.Topic, Broker: Any, Duration: cfg.CatchUp},
	}}
	s.Steps = append(s.Steps, Step{At: up, Kind: RestoreLeaders, Topic: cfg.Topic, Broker: Any})
	if cfg.OutOfOrderOnReturn {
		s.Steps = append(s.Steps, Step{At: up, Kind: InjectError, Topic: cfg.Topic, Partition: cfg.Partition, Broker: Any, Code: int16(kafkaerr.OutOfOrderSequenceNumber), N: 1})
	}
	return s
}

// RollingRestart stops each broker in turn (cleanly), starts it again,
// waits for it to catch up and gives its leadership back: a rolling
// upgrade. Each broker is down for down.
func RollingRestart(topic string, brokers int32, down time.Duration) Schedule {
	if down <= 0 {
		down = 100 * time.Millisecond
	}
	s := Schedule{Name: "rolling-restart"}
	for b := range brokers {
		t0 := time.Duration(b) * 2 * down
		s.Steps = append(s.Steps,
			Step{At: t0, Kind: StopBroker, Broker: b, Clean: true},
			Step{At: t0 + down, Kind: StartBroker, Broker: b},
			Step{At: t0 + down, Kind: AwaitInSync, Topic: topic, Broker: b, Duration: 2 * time.Second},
			Step{At: t0 + down, Kind: RestoreLeaders, Topic: topic, Broker: Any},
		)
	}
	return s
}

// UncleanLoss pauses a follower of topic/partition, lets the leader run
// ahead for lead, then elects the lagging follower uncleanly: the records
// acknowledged meanwhile are lost. The follower resumes (the old leader
// truncates and follows) after another lead.
func UncleanLoss(topic string, partition int32, lead time.Duration) Schedule {
	if lead <= 0 {
		lead = 100 * time.Millisecond
	}
	return Schedule{Name: "unclean-loss", Steps: []Step{
		{At: 0, Kind: PauseReplication, Topic: topic, Partition: partition, Broker: Any},
		{At: lead, Kind: UncleanElect, Topic: topic, Partition: partition, Broker: Any},
		{At: 2 * lead, Kind: ResumeReplication, Topic: topic, Partition: partition, Broker: Any},
	}}
}

// Names lists the named scenarios ByName knows.
func Names() []string { return []string{"rolling-restart", "seed", "unclean-loss"} }

// ByName returns a named scenario with its defaults on topic (partition 0
// where one partition is hit) in a cluster of brokers.
func ByName(name, topic string, brokers int32) (Schedule, error) {
	switch name {
	case "seed":
		return Seed(SeedConfig{Topic: topic}), nil
	case "rolling-restart":
		return RollingRestart(topic, brokers, 0), nil
	case "unclean-loss":
		return UncleanLoss(topic, 0, 0), nil
	}
	return Schedule{}, fmt.Errorf("%w: %q (known: %v)", ErrUnknownScenario, name, slices.Clone(Names()))
}
