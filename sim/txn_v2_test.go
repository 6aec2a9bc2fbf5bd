package sim

import (
	"math"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// endV2At sends EndTxn v5 at epoch and returns its answer.
func (x *txnClient) endV2At(epoch int16, commit bool) *kmsg.EndTxnResponse {
	x.t.Helper()
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(5)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = x.id, x.pid, epoch, commit
	return x.coord().do(req).(*kmsg.EndTxnResponse)
}

// TestTxnV2Features: a new cluster advertises transaction.version
// supported 0-2 and finalized at 2 with the transactions v2 versions, as
// Kafka 4.4 does; TransactionVersion(1) finalizes 1 and serves
// transactions v1's versions only (EndTxn v5 closes the connection);
// Pre25 knows no such feature.
func TestTxnV2Features(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []Option
		level   int16 // finalized; -1: not supported
		endTxn  int16
		offsets int16
	}{
		{"default", nil, 2, 5, 5},
		{"TransactionVersion(1)", []Option{TransactionVersion(1)}, 1, 4, 4},
		{"TransactionVersion(0)", []Option{TransactionVersion(0)}, 0, 4, 4},
		{"Pre25", []Option{Pre25()}, -1, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, append(tc.opts, Topic("t", 1, 1))...)
			conn := dial(t, c.Addrs()[0])
			req := kmsg.NewPtrApiVersionsRequest()
			req.SetVersion(3)
			req.ClientSoftwareName, req.ClientSoftwareVersion = "test", "1"
			r := conn.do(req).(*kmsg.ApiVersionsResponse)
			supported, level := false, int16(0)
			for _, f := range r.SupportedFeatures {
				if f.Name == "transaction.version" {
					supported = f.MinVersion == 0 && f.MaxVersion == 2
				}
			}
			for _, f := range r.FinalizedFeatures {
				if f.Name == "transaction.version" {
					if f.MinVersionLevel != f.MaxVersionLevel {
						t.Errorf("finalized %+v", f)
					}
					level = f.MaxVersionLevel
				}
			}
			if tc.level < 0 && (supported || len(r.FinalizedFeatures) > 0) || tc.level >= 0 && (!supported || level != tc.level) {
				t.Errorf("supported %v, finalized %d; want %d", r.SupportedFeatures, level, tc.level)
			}
			for _, k := range r.ApiKeys {
				if k.ApiKey == 26 && k.MaxVersion != tc.endTxn || k.ApiKey == 28 && k.MaxVersion != tc.offsets {
					t.Errorf("%s up to v%d", kmsg.NameForKey(k.ApiKey), k.MaxVersion)
				}
			}
			x := newTxnClient(t, c, "tx")
			x.init()
			if tc.endTxn < 5 {
				req := kmsg.NewPtrEndTxnRequest()
				req.SetVersion(5)
				req.TransactionalID, req.ProducerID, req.ProducerEpoch = x.id, x.pid, x.epoch
				x.coord().expectNoAnswer(req)
			}
		})
	}
}

// TestTxnV2ProduceAdds: under transactions v2 a Produce v12 adds its
// partition (DescribeTransaction lists it), starting the transaction; a
// Produce v12 at another epoch is INVALID_PRODUCER_EPOCH, one while the
// transaction's markers are being written NOT_ENOUGH_REPLICAS (the
// coordinator's CONCURRENT_TRANSACTIONS); TxnOffsetCommit v5 adds the
// group's partition and the offsets are committed with the transaction.
func TestTxnV2ProduceAdds(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 2, 1))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	if rp := x.produceAt(12, t0, 2, true); rp.ErrorCode != 0 {
		t.Fatalf("Produce v12 not added: %d", rp.ErrorCode)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnOngoing || len(d.Partitions["t"]) != 1 {
		t.Fatalf("after Produce v12: %+v", d)
	}
	x.epoch++
	if rp := x.produceAt(12, t1, 1, true); rp.ErrorCode != errInvalidProducerEpoch {
		t.Errorf("Produce v12 at another epoch: %d", rp.ErrorCode)
	}
	x.epoch--
	if code := commitTxnOffsetAt(t, x, 5, "g", t0, 7); code != 0 {
		t.Errorf("TxnOffsetCommit v5 without AddOffsetsToTxn: %d", code)
	}
	// The only replica of partition 1 down: the commit stays in
	// PrepareCommit.
	leader, _ := c.Leader("t", 1)
	x.add(t1)
	x.produce(t1, 1)
	if err := c.StopBroker(leader); err != nil {
		t.Fatal(err)
	}
	resp := x.endV2At(x.epoch, true)
	if resp.ErrorCode != 0 || resp.ProducerID != x.pid || resp.ProducerEpoch != x.epoch+1 {
		t.Fatalf("EndTxn v5: %+v", resp)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnPrepareCommit {
		t.Fatalf("with a leader down: %+v", d)
	}
	x.epoch, x.seq = resp.ProducerEpoch, map[tp]int32{}
	if l, _ := c.Leader("t", 0); l != leader {
		if rp := x.produceAt(12, t0, 1, true); rp.ErrorCode != errNotEnoughReplicas {
			t.Errorf("Produce v12 while the markers are written: %d", rp.ErrorCode)
		}
	}
	if r := x.endV2At(x.epoch-1, true); r.ErrorCode != errConcurrentTransactions {
		t.Errorf("EndTxn v5 retried while completing: %+v", r)
	}
	if err := c.StartBroker(leader); err != nil {
		t.Fatal(err)
	}
	waitTxnState(t, c, "tx", TxnCompleteCommit)
	if got := c.CommittedOffsets("g")["t"][0]; got != 7 {
		t.Errorf("committed offset %d, want 7", got)
	}
}

// commitTxnOffsetAt sends TxnOffsetCommit at version v of offset for p in
// group (no generation) to the group's coordinator.
func commitTxnOffsetAt(t *testing.T, x *txnClient, v int16, group string, p tp, offset int64) int16 {
	t.Helper()
	x.c.mu.Lock()
	gc, _ := x.c.coordinatorLocked(&x.c.txn.groups, group)
	x.c.mu.Unlock()
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.SetVersion(v)
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch, req.Generation = x.id, group, x.pid, x.epoch, -1
	rt := kmsg.NewTxnOffsetCommitRequestTopic()
	rt.Topic = p.topic
	rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	rp.Partition, rp.Offset = p.partition, offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return x.conn(gc).do(req).(*kmsg.TxnOffsetCommitResponse).Topics[0].Partitions[0].ErrorCode
}

// TestTxnV2EpochRotation: an EndTxn v5 at epoch 32766 exhausts the
// producer id: the markers carry 32767, the answer is a new producer id
// at epoch 0, and a retry naming the old id at 32766 gets that answer
// again (Kafka's TransactionMetadata.prepareComplete).
func TestTxnV2EpochRotation(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1))
	x := newTxnClient(t, c, "tx")
	x.init()
	c.mu.Lock()
	c.txn.txns["tx"].epoch = math.MaxInt16 - 1
	c.mu.Unlock()
	x.epoch = math.MaxInt16 - 1
	t0 := tp{"t", 0}
	if rp := x.produceAt(12, t0, 1, true); rp.ErrorCode != 0 {
		t.Fatalf("Produce v12: %d", rp.ErrorCode)
	}
	old := x.pid
	resp := x.endV2At(x.epoch, true)
	if resp.ErrorCode != 0 || resp.ProducerID == old || resp.ProducerEpoch != 0 {
		t.Fatalf("EndTxn v5 at 32766: %+v", resp)
	}
	d := waitTxnState(t, c, "tx", TxnCompleteCommit)
	if d.ProducerID != resp.ProducerID || d.ProducerEpoch != 0 {
		t.Errorf("after the commit: %+v", d)
	}
	fp := readCommitted(t, x.conn(0), t0, 0)
	bs := recordBatches(t, fp.RecordBatches)
	if len(bs) != 2 || bs[1].ProducerID != old || bs[1].ProducerEpoch != math.MaxInt16 {
		t.Errorf("the marker: %+v", bs)
	}
	if r := x.endV2At(math.MaxInt16-1, true); r.ErrorCode != 0 || r.ProducerID != resp.ProducerID || r.ProducerEpoch != 0 {
		t.Errorf("EndTxn v5 retried with the old producer: %+v", r)
	}
	x.pid, x.epoch, x.seq = resp.ProducerID, 0, map[tp]int32{}
	if rp := x.produceAt(12, t0, 1, true); rp.ErrorCode != 0 {
		t.Errorf("Produce v12 as the new producer: %d", rp.ErrorCode)
	}
}
