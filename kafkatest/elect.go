package kafkatest

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// ElectUnclean runs an unclean leader election (ElectLeaders, API 43,
// election type 1) for the given partitions of topic: a partition without
// a live in-sync replica gets any live replica as its leader, which then
// truncates what the others acknowledged beyond its log. The topic needs
// unclean.leader.election.enable=true. A partition that already has a
// leader is not an error (ELECTION_NOT_NEEDED).
func (c *Cluster) ElectUnclean(ctx context.Context, topic string, partitions ...int32) error {
	if len(partitions) == 0 {
		return fmt.Errorf("kafkatest: elect unclean leaders of %s: no partition named", topic)
	}
	return c.electLeaders(ctx, 1, "elect unclean leaders", topic, partitions)
}

// ElectUncleanWait retries ElectUnclean until topic's partition is led by
// broker to (the controller may also elect it on its own once the topic
// allows unclean elections), e.g. while to is still being unfenced.
func (c *Cluster) ElectUncleanWait(ctx context.Context, topic string, partition, to int32) error {
	var last error
	for {
		last = c.ElectUnclean(ctx, topic, partition)
		ps, err := c.Partitions(ctx, topic)
		if err == nil {
			i := slices.IndexFunc(ps, func(p Partition) bool { return p.ID == partition })
			if i >= 0 && ps[i].Leader == to {
				return nil
			}
			if i >= 0 && last == nil {
				last = fmt.Errorf("led by %d (ISR %v), want %d", ps[i].Leader, ps[i].ISR, to)
			}
		} else if last == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: unclean election of %s[%d] to %d: %w (last: %v)", topic, partition, to, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
