package sim

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ThrottleProduce makes broker answer produce requests as a broker whose
// produce quota is exceeded does (KIP-219): each response carries
// ThrottleMillis d, and the broker reads nothing more from that
// connection for d after sending it (the channel is muted). 0 stops.
func (c *Cluster) ThrottleProduce(broker int32, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.brokerLocked(broker)
	if err != nil {
		return err
	}
	b.throttle = max(d, 0)
	return nil
}

// throttled sets a produce response's throttle time and returns how long
// to mute its connection after sending it (0: not throttled).
func (b *broker) throttled(resp kmsg.Response) time.Duration {
	pr, ok := resp.(*kmsg.ProduceResponse)
	if !ok {
		return 0
	}
	b.c.mu.Lock()
	d := b.throttle
	b.c.mu.Unlock()
	if d <= 0 {
		return 0
	}
	pr.ThrottleMillis = int32(d / time.Millisecond)
	return d
}

// mute waits out a throttle after the response was sent; false if the
// broker stopped meanwhile.
func mute(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	return sleepCtx(ctx, d)
}
