package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
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
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = 1 // unclean
	req.TimeoutMillis = 30000
	rt := kmsg.NewElectLeadersRequestTopic()
	rt.Topic, rt.Partitions = topic, partitions
	req.Topics = []kmsg.ElectLeadersRequestTopic{rt}
	resp, err := c.request(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkatest: elect unclean leaders of %s: %w", topic, err)
	}
	r := resp.(*kmsg.ElectLeadersResponse)
	if r.ErrorCode != 0 {
		return fmt.Errorf("kafkatest: elect unclean leaders of %s: %w", topic, protocol.ErrorForCode(r.ErrorCode))
	}
	var errs []error
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 || p.ErrorCode == int16(protocol.ElectionNotNeeded) {
				continue
			}
			msg := ""
			if p.ErrorMessage != nil {
				msg = *p.ErrorMessage
			}
			errs = append(errs, protocol.PartitionError(p.ErrorCode, t.Topic, p.Partition, msg))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("kafkatest: elect unclean leaders: %w", errors.Join(errs...))
	}
	return nil
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
