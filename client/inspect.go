package client

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// ClusterMetadata is one broker's answer to a metadata request: the
// cluster's live brokers and what it knows of the topics asked about.
type ClusterMetadata struct {
	ClusterID  string
	Controller int32            // broker id, -1 when the broker did not say
	From       BrokerMetadata   // the broker that answered (ID -1 if it did not list itself)
	Brokers    []BrokerMetadata // by ID
	Topics     []TopicMetadata  // by name
}

// BrokerMetadata is a broker as the cluster advertises it.
type BrokerMetadata struct {
	ID   int32
	Host string
	Port int
	Rack string // "" when none is configured
}

// TopicMetadata is a topic's partitions, or the reason the broker could
// not describe it: Err matches ErrUnknownTopic for a topic the cluster
// does not have and ErrAuthorization for one the producer may not
// describe, and is a *protocol.KafkaError carrying the broker's code.
type TopicMetadata struct {
	Topic      string
	ID         [16]byte // zero before Kafka 2.8 (Metadata v10)
	Internal   bool
	Partitions []PartitionMetadata // by partition
	Err        error
}

// PartitionMetadata is one partition's leader and replicas. A partition
// without a leader has Leader -1 and Err matching
// protocol.ErrLeaderNotAvailable (or the broker's own code).
type PartitionMetadata struct {
	Partition   int32
	Leader      int32
	LeaderEpoch int32 // -1 before Kafka 2.1 (Metadata v7)
	Replicas    []int32
	ISR         []int32
	Offline     []int32 // replicas whose broker is down
	Err         error
}

// Metadata asks a broker what it knows of topics now: their partitions,
// leaders, replicas and in-sync replicas, and the cluster's live brokers.
// With no topic named it describes the topics this producer has produced
// to (as librdkafka does without a topic); AllMetadata describes every
// topic. It never creates a topic, and it does not change where the
// producer sends records (its own refreshes do that). A topic the cluster
// lacks is not an error of the call: its TopicMetadata.Err says so. The
// call fails only when no broker answered within ctx, or with ErrClosed.
// Errors are one line, prefixed "rollsafe: ", as a record's are.
func (p *Producer) Metadata(ctx context.Context, topics ...string) (*ClusterMetadata, error) {
	if len(topics) == 0 {
		topics = p.topics.list()
	}
	if topics == nil {
		topics = []string{}
	}
	return p.describe(ctx, topics)
}

// AllMetadata is Metadata for every topic the cluster lets this producer
// describe.
func (p *Producer) AllMetadata(ctx context.Context) (*ClusterMetadata, error) {
	return p.describe(ctx, nil)
}

func (p *Producer) describe(ctx context.Context, topics []string) (*ClusterMetadata, error) {
	ctx, done, err := p.callContext(ctx)
	if err != nil {
		return nil, publicError(fmt.Errorf("client: metadata: %w", err))
	}
	defer done()
	resp, addr, err := p.meta.Describe(ctx, topics)
	if err != nil {
		if p.ctx.Err() != nil {
			err = ErrClosed
		}
		return nil, publicError(fmt.Errorf("client: metadata: %w", err))
	}
	return clusterMetadata(resp, addr), nil
}

// callContext is ctx ended also by Close; err is ErrClosed after Close.
func (p *Producer) callContext(ctx context.Context) (context.Context, func(), error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if p.closing.Load() || p.ctx.Err() != nil {
		return nil, nil, ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.ctx, cancel)
	return ctx, func() { stop(); cancel() }, nil
}

// clusterMetadata turns a Metadata response into ClusterMetadata, sorted.
func clusterMetadata(resp *kmsg.MetadataResponse, addr string) *ClusterMetadata {
	cm := &ClusterMetadata{Controller: resp.ControllerID, From: BrokerMetadata{ID: -1}}
	if resp.ClusterID != nil {
		cm.ClusterID = *resp.ClusterID
	}
	host, port := splitAddr(addr)
	cm.From.Host, cm.From.Port = host, port
	for _, b := range resp.Brokers {
		bm := BrokerMetadata{ID: b.NodeID, Host: b.Host, Port: int(b.Port)}
		if b.Rack != nil {
			bm.Rack = *b.Rack
		}
		cm.Brokers = append(cm.Brokers, bm)
		if bm.Host == host && bm.Port == port {
			cm.From = bm
		}
	}
	slices.SortFunc(cm.Brokers, func(a, b BrokerMetadata) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range resp.Topics {
		var tm TopicMetadata
		if t.Topic != nil {
			tm.Topic = *t.Topic
		}
		tm.ID, tm.Internal = t.TopicID, t.IsInternal
		tm.Err = publicError(topicError(t.ErrorCode, tm.Topic))
		for _, pt := range t.Partitions {
			tm.Partitions = append(tm.Partitions, PartitionMetadata{
				Partition:   pt.Partition,
				Leader:      pt.Leader,
				LeaderEpoch: pt.LeaderEpoch,
				Replicas:    slices.Clone(pt.Replicas),
				ISR:         slices.Clone(pt.ISR),
				Offline:     slices.Clone(pt.OfflineReplicas),
				Err:         publicError(protocol.PartitionError(pt.ErrorCode, tm.Topic, pt.Partition, "")),
			})
		}
		slices.SortFunc(tm.Partitions, func(a, b PartitionMetadata) int { return cmp.Compare(a.Partition, b.Partition) })
		cm.Topics = append(cm.Topics, tm)
	}
	slices.SortFunc(cm.Topics, func(a, b TopicMetadata) int { return strings.Compare(a.Topic, b.Topic) })
	return cm
}

// topicError is a topic-level code as an error: ErrUnknownTopic and
// ErrAuthorization joined where they apply.
func topicError(code int16, topic string) error {
	err := protocol.PartitionError(code, topic, -1, "")
	if err == nil {
		return nil
	}
	if code == int16(kafkaerr.UnknownTopicOrPartition) {
		return fmt.Errorf("%w %q: %w", ErrUnknownTopic, topic, err)
	}
	return authError(err)
}

func splitAddr(addr string) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(port)
	return host, n
}
