package sim

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func (b *broker) apiVersions(r *kmsg.ApiVersionsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.ApiKeys = apiVersionsFor(&b.c.cfg)
	if b.c.cfg.txnFeature() {
		// The feature Kafka 3.8+ brokers support, finalized at the
		// cluster's level (a level-0 feature is not listed).
		sf := kmsg.NewApiVersionsResponseSupportedFeature()
		sf.Name, sf.MinVersion, sf.MaxVersion = txnVersionFeature, 0, 2
		resp.SupportedFeatures = append(resp.SupportedFeatures, sf)
		if lv := b.c.cfg.txnVersion; lv > 0 {
			ff := kmsg.NewApiVersionsResponseFinalizedFeature()
			ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = txnVersionFeature, lv, lv
			resp.FinalizedFeatures = append(resp.FinalizedFeatures, ff)
			resp.FinalizedFeaturesEpoch = 1
		}
	}
	return resp
}

// txnVersionFeature is the feature naming the cluster's transactions
// version (KIP-890 part 2).
const txnVersionFeature = "transaction.version"

// hostPort splits a broker address for metadata.
func hostPort(addr string) (string, int32) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	p, _ := strconv.Atoi(port)
	return host, int32(p)
}

func (b *broker) metadata(ctx context.Context, r *kmsg.MetadataRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.MetadataResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	resp.ControllerID = -1
	for _, br := range c.brokers {
		if !br.up {
			continue
		}
		if resp.ControllerID < 0 {
			resp.ControllerID = br.id
		}
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID = br.id
		mb.Host, mb.Port = hostPort(br.addr)
		resp.Brokers = append(resp.Brokers, mb)
	}
	id := c.clusterID
	resp.ClusterID = &id
	all := r.Topics == nil || (r.Version == 0 && len(r.Topics) == 0)
	if all {
		for _, name := range c.names {
			if b.allowed(ctx, name, OpDescribe) {
				resp.Topics = append(resp.Topics, c.topicMetadataLocked(c.topics[name]))
			}
		}
		return resp
	}
	for _, rt := range r.Topics {
		var t *topic
		if rt.Topic != nil {
			t = c.topics[*rt.Topic]
		} else {
			for _, cand := range c.topics {
				if cand.id == rt.TopicID {
					t = cand
				}
			}
		}
		if t != nil && !b.allowed(ctx, t.name, OpDescribe) {
			mt := kmsg.NewMetadataResponseTopic()
			mt.ErrorCode = errTopicAuthorization
			mt.Topic = rt.Topic
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		if t == nil {
			mt := kmsg.NewMetadataResponseTopic()
			mt.ErrorCode = errUnknownTopicOrPartition
			mt.Topic = rt.Topic
			mt.TopicID = rt.TopicID
			if rt.Topic != nil && c.cfg.autoCreate != nil && (r.Version < 4 || r.AllowAutoTopicCreation) {
				mt.ErrorCode = c.autoCreateLocked(*rt.Topic)
			}
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		resp.Topics = append(resp.Topics, c.topicMetadataLocked(t))
	}
	return resp
}

func (c *Cluster) topicMetadataLocked(t *topic) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	name := t.name
	mt.Topic = &name
	mt.TopicID = t.id
	for _, pt := range t.parts {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = pt.index
		mp.Leader = pt.leader
		mp.LeaderEpoch = pt.epoch
		mp.Replicas = append([]int32(nil), pt.replicas...)
		mp.ISR = append([]int32(nil), pt.isr...)
		slices.Sort(mp.ISR) // one answer for one ISR, whichever follower caught up first
		for _, id := range pt.replicas {
			if !c.brokers[id].up {
				mp.OfflineReplicas = append(mp.OfflineReplicas, id)
			}
		}
		if pt.leader < 0 {
			mp.ErrorCode = errLeaderNotAvailable
		}
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

func (b *broker) offsetForLeaderEpoch(ctx context.Context, r *kmsg.OffsetForLeaderEpochRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range r.Topics {
		ot := kmsg.NewOffsetForLeaderEpochResponseTopic()
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			op.Partition = rp.Partition
			op.LeaderEpoch, op.EndOffset = -1, -1
			cur := int32(-1)
			if r.Version >= 2 {
				cur = rp.CurrentLeaderEpoch
			}
			pt, code := b.leaderCheckLocked(rt.Topic, rp.Partition, cur)
			if !b.allowed(ctx, rt.Topic, OpDescribe) {
				code = errTopicAuthorization
			}
			op.ErrorCode = code
			if code == errNone {
				lead := pt.logs[pt.leader]
				// As in Kafka (Partition.lastOffsetForLeaderEpoch), a
				// consumer is not bounded by the high watermark: the
				// current epoch ends at the leader's log end, uncommitted
				// appends included.
				op.LeaderEpoch, op.EndOffset = lead.epochEnd(rp.LeaderEpoch, pt.epoch)
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return resp
}

// legalTopic is Kafka's topic name rule.
func legalTopic(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 249 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// autoCreateLocked creates topic name as auto.create.topics.enable does
// and returns the error code the creating answer gives for it; c.mu is
// held.
func (c *Cluster) autoCreateLocked(name string) int16 {
	if !legalTopic(name) {
		return errInvalidTopicException
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	spec := *c.cfg.autoCreate
	spec.name = name
	if spec.partitions < 1 {
		spec.partitions = 1
	}
	if err := c.addTopic(spec, int(seed%uint64(c.cfg.brokers)), rand.New(rand.NewPCG(seed, 1))); err != nil {
		c.log.Warn("auto-creating topic failed", "topic", name, "err", err)
		return errUnknownTopicOrPartition
	}
	c.log.Info("topic auto-created", "topic", name, "partitions", spec.partitions)
	return errLeaderNotAvailable
}
