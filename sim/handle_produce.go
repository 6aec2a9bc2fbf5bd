package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceResult is the decision for one partition of a produce request.
type produceResult struct {
	rp    *kmsg.ProduceResponseTopicPartition
	rec   ProduceRecord
	pt    *partition
	need  int64 // acks=-1: the high watermark that acknowledges the batch
	epoch int32 // the leader epoch the batch was decided under
	wait  bool
	act   action
}

func (b *broker) produce(ctx context.Context, r *kmsg.ProduceRequest) outcome {
	c := b.c
	resp := r.ResponseKind().(*kmsg.ProduceResponse)
	now := time.Now()
	var results []*produceResult
	// Kafka refuses a whole request holding a transactional batch without
	// a transactional id (authorized for it) before looking at any partition.
	txnDenied := hasTransactionalBatch(r) && (r.TransactionID == nil || !b.allowedTxn(ctx, *r.TransactionID))
	for ti, rt := range r.Topics {
		resp.Topics = append(resp.Topics, kmsg.NewProduceResponseTopic())
		resp.Topics[ti].Topic = rt.Topic
		resp.Topics[ti].Partitions = make([]kmsg.ProduceResponseTopicPartition, len(rt.Partitions))
		for pi, p := range rt.Partitions {
			rp := &resp.Topics[ti].Partitions[pi]
			*rp = kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = -1, -1, -1
			res := &produceResult{rp: rp, rec: ProduceRecord{
				Time: now, Broker: b.id, Conn: connOf(ctx), Topic: rt.Topic, Partition: p.Partition, ProducerID: -1,
				ProducerEpoch: -1, BaseSequence: -1, Acks: r.Acks, Offset: -1,
			}}
			if txnDenied {
				rp.ErrorCode = errTransactionalIDAuthorization
			} else {
				b.producePartition(ctx, res, r, rt.Topic, p.Partition, p.Records, now)
			}
			results = append(results, res)
		}
	}
	b.awaitReplication(ctx, r, results)
	if r.Version >= 10 {
		b.addLeaderHints(resp, results)
	}
	act := actRespond
	if r.Acks == 0 {
		act = actNoResponse
		// Kafka never answers acks=0; a partition it refused it can only
		// signal by closing the connection (kafkacheck.AcksZero).
		for _, res := range results {
			if res.rp.ErrorCode != errNone {
				act = actClose
			}
		}
	}
	for _, res := range results {
		if res.act > act {
			act = res.act
		}
	}
	if ctx.Err() != nil {
		act = b.stoppedAct()
	}
	late := lateFaultOf(ctx)
	reset := late != nil && late.kind == faultResetAfterAnswer
	if reset && late.reset.ExpiryCheck {
		c.mu.Lock()
		c.expireStampedLocked(time.Now(), b.id)
		c.mu.Unlock()
	}
	recs := make([]ProduceRecord, len(results))
	for i, res := range results {
		res.rec.ErrorCode = res.rp.ErrorCode
		if res.rp.ErrorCode == errNone {
			res.rec.Offset = res.rp.BaseOffset
		}
		res.rec.Outcome = act.String()
		if reset && (act == actRespond || act == actNoResponse) {
			res.rec.Outcome += ", then the connection reset"
		}
		if late != nil {
			if res.rec.Fault == "" {
				res.rec.Fault = late.String()
			}
			if late.kind == faultProcessAfterDrop {
				res.rec.Outcome = "lost: connection dropped before processing"
			}
		}
		recs[i] = res.rec
	}
	c.rec.produce(recs...)
	oc := outcome{resp: resp, act: act}
	if reset {
		oc.reset, oc.resetAfter = true, late.reset.After
	}
	return oc
}

// producePartition decides and, when valid, appends one partition's batch.
func (b *broker) producePartition(ctx context.Context, res *produceResult, r *kmsg.ProduceRequest, topic string, p int32, raw []byte, now time.Time) {
	c := b.c
	acks := r.Acks
	rp := res.rp
	fail := func(code int16, msg string) {
		rp.ErrorCode = code
		rp.BaseOffset = -1
		if msg != "" {
			rp.ErrorMessage = &msg
		}
	}
	if acks != 0 && acks != 1 && acks != -1 {
		fail(errInvalidRequiredAcks, "")
		return
	}
	h, batch, perr := parseProduceBatch(raw, c.cfg.maxBatchBytes, c.cfg.maxDecompressed, c.cfg.compacted[topic])
	if perr == nil {
		raw = batch // stray bytes after the batch are not kept, as Kafka trims them
		res.rec.ProducerID, res.rec.ProducerEpoch = h.producerID, h.producerEpoch
		res.rec.BaseSequence, res.rec.NumRecords = h.baseSequence, h.numRecords
	}
	if !b.allowed(ctx, topic, OpWrite) {
		fail(errTopicAuthorization, "")
		return
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		fail(errUnknownTopicOrPartition, "")
		return
	}
	if pt.leader != b.id {
		fail(errNotLeaderOrFollower, "")
		return
	}
	f := pt.takeFault()
	if f != nil {
		res.rec.Fault = f.String()
		if !f.afterAppend {
			res.act = f.act()
			fail(f.code, "injected")
			return
		}
	}
	if perr != nil && requestLevel(raw) {
		failBatch(fail, perr)
		return
	}
	if code := b.verifyTxnBatchLocked(r, pt, raw); code != errNone {
		fail(code, "")
		return
	}
	if acks == -1 && len(pt.isr) < pt.minISR {
		// Kafka checks this before it looks at the batch itself.
		fail(errNotEnoughReplicas, "")
		return
	}
	if perr != nil {
		failBatch(fail, perr)
		return
	}
	lead := pt.logs[b.id]
	rp.LogStartOffset = lead.start
	res.pt, res.epoch = pt, pt.epoch
	if c.cfg.sink {
		k := tp{topic, p}
		rp.BaseOffset = c.sinkLEOs[k]
		c.sinkLEOs[k] += h.count()
		res.rec.Appended = true
		b.applyAfterAppend(res, f)
		return
	}
	if h.producerID >= 0 && c.cfg.epochPerProducer {
		if e, ok := c.epochs[h.producerID]; ok && h.producerEpoch < e {
			fail(errInvalidProducerEpoch, "")
			return
		}
	}
	dup, code := lead.pstate.check(&h, seqRules{pre25: c.cfg.pre25, fix15591: c.cfg.fix15591}, lead.leo == 0)
	lead.pstate.touch(h.producerID, now)
	switch {
	case code != errNone:
		fail(code, "")
		return
	case dup != nil:
		rp.BaseOffset = dup.firstOffset
		res.need = dup.lastOffset + 1
		res.rec.Duplicate = true
	default:
		e := newEntry(raw, h, lead.leo, pt.epoch, now)
		lead.append(e)
		if h.producerID >= 0 && c.cfg.epochPerProducer && h.producerEpoch > c.epochs[h.producerID] {
			c.epochs[h.producerID] = h.producerEpoch
		}
		rp.BaseOffset = e.base
		res.need = e.end()
		res.rec.Appended = true
		c.updateHWLocked(pt)
		c.broadcastLocked()
	}
	res.wait = acks == -1
	b.applyAfterAppend(res, f)
}

// applyAfterAppend applies a fault that strikes once the batch is written.
func (b *broker) applyAfterAppend(res *produceResult, f *fault) {
	if f == nil {
		return
	}
	res.act = f.act()
	if f.kind == faultError {
		res.rp.ErrorCode = f.code
		res.rp.BaseOffset = -1
		res.wait = false
	}
}

// awaitReplication holds an acks=-1 response until the high watermark
// covers each batch, the leadership changes (NOT_LEADER_OR_FOLLOWER), the
// request's timeout passes (REQUEST_TIMED_OUT) or the broker stops.
func (b *broker) awaitReplication(ctx context.Context, r *kmsg.ProduceRequest, results []*produceResult) {
	c := b.c
	deadline := time.Now().Add(time.Duration(max(r.TimeoutMillis, 0)) * time.Millisecond)
	for {
		c.mu.Lock()
		pending := 0
		for _, res := range results {
			if !res.wait {
				continue
			}
			switch pt := res.pt; {
			case pt.deleted:
				// Kafka's DelayedProduce finds the partition gone.
				res.rp.ErrorCode, res.rp.BaseOffset, res.wait = errUnknownTopicOrPartition, -1, false
			case pt.leader != b.id || pt.epoch != res.epoch:
				res.rp.ErrorCode, res.rp.BaseOffset, res.wait = errNotLeaderOrFollower, -1, false
			case pt.hw >= res.need && len(pt.isr) < pt.minISR:
				res.rp.ErrorCode, res.rp.BaseOffset, res.wait = errNotEnoughReplicasAfterAppend, -1, false
			case pt.hw >= res.need:
				res.wait = false
			default:
				pending++
			}
		}
		ch := c.changed
		c.mu.Unlock()
		if pending == 0 {
			return
		}
		if !waitChange(ctx, ch, deadline) {
			if ctx.Err() != nil {
				return
			}
			if !time.Now().Before(deadline) {
				for _, res := range results {
					if res.wait {
						res.rp.ErrorCode, res.rp.BaseOffset, res.wait = errRequestTimedOut, -1, false
					}
				}
				return
			}
		}
	}
}

// addLeaderHints fills KIP-951's current leader and its endpoint into
// NOT_LEADER_OR_FOLLOWER answers (Produce v10+), as Kafka 3.7+ does.
func (b *broker) addLeaderHints(resp *kmsg.ProduceResponse, results []*produceResult) {
	c := b.c
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[int32]bool{}
	for _, res := range results {
		if res.rp.ErrorCode != errNotLeaderOrFollower {
			continue
		}
		pt, err := c.partitionLocked(res.rec.Topic, res.rec.Partition)
		if err != nil || pt.leader < 0 {
			continue
		}
		res.rp.CurrentLeader.LeaderID, res.rp.CurrentLeader.LeaderEpoch = pt.leader, pt.epoch
		if !seen[pt.leader] {
			seen[pt.leader] = true
			lb := c.brokers[pt.leader]
			eb := kmsg.NewProduceResponseBroker()
			eb.NodeID = lb.id
			eb.Host, eb.Port = hostPort(lb.addr)
			resp.Brokers = append(resp.Brokers, eb)
		}
	}
}

// hasTransactionalBatch reports whether the first batch of any partition
// of r is a transactional magic-2 batch (Kafka's
// RequestUtils.hasTransactionalRecords).
func hasTransactionalBatch(r *kmsg.ProduceRequest) bool {
	for _, rt := range r.Topics {
		for _, p := range rt.Partitions {
			b, err := firstBatch(p.Records)
			if err == nil && len(b) >= offsetOfAttributes+2 && b[offsetOfMagic] == 2 &&
				binary.BigEndian.Uint16(b[offsetOfAttributes:])&attrTransactional != 0 {
				return true
			}
		}
	}
	return false
}

// verifyTxnBatchLocked is Kafka 3.6+'s check of a transactional batch
// before it is appended (KIP-890 part 1): unless the producer's
// transaction is already open on the partition, the leader asks the
// coordinator whether the partition is in it (verifyTxnLocked), or, for
// a Produce v12 under transactions v2 (KIP-890 part 2), asks it to add
// the partition (addTxnPartitionLocked). WithoutTxnVerification skips
// it, as older brokers do.
func (b *broker) verifyTxnBatchLocked(r *kmsg.ProduceRequest, pt *partition, raw []byte) int16 {
	c := b.c
	pid, epoch, ok := peekTxnBatch(raw)
	if !ok || c.cfg.noTxnVerify || r.TransactionID == nil {
		return errNone
	}
	if pe := pt.logs[b.id].pstate[pid]; pe != nil && pe.txnFirst >= 0 {
		return errNone
	}
	if r.Version >= 12 && c.cfg.txnV2() {
		return c.addTxnPartitionLocked(*r.TransactionID, pid, epoch, tp{pt.topic, pt.index}, time.Now())
	}
	return c.verifyTxnLocked(*r.TransactionID, pid, epoch, tp{pt.topic, pt.index}, r.Version)
}

// peekTxnBatch reads the producer id and epoch of raw's first batch when
// it is a transactional magic-2 batch with a producer id, as Kafka reads
// them (without checking the batch) to verify it.
func peekTxnBatch(raw []byte) (pid int64, epoch int16, ok bool) {
	b, err := firstBatch(raw)
	if err != nil || len(b) < recordBatchHeaderLen || b[offsetOfMagic] != 2 ||
		binary.BigEndian.Uint16(b[offsetOfAttributes:])&attrTransactional == 0 {
		return -1, -1, false
	}
	pid = int64(binary.BigEndian.Uint64(b[43:]))
	epoch = int16(binary.BigEndian.Uint16(b[51:]))
	return pid, epoch, pid >= 0
}

// requestLevel reports whether raw fails the checks Kafka makes of a
// produce request's records before it hands them to the partition
// (ProduceRequest.validateRecords: one complete batch, magic 2).
func requestLevel(raw []byte) bool {
	b, err := firstBatch(raw)
	return err != nil || b[offsetOfMagic] != 2
}

// failBatch answers a batch that failed parseProduceBatch.
func failBatch(fail func(int16, string), err error) {
	var be *BatchError
	if errors.As(err, &be) {
		fail(be.Code, be.Reason)
		return
	}
	fail(errCorruptMessage, err.Error())
}
