package protocol

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrBadDescribe: DescribeProducers was called without a connection or
// topic; nothing was sent.
var ErrBadDescribe = errors.New("protocol: bad describe-producers arguments")

// ProducerState is one producer id's state on the replica that answered
// DescribeProducers (KIP-664): what it last appended for that producer.
// On the leader it moves on append, so it includes batches not yet
// committed (above the high watermark).
type ProducerState struct {
	ProducerID    int64
	ProducerEpoch int16
	// LastSequence is the last sequence of the producer's last batch, -1
	// when the broker keeps the producer id without a batch (after a
	// transaction marker, for instance).
	LastSequence int32
	// LastTimestamp is the max timestamp (ms) of its last batch, -1 if none.
	LastTimestamp int64
	// CoordinatorEpoch is the transaction coordinator epoch (-1 for an
	// idempotent, non-transactional producer).
	CoordinatorEpoch int32
	// CurrentTxnStartOffset is the first offset of its open transaction,
	// -1 if none.
	CurrentTxnStartOffset int64
}

// DescribeProducers asks the broker for the producer state of one
// partition (API key 61, Kafka 2.8+). Send it to the partition leader:
// Kafka answers from whichever replica the broker hosts, so a follower
// answers with its own state, which trails the leader's; a broker without
// a replica answers NOT_LEADER_OR_FOLLOWER (UNKNOWN_TOPIC_OR_PARTITION if
// it does not know the topic). The caller needs READ on the topic
// (TOPIC_AUTHORIZATION_FAILED otherwise).
//
// A broker that does not have the API gives an error matching both
// ErrNotWritten and ErrUnsupportedVersion (a *VersionError with BrokerHas
// false); partition errors are *KafkaError naming the partition. The
// producers come in the broker's order.
func DescribeProducers(ctx context.Context, c *Conn, topic string, partition int32) ([]ProducerState, error) {
	switch {
	case c == nil:
		return nil, fmt.Errorf("%w: nil connection", ErrBadDescribe)
	case topic == "":
		return nil, fmt.Errorf("%w: empty topic", ErrBadDescribe)
	}
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic = topic
	rt.Partitions = []int32{partition}
	req.Topics = append(req.Topics, rt)
	raw, err := c.Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, ok := raw.(*kmsg.DescribeProducersResponse)
	if !ok {
		return nil, fmt.Errorf("%w: describe producers answered with %T", ErrMalformedResponse, raw)
	}
	for _, t := range resp.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			msg := ""
			if p.ErrorMessage != nil {
				msg = *p.ErrorMessage
			}
			if err := PartitionError(p.ErrorCode, topic, partition, msg); err != nil {
				return nil, err
			}
			out := make([]ProducerState, 0, len(p.ActiveProducers))
			for _, ap := range p.ActiveProducers {
				if ap.ProducerEpoch < math.MinInt16 || ap.ProducerEpoch > math.MaxInt16 {
					return nil, fmt.Errorf("%w: producer %d of %s[%d] has epoch %d", ErrMalformedResponse,
						ap.ProducerID, topic, partition, ap.ProducerEpoch)
				}
				out = append(out, ProducerState{
					ProducerID: ap.ProducerID, ProducerEpoch: int16(ap.ProducerEpoch),
					LastSequence: ap.LastSequence, LastTimestamp: ap.LastTimestamp,
					CoordinatorEpoch: ap.CoordinatorEpoch, CurrentTxnStartOffset: ap.CurrentTxnStartOffset,
				})
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("%w: describe producers response has no %s[%d]", ErrMalformedResponse, topic, partition)
}

// Producer returns the state of producer id pid in states, if present.
func Producer(states []ProducerState, pid int64) (ProducerState, bool) {
	for _, s := range states {
		if s.ProducerID == pid {
			return s, true
		}
	}
	return ProducerState{}, false
}
