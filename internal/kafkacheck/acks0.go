package kafkacheck

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// AcksZero checks what a broker does with acks=0 produces, which it never
// answers, against Apache Kafka 4.4: a well-formed one is written and the
// connection stays open (a Metadata request after it is answered, the
// record becomes readable at offset 0); one it
// refuses (here, sent to a follower: NOT_LEADER_OR_FOLLOWER) makes it close
// the connection — the only way it can tell the producer — so the next
// request on it fails. leader and follower are connections to a leader and
// a follower of partition p of topic; follower is closed by the broker.
func AcksZero(ctx context.Context, leader, follower *protocol.Conn, topic string, p int32) error {
	metadata := func(conn *protocol.Conn) error {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, rt)
		_, err := conn.Request(ctx, req)
		return err
	}
	if err := leader.Send(ctx, produceRequest(topic, p, batchOf(recordsOf("z"), 1, 0), 0), func(kmsg.Response, error) {}); err != nil {
		return fmt.Errorf("acks=0 produce to the leader: %w", err)
	}
	if err := metadata(leader); err != nil {
		return fmt.Errorf("a request after an acks=0 produce the leader took: %w; Kafka keeps the connection", err)
	}
	for {
		end, _, err := protocol.ListOffsets(ctx, leader, topic, p, protocol.ListLatest)
		if err == nil && end == 1 {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the acks=0 record never became readable (high watermark %d, %v): %w", end, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := follower.Send(ctx, produceRequest(topic, p, batchOf(recordsOf("z"), 1, 0), 0), func(kmsg.Response, error) {}); err != nil {
		return fmt.Errorf("acks=0 produce to the follower: %w", err)
	}
	if err := metadata(follower); err == nil {
		return fmt.Errorf("a request after an acks=0 produce the follower refused was answered; Kafka closes the connection")
	}
	return nil
}
