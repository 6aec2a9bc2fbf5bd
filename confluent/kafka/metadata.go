package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// BrokerMetadata contains per-broker metadata
type BrokerMetadata struct {
	ID   int32
	Host string
	Port int
}

// PartitionMetadata contains per-partition metadata
type PartitionMetadata struct {
	ID       int32
	Error    Error
	Leader   int32
	Replicas []int32
	Isrs     []int32
}

// TopicMetadata contains per-topic metadata
type TopicMetadata struct {
	Topic      string
	Partitions []PartitionMetadata
	Error      Error
}

// Metadata contains broker and topic metadata for all (matching) topics
type Metadata struct {
	Brokers []BrokerMetadata
	Topics  map[string]TopicMetadata

	OriginatingBroker BrokerMetadata
}

// GetMetadata queries broker for cluster and topic metadata. If topic is
// non-nil only information about that topic is returned, else if allTopics
// is false only information about locally used topics (those produced to)
// is returned, else information about all topics is returned.
//
// A topic the cluster lacks comes back with Error code
// ErrUnknownTopicOrPart (it is not created); a partition without a leader
// with Leader -1 and ErrLeaderNotAvailable. The call fails, as
// librdkafka's does, with ErrTransport when no broker could be reached and
// ErrTimedOut when none answered within timeoutMs (a negative timeoutMs:
// the producer's own bound, up to three brokers asked for a third of
// request.timeout.ms each), and with ErrState after Close.
func (p *Producer) GetMetadata(topic *string, allTopics bool, timeoutMs int) (*Metadata, error) {
	ctx, cancel := callContext(timeoutMs)
	defer cancel()
	var (
		cm  *client.ClusterMetadata
		err error
	)
	switch {
	case topic != nil:
		cm, err = p.c.Metadata(ctx, *topic)
	case allTopics:
		cm, err = p.c.AllMetadata(ctx)
	default:
		cm, err = p.c.Metadata(ctx)
	}
	if err != nil {
		return nil, callError(err, ErrTransport)
	}
	md := &Metadata{
		Topics:            make(map[string]TopicMetadata, len(cm.Topics)),
		OriginatingBroker: BrokerMetadata{ID: cm.From.ID, Host: cm.From.Host, Port: cm.From.Port},
	}
	for _, b := range cm.Brokers {
		md.Brokers = append(md.Brokers, BrokerMetadata{ID: b.ID, Host: b.Host, Port: b.Port})
	}
	for _, t := range cm.Topics {
		tm := TopicMetadata{Topic: t.Topic, Error: codeError(t.Err)}
		for _, pt := range t.Partitions {
			tm.Partitions = append(tm.Partitions, PartitionMetadata{
				ID: pt.Partition, Error: codeError(pt.Err), Leader: pt.Leader,
				Replicas: nonNil(pt.Replicas), Isrs: nonNil(pt.ISR),
			})
		}
		md.Topics[t.Topic] = tm
	}
	return md, nil
}

// QueryWatermarkOffsets returns the low (log start) and high (high
// watermark) offsets of a partition, asked of its leader. A topic the
// cluster lacks fails with ErrUnknownTopicOrPart, a partition it lacks
// with ErrUnknownPartition; when the leader did not answer within
// timeoutMs (retrying while leadership moves) with ErrTimedOut, or
// ErrAllBrokersDown when last no broker could be reached (librdkafka's
// code then); after Close with ErrState.
func (p *Producer) QueryWatermarkOffsets(topic string, partition int32, timeoutMs int) (low, high int64, err error) {
	ctx, cancel := callContext(timeoutMs)
	defer cancel()
	low, high, err = p.c.Watermarks(ctx, topic, partition)
	if err != nil {
		return 0, 0, callError(err, ErrAllBrokersDown)
	}
	return low, high, nil
}

// OffsetsForTimes looks up offsets by timestamp for the given partitions.
//
// The returned offset for each partition is the earliest offset whose
// timestamp is greater than or equal to the given timestamp in the
// corresponding partition. If the provided timestamp exceeds that of the
// last message in the partition, a value of -1 will be returned.
//
// The timestamps to query are given in each TopicPartition's Offset, in
// milliseconds since the Unix epoch (OffsetEnd and OffsetBeginning ask for
// the high watermark and the log start). A partition that could not be
// looked up has its Error set (ErrUnknownTopicOrPart, ErrUnknownPartition,
// ErrTimedOut, ErrAllBrokersDown, the broker's code) and Offset
// OffsetInvalid; err is set too (ErrTimedOut, ErrAllBrokersDown, ErrState
// after Close) when a lookup failed for one of those.
func (p *Producer) OffsetsForTimes(times []TopicPartition, timeoutMs int) (offsets []TopicPartition, err error) {
	ctx, cancel := callContext(timeoutMs)
	defer cancel()
	offsets = make([]TopicPartition, len(times))
	var g errgroup.Group
	g.SetLimit(8)
	for i, tp := range times {
		offsets[i] = tp
		g.Go(func() error {
			off, err := p.offsetForTime(ctx, tp)
			if err != nil {
				offsets[i].Offset, offsets[i].Error = OffsetInvalid, callError(err, ErrAllBrokersDown)
				return nil
			}
			offsets[i].Offset, offsets[i].Error = Offset(off), nil
			return nil
		})
	}
	_ = g.Wait()
	for _, tp := range offsets {
		var e Error
		if errors.As(tp.Error, &e) && (e.code == ErrTimedOut || e.code == ErrAllBrokersDown || e.code == ErrState) {
			return offsets, newErrorFromString(e.code, "OffsetsForTimes: "+e.str)
		}
	}
	return offsets, nil
}

func (p *Producer) offsetForTime(ctx context.Context, tp TopicPartition) (int64, error) {
	if tp.Topic == nil {
		return -1, fmt.Errorf("%w: no topic", client.ErrUnknownTopic)
	}
	switch {
	case tp.Offset == OffsetEnd || tp.Offset == OffsetBeginning:
		low, high, err := p.c.Watermarks(ctx, *tp.Topic, tp.Partition)
		if tp.Offset == OffsetBeginning {
			return low, err
		}
		return high, err
	case tp.Offset < 0:
		return -1, errInvalidTimestamp{tp.Offset}
	}
	return p.c.OffsetForTime(ctx, *tp.Topic, tp.Partition, time.UnixMilli(int64(tp.Offset)))
}

// errInvalidTimestamp is a negative timestamp other than the two logical
// offsets OffsetsForTimes takes.
type errInvalidTimestamp struct{ ts Offset }

func (e errInvalidTimestamp) Error() string {
	return fmt.Sprintf("timestamp %d is neither a time nor OffsetBeginning or OffsetEnd", int64(e.ts))
}

// callContext is the context of a call given timeoutMs (negative: no
// deadline of its own).
func callContext(timeoutMs int) (context.Context, context.CancelFunc) {
	if timeoutMs < 0 {
		return context.WithCancel(context.Background())
	}
	return context.WithTimeout(context.Background(), time.Duration(timeoutMs)*time.Millisecond)
}

// callError is the Error a call (not a delivery) returns for err;
// unreachable is the code librdkafka gives the call when no broker can be
// reached (rd_kafka_metadata: ErrTransport; the offset lookups:
// ErrAllBrokersDown).
func callError(err error, unreachable ErrorCode) Error {
	e := Error{err: err, str: err.Error()}
	var ke *protocol.KafkaError
	var it errInvalidTimestamp
	switch {
	case errors.Is(err, protocol.ErrNoBroker), errors.Is(err, client.ErrBrokersUnreachable):
		e.code = unreachable
	case errors.Is(err, context.DeadlineExceeded):
		e.code = ErrTimedOut
	case errors.Is(err, client.ErrClosed):
		e.code = ErrState
	case errors.Is(err, client.ErrUnknownTopic):
		e.code = ErrUnknownTopicOrPart
	case errors.Is(err, client.ErrUnknownPartition):
		e.code = ErrUnknownPartition
	case errors.Is(err, client.ErrAuthentication):
		e.code = ErrAuthentication
	case errors.As(err, &it):
		e.code = ErrInvalidArg
	case errors.As(err, &ke):
		e.code = ErrorCode(ke.Code)
	default:
		e.code = ErrFail
	}
	var ke2 *protocol.KafkaError
	e.retriable = e.code == ErrTimedOut || e.code == unreachable || (errors.As(err, &ke2) && ke2.Retriable)
	return e
}

// codeError is a topic's or partition's error code as an Error (the zero
// Error, ErrNoError, for none).
func codeError(err error) Error {
	if err == nil {
		return Error{}
	}
	var ke *protocol.KafkaError
	if !errors.As(err, &ke) {
		return Error{code: ErrFail, str: err.Error(), err: err}
	}
	return Error{code: ErrorCode(ke.Code), err: err, retriable: ke.Retriable}
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}
