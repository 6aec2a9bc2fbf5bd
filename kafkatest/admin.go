package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// Admin requests go straight to a running node's client listener (not
// through its proxy, so a test's faults do not block the test's own
// control), through rollsafe's protocol.Conn.

// admin dials the first running, unpaused node that answers.
func (c *Cluster) admin(ctx context.Context) (*protocol.Conn, error) {
	var errs []error
	for _, nd := range c.nodes {
		if !nd.running() || nd.isPaused() {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		conn, err := protocol.Dial(dctx, c.DirectAddr(nd.id), protocol.ConnConfig{ClientID: "kafkatest-admin", DialTimeout: 3 * time.Second})
		cancel()
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("kafkatest: no node to ask: %w", errors.Join(append(errs, errors.New("no running node"))...))
}

// request sends req to some running node.
func (c *Cluster) request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	conn, err := c.admin(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.Request(ctx, req)
}

// controllerRequest sends req to a node that acts on it: in KRaft mode
// any node (brokers forward to the controller quorum), in ZooKeeper mode
// the controller itself, the only broker that answers CreateTopics,
// DeleteTopics, ElectLeaders and AlterPartitionReassignments (the others
// answer NOT_CONTROLLER).
func (c *Cluster) controllerRequest(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if c.zk == nil {
		return c.request(ctx, req)
	}
	id, err := c.Controller(ctx)
	if err != nil {
		return nil, err
	}
	if id < 0 || int(id) >= len(c.nodes) || !c.nodes[id].running() || c.nodes[id].isPaused() {
		return nil, fmt.Errorf("kafkatest: the controller (broker %d in metadata) is not serving", id)
	}
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	conn, err := protocol.Dial(dctx, c.DirectAddr(id), protocol.ConnConfig{ClientID: "kafkatest-admin", DialTimeout: 3 * time.Second})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("kafkatest: dial the controller, broker %d: %w", id, err)
	}
	defer conn.Close()
	return conn.Request(ctx, req)
}

// Controller returns the controller's node id as metadata names it: in
// ZooKeeper mode the broker elected controller (-1 while there is none);
// in KRaft mode a broker that forwards to the controller quorum.
func (c *Cluster) Controller(ctx context.Context) (int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := c.request(ctx, req)
	if err != nil {
		return -1, fmt.Errorf("kafkatest: metadata: %w", err)
	}
	return resp.(*kmsg.MetadataResponse).ControllerID, nil
}

// Topic describes a topic to create.
type Topic struct {
	Name        string
	Partitions  int32 // default 1
	Replication int16 // default min(3, brokers)
	// Configs are topic configs, e.g. "min.insync.replicas": "2",
	// "max.message.bytes", "unclean.leader.election.enable",
	// "producer.id.expiration.ms", "cleanup.policy": "compact".
	Configs map[string]string
	// Assignment optionally fixes each partition's replicas, preferred
	// leader first (overrides Partitions and Replication).
	Assignment [][]int32
}

// CreateTopic creates t and waits until every partition has a leader and
// a full ISR.
func (c *Cluster) CreateTopic(ctx context.Context, t Topic) error {
	if t.Partitions <= 0 {
		t.Partitions = 1
	}
	if t.Replication <= 0 {
		t.Replication = int16(min(3, len(c.nodes)))
	}
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = t.Name
	rt.NumPartitions, rt.ReplicationFactor = t.Partitions, t.Replication
	if t.Assignment != nil {
		rt.NumPartitions, rt.ReplicationFactor = -1, -1
		for p, replicas := range t.Assignment {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = int32(p), replicas
			rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Configs)) {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		cfg.Name, cfg.Value = k, kmsg.StringPtr(t.Configs[k])
		rt.Configs = append(rt.Configs, cfg)
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Topics = []kmsg.CreateTopicsRequestTopic{rt}
	req.TimeoutMillis = 30000
	resp, err := c.controllerRequest(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkatest: create topic %s: %w", t.Name, err)
	}
	for _, r := range resp.(*kmsg.CreateTopicsResponse).Topics {
		if r.ErrorCode != 0 {
			msg := ""
			if r.ErrorMessage != nil {
				msg = *r.ErrorMessage
			}
			return fmt.Errorf("kafkatest: create topic %s: %w", t.Name, protocol.PartitionError(r.ErrorCode, t.Name, -1, msg))
		}
	}
	return c.WaitHealthy(ctx, t.Name)
}

// DeleteTopics deletes the named topics (their data goes too: a broker
// restarted later has less log to load). A topic that does not exist is
// not an error.
func (c *Cluster) DeleteTopics(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 30000
	for _, n := range names {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, n)
	}
	resp, err := c.controllerRequest(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkatest: delete topics: %w", err)
	}
	var errs []error
	for _, r := range resp.(*kmsg.DeleteTopicsResponse).Topics {
		if r.ErrorCode != 0 && r.ErrorCode != int16(kafkaerr.UnknownTopicOrPartition) {
			name := ""
			if r.Topic != nil {
				name = *r.Topic
			}
			errs = append(errs, fmt.Errorf("kafkatest: delete topic %s: %w", name, protocol.PartitionError(r.ErrorCode, name, -1, "")))
		}
	}
	return errors.Join(errs...)
}

// Partition is one partition's state as the metadata tells it.
type Partition struct {
	ID          int32
	Leader      int32 // -1: none
	LeaderEpoch int32
	Replicas    []int32 // preferred leader first
	ISR         []int32
}

// Partitions returns topic's partitions in id order.
func (c *Cluster) Partitions(ctx context.Context, topic string) ([]Partition, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = []kmsg.MetadataRequestTopic{rt}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: metadata of %s: %w", topic, err)
	}
	for _, t := range resp.(*kmsg.MetadataResponse).Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if t.ErrorCode != 0 {
			return nil, fmt.Errorf("kafkatest: metadata of %s: %w", topic, protocol.PartitionError(t.ErrorCode, topic, -1, ""))
		}
		out := make([]Partition, 0, len(t.Partitions))
		for _, p := range t.Partitions {
			out = append(out, Partition{ID: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR)})
		}
		slices.SortFunc(out, func(a, b Partition) int { return int(a.ID - b.ID) })
		return out, nil
	}
	return nil, fmt.Errorf("kafkatest: metadata of %s: %w", topic, protocol.ErrUnknownTopicOrPartition)
}

// Leader returns the current leader of topic's partition (-1: none).
func (c *Cluster) Leader(ctx context.Context, topic string, partition int32) (int32, error) {
	ps, err := c.Partitions(ctx, topic)
	if err != nil {
		return -1, err
	}
	for _, p := range ps {
		if p.ID == partition {
			return p.Leader, nil
		}
	}
	return -1, fmt.Errorf("kafkatest: %s[%d]: %w", topic, partition, protocol.ErrUnknownTopicOrPartition)
}

// Healthy reports whether p has a leader and every replica is in the ISR.
func (p Partition) Healthy() bool {
	return p.Leader >= 0 && len(p.ISR) == len(p.Replicas)
}

// Preferred reports whether p is led by its preferred replica.
func (p Partition) Preferred() bool { return len(p.Replicas) > 0 && p.Leader == p.Replicas[0] }

// WaitFor polls topic's metadata until ok holds for every partition.
func (c *Cluster) WaitFor(ctx context.Context, topic string, what string, ok func(Partition) bool) error {
	var last []Partition
	var lastErr error
	for {
		ps, err := c.Partitions(ctx, topic)
		if err == nil && len(ps) > 0 && !slices.ContainsFunc(ps, func(p Partition) bool { return !ok(p) }) {
			return nil
		}
		last, lastErr = ps, err
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: %s: not %s: %w (last: %+v, %v)", topic, what, ctx.Err(), last, lastErr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitLeaders waits until every partition of topic has a leader.
func (c *Cluster) WaitLeaders(ctx context.Context, topic string) error {
	return c.WaitFor(ctx, topic, "led", func(p Partition) bool { return p.Leader >= 0 })
}

// WaitHealthy waits until every partition of topic has a leader and a
// full ISR.
//
// In ZooKeeper mode a broker back from a pause about as long as its
// session can stay out of a partition's ISR for good (Kafka 2.8.1 here):
// its fetcher, refused at a newer epoch, waits for a LeaderAndIsr that
// never comes, or the leader's ISR update stays refused by ZooKeeper. After
// stuckRejoin with a running, unpaused replica missing from an ISR,
// WaitHealthy restarts the partition's leader and the missing replicas
// once each (the operator's remedy), saying so through Config.Logf.
func (c *Cluster) WaitHealthy(ctx context.Context, topic string) error {
	if c.zk == nil {
		return c.WaitFor(ctx, topic, "healthy", Partition.Healthy)
	}
	wctx, cancel := context.WithTimeout(ctx, stuckRejoin)
	err := c.WaitFor(wctx, topic, "healthy", Partition.Healthy)
	cancel()
	if err == nil || ctx.Err() != nil {
		return err
	}
	ps, perr := c.Partitions(ctx, topic)
	if perr != nil {
		return err
	}
	var restart []int32
	for _, p := range ps {
		var missing []int32
		for _, r := range p.Replicas {
			if !slices.Contains(p.ISR, r) && c.Running(r) && !c.Paused(r) {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			continue
		}
		c.cfg.Logf("kafkatest: brokers %v still out of the ISR %v of %s[%d] led by %d after %v (ZooKeeper mode): restarting the leader and them", missing, p.ISR, topic, p.ID, p.Leader, stuckRejoin)
		for _, b := range append([]int32{p.Leader}, missing...) {
			if b >= 0 && !slices.Contains(restart, b) {
				restart = append(restart, b)
			}
		}
	}
	for _, b := range restart {
		if err := c.Stop(ctx, b); err != nil {
			return err
		}
		if err := c.Start(ctx, b); err != nil {
			return err
		}
	}
	return c.WaitFor(ctx, topic, "healthy", Partition.Healthy)
}

// stuckRejoin is how long WaitHealthy waits in ZooKeeper mode before it
// restarts the brokers of a partition with a running replica out of its ISR.
const stuckRejoin = 60 * time.Second

// ElectPreferred runs a preferred-leader election (ElectLeaders, API 43)
// for the given partitions of topic (none: all of them). A partition
// already led by its preferred replica is not an error.
func (c *Cluster) ElectPreferred(ctx context.Context, topic string, partitions ...int32) error {
	if len(partitions) == 0 {
		ps, err := c.Partitions(ctx, topic)
		if err != nil {
			return err
		}
		for _, p := range ps {
			partitions = append(partitions, p.ID)
		}
	}
	return c.electLeaders(ctx, 0, "elect leaders", topic, partitions)
}

// electLeaders sends ElectLeaders (API 43) of electionType (0 preferred,
// 1 unclean) for topic's partitions; a partition that needs no election
// (ELECTION_NOT_NEEDED) is not an error. what names the call in errors.
func (c *Cluster) electLeaders(ctx context.Context, electionType int8, what, topic string, partitions []int32) error {
	return c.electMany(ctx, electionType, what, topic, map[string][]int32{topic: partitions})
}

// electMany is electLeaders for the partitions of several topics at once,
// in one request; name names them in errors.
func (c *Cluster) electMany(ctx context.Context, electionType int8, what, name string, parts map[string][]int32) error {
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = electionType
	req.TimeoutMillis = 30000
	topics := slices.Sorted(maps.Keys(parts))
	for _, topic := range topics {
		rt := kmsg.NewElectLeadersRequestTopic()
		rt.Topic, rt.Partitions = topic, parts[topic]
		req.Topics = append(req.Topics, rt)
	}
	topic := name
	resp, err := c.controllerRequest(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkatest: %s of %s: %w", what, topic, err)
	}
	r := resp.(*kmsg.ElectLeadersResponse)
	if r.ErrorCode != 0 {
		return fmt.Errorf("kafkatest: %s of %s: %w", what, topic, protocol.ErrorForCode(r.ErrorCode))
	}
	var errs []error
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 || p.ErrorCode == int16(kafkaerr.ElectionNotNeeded) {
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
		return fmt.Errorf("kafkatest: %s: %w", what, errors.Join(errs...))
	}
	return nil
}

// ElectPreferredTopicsWait hands every partition of the given topics to its
// preferred replica in one ElectLeaders request, so that they all move at
// the same moment, and retries until each is led by it (e.g. while a
// restarted broker is still catching up into the ISR).
func (c *Cluster) ElectPreferredTopicsWait(ctx context.Context, topics ...string) error {
	name := strings.Join(topics, ",")
	for {
		parts, preferred, last := map[string][]int32{}, true, error(nil)
		for _, topic := range topics {
			ps, err := c.Partitions(ctx, topic)
			if err != nil {
				last = err
				break
			}
			for _, p := range ps {
				parts[topic] = append(parts[topic], p.ID)
				preferred = preferred && p.Preferred()
			}
		}
		if last == nil {
			if preferred {
				return nil
			}
			last = c.electMany(ctx, 0, "elect leaders", name, parts)
			if last == nil {
				last = errors.New("elected, but metadata does not show preferred leaders yet")
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: preferred leaders of %s: %w (last: %v)", name, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ElectPreferredWait retries ElectPreferred until every listed partition
// (none: all) is led by its preferred replica, e.g. while a restarted
// broker is still catching up into the ISR.
func (c *Cluster) ElectPreferredWait(ctx context.Context, topic string, partitions ...int32) error {
	var last error
	for {
		last = c.ElectPreferred(ctx, topic, partitions...)
		if last == nil {
			ps, err := c.Partitions(ctx, topic)
			if err == nil && !slices.ContainsFunc(ps, func(p Partition) bool {
				return (len(partitions) == 0 || slices.Contains(partitions, p.ID)) && !p.Preferred()
			}) {
				return nil
			}
			last = fmt.Errorf("elected, but metadata does not show preferred leaders yet: %+v %v", ps, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: preferred leaders of %s: %w (last: %v)", topic, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Reassign sets the replicas of topic's partition (AlterPartitionReassignments,
// API 45), preferred leader first, and waits until the reassignment is done.
//
// Kafka before 2.4 has no such request: there the broker's own
// ReassignPartitionsCommand does it through ZooKeeper (reassign_zk.go).
func (c *Cluster) Reassign(ctx context.Context, topic string, partition int32, replicas []int32) error {
	if !c.cfg.Version.hasReassignAPI() {
		return c.reassignTool(ctx, topic, partition, replicas)
	}
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	rp.Partition, rp.Replicas = partition, replicas
	rt.Partitions = []kmsg.AlterPartitionAssignmentsRequestTopicPartition{rp}
	req.Topics = []kmsg.AlterPartitionAssignmentsRequestTopic{rt}
	resp, err := c.controllerRequest(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkatest: reassign %s[%d]: %w", topic, partition, err)
	}
	r := resp.(*kmsg.AlterPartitionAssignmentsResponse)
	if r.ErrorCode != 0 {
		return fmt.Errorf("kafkatest: reassign %s[%d]: %w", topic, partition, protocol.ErrorForCode(r.ErrorCode))
	}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return fmt.Errorf("kafkatest: reassign: %w", protocol.PartitionError(p.ErrorCode, t.Topic, p.Partition, ""))
			}
		}
	}
	return c.WaitFor(ctx, topic, "reassigned", func(p Partition) bool {
		return p.ID != partition || (slices.Equal(p.Replicas, replicas) && p.Healthy())
	})
}

// MoveLeader makes broker to the leader of topic's partition: it puts to
// first in the replica list (AlterPartitionReassignments) and runs a
// preferred-leader election. to must already be a replica.
func (c *Cluster) MoveLeader(ctx context.Context, topic string, partition, to int32) error {
	ps, err := c.Partitions(ctx, topic)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ps, func(p Partition) bool { return p.ID == partition })
	if i < 0 {
		return fmt.Errorf("kafkatest: %s[%d]: %w", topic, partition, protocol.ErrUnknownTopicOrPartition)
	}
	if !slices.Contains(ps[i].Replicas, to) {
		return fmt.Errorf("kafkatest: broker %d is not a replica of %s[%d] (%v)", to, topic, partition, ps[i].Replicas)
	}
	replicas := []int32{to}
	for _, r := range ps[i].Replicas {
		if r != to {
			replicas = append(replicas, r)
		}
	}
	if err := c.Reassign(ctx, topic, partition, replicas); err != nil {
		return err
	}
	return c.ElectPreferredWait(ctx, topic, partition)
}

// SetClusterConfig sets (value non-nil) or removes (nil) a dynamic
// cluster-wide broker config (IncrementalAlterConfigs on the default
// broker resource), e.g. "producer.id.expiration.ms", which is a broker
// config, not a topic config.
func (c *Cluster) SetClusterConfig(ctx context.Context, key string, value *string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, ""
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value, cfg.Op = key, value, kmsg.IncrementalAlterConfigOpSet
	if value == nil {
		cfg.Op = kmsg.IncrementalAlterConfigOpDelete
	}
	r.Configs = []kmsg.IncrementalAlterConfigsRequestResourceConfig{cfg}
	req.Resources = []kmsg.IncrementalAlterConfigsRequestResource{r}
	resp, err := c.request(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkatest: set %s: %w", key, err)
	}
	for _, res := range resp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
		if res.ErrorCode != 0 {
			msg := ""
			if res.ErrorMessage != nil {
				msg = *res.ErrorMessage
			}
			return fmt.Errorf("kafkatest: set %s: %w: %s", key, protocol.ErrorForCode(res.ErrorCode), msg)
		}
	}
	return nil
}

// ActiveProducers returns the producer ids the leader of topic's
// partition keeps state for (DescribeProducers, KIP-664), e.g. to see a
// producer id expire.
func (c *Cluster) ActiveProducers(ctx context.Context, topic string, partition int32) ([]int64, error) {
	leader, err := c.Leader(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	if leader < 0 || int(leader) >= len(c.nodes) {
		return nil, fmt.Errorf("kafkatest: %s[%d] has no leader", topic, partition)
	}
	conn, err := protocol.Dial(ctx, c.DirectAddr(leader), protocol.ConnConfig{ClientID: "kafkatest-admin"})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic, rt.Partitions = topic, []int32{partition}
	req.Topics = []kmsg.DescribeProducersRequestTopic{rt}
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: describe producers of %s[%d]: %w", topic, partition, err)
	}
	var out []int64
	for _, t := range resp.(*kmsg.DescribeProducersResponse).Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return nil, fmt.Errorf("kafkatest: describe producers: %w", protocol.PartitionError(p.ErrorCode, t.Topic, p.Partition, ""))
			}
			for _, a := range p.ActiveProducers {
				out = append(out, a.ProducerID)
			}
		}
	}
	return out, nil
}

// EligibleReplicas returns partition's eligible leader replicas and last
// known ELR (KIP-966) as DescribeTopicPartitions shows them: the replicas
// that left the ISR while it was below min.insync.replicas, which a clean
// election may choose when no in-sync replica is left, and the last
// leader of a partition whose ISR emptied.
func (c *Cluster) EligibleReplicas(ctx context.Context, topic string, partition int32) (elr, lastKnown []int32, err error) {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
	rt.Topic = topic
	req.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{rt}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("kafkatest: partitions of %s: %w", topic, err)
	}
	for _, t := range resp.(*kmsg.DescribeTopicPartitionsResponse).Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if t.ErrorCode != 0 {
			return nil, nil, fmt.Errorf("kafkatest: partitions of %s: %w", topic, protocol.PartitionError(t.ErrorCode, topic, -1, ""))
		}
		for _, p := range t.Partitions {
			if p.Partition == partition {
				return slices.Clone(p.EligibleLeaderReplicas), slices.Clone(p.LastKnownELR), nil
			}
		}
	}
	return nil, nil, fmt.Errorf("kafkatest: %s[%d]: %w", topic, partition, protocol.ErrUnknownTopicOrPartition)
}
