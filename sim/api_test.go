package sim

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestApiVersionsAllVersions(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	for v := int16(0); v <= 4; v++ {
		req := kmsg.NewPtrApiVersionsRequest()
		req.SetVersion(v)
		req.ClientSoftwareName, req.ClientSoftwareVersion = "simtest", "1"
		resp := tc.do(req).(*kmsg.ApiVersionsResponse)
		if resp.ErrorCode != 0 || len(resp.ApiKeys) != len(apiVersions) {
			t.Fatalf("v%d: code %d, %d keys", v, resp.ErrorCode, len(resp.ApiKeys))
		}
	}
	// A version newer than served gets a v0 answer with the versions (KIP-511).
	frame := kmsg.NewRequestFormatter().AppendRequest(nil, &kmsg.ApiVersionsRequest{Version: 4}, 99)
	binary.BigEndian.PutUint16(frame[6:], 77)
	if _, err := tc.nc.Write(frame); err != nil {
		t.Fatal(err)
	}
	resp, err := tc.recv(&kmsg.ApiVersionsRequest{Version: 0}, 99, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.(*kmsg.ApiVersionsResponse); r.ErrorCode != errUnsupportedVersion || len(r.ApiKeys) == 0 {
		t.Fatalf("unsupported version: code %d, %d keys", r.ErrorCode, len(r.ApiKeys))
	}
}

func TestMetadataVersionsAndEpochs(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("a", 3, 3), Topic("b", 1, 2))
	tc := dial(t, c.Addrs()[1])
	for _, v := range []int16{0, 1, 4, 7, 9, 12} {
		req := kmsg.NewPtrMetadataRequest()
		req.SetVersion(v)
		if v == 0 {
			req.Topics = []kmsg.MetadataRequestTopic{} // v0: empty means all
		}
		resp := tc.do(req).(*kmsg.MetadataResponse)
		if len(resp.Brokers) != 3 || len(resp.Topics) != 2 {
			t.Fatalf("v%d: %d brokers, %d topics", v, len(resp.Brokers), len(resp.Topics))
		}
		for _, mt := range resp.Topics {
			for _, mp := range mt.Partitions {
				leader, epoch := c.Leader(*mt.Topic, mp.Partition)
				if mp.Leader != leader || (v >= 7 && mp.LeaderEpoch != epoch) {
					t.Fatalf("v%d %s/%d: leader %d epoch %d, want %d %d", v, *mt.Topic, mp.Partition, mp.Leader, mp.LeaderEpoch, leader, epoch)
				}
			}
		}
	}
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	for _, name := range []string{"a", "nope"} {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	resp := tc.do(req).(*kmsg.MetadataResponse)
	if len(resp.Topics) != 2 || resp.Topics[0].ErrorCode != 0 || resp.Topics[1].ErrorCode != errUnknownTopicOrPartition {
		t.Fatalf("named topics: %+v", resp.Topics)
	}
	if err := c.MoveLeader("a", 0, 2); err != nil {
		t.Fatal(err)
	}
	resp = tc.do(req).(*kmsg.MetadataResponse)
	if p := resp.Topics[0].Partitions[0]; p.Leader != 2 || p.LeaderEpoch < 1 {
		t.Fatalf("after move: leader %d epoch %d", p.Leader, p.LeaderEpoch)
	}
}

func TestInitProducerIDAndFindCoordinator(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	tc := dial(t, c.Addrs()[0])
	seen := map[int64]bool{}
	for v := int16(0); v <= 5; v++ {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.SetVersion(v)
		resp := tc.do(req).(*kmsg.InitProducerIDResponse)
		if resp.ErrorCode != 0 || resp.ProducerEpoch != 0 || resp.ProducerID < 0 || seen[resp.ProducerID] {
			t.Fatalf("v%d: %+v", v, resp)
		}
		seen[resp.ProducerID] = true
	}
	for _, v := range []int16{0, 3, 4, 6} {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.SetVersion(v)
		req.CoordinatorKey = "g"
		req.CoordinatorKeys = []string{"g", "h"}
		resp := tc.do(req).(*kmsg.FindCoordinatorResponse)
		if v >= 4 {
			if len(resp.Coordinators) != 2 || resp.Coordinators[0].ErrorCode != 0 || resp.Coordinators[0].Port == 0 {
				t.Fatalf("v%d: %+v", v, resp)
			}
		} else if resp.ErrorCode != 0 || resp.Port == 0 {
			t.Fatalf("v%d: %+v", v, resp)
		}
	}
}

func TestProduceFetchEveryCodecKeepsBytes(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	leader, _ := c.Leader("t", 0)
	tc := dial(t, c.Addrs()[leader])
	var sent [][]byte
	offset := int64(0)
	for i, codec := range compress.Codecs() {
		raw := makeBatch(t, spec{pid: 5, seq: int32(i * 3), codec: codec, values: vals(codec.String(), 3)})
		sent = append(sent, raw)
		p := tc.produce("t", 0, -1, raw)
		if p.ErrorCode != 0 || p.BaseOffset != offset {
			t.Fatalf("%s: code %d offset %d, want offset %d", codec, p.ErrorCode, p.BaseOffset, offset)
		}
		offset += 3
	}
	f := tc.fetch("t", 0, 0, 0)
	if f.code != 0 || f.hw != offset || len(f.batches) != len(sent) {
		t.Fatalf("fetch: code %d hw %d, %d batches", f.code, f.hw, len(f.batches))
	}
	rest := f.raw
	for i, raw := range sent {
		got := rest[:len(raw)]
		rest = rest[len(raw):]
		// Only the base offset and partition leader epoch are rewritten.
		if !bytes.Equal(got[8:12], raw[8:12]) || !bytes.Equal(got[16:], raw[16:]) {
			t.Fatalf("batch %d bytes changed beyond offset and epoch", i)
		}
		if int64(binary.BigEndian.Uint64(got)) != int64(i*3) {
			t.Fatalf("batch %d base offset %d", i, binary.BigEndian.Uint64(got))
		}
	}
	for i, codec := range compress.Codecs() {
		if v := f.values[int64(i*3+2)]; v != codec.String()+"-2" {
			t.Fatalf("offset %d: %q", i*3+2, v)
		}
	}
	batches, err := c.Records("t", 0)
	if err != nil || len(batches) != 5 || batches[4].Codec != compress.Zstd || string(batches[4].Records[1].Value) != "zstd-1" {
		t.Fatalf("Records: %v %+v", err, batches)
	}
	// Every replica holds the same bytes.
	for id := int32(0); id < 3; id++ {
		rb, err := c.ReplicaRecords("t", 0, id)
		if err != nil || len(rb) != 5 || !bytes.Equal(rb[4].Raw, batches[4].Raw) {
			t.Fatalf("replica %d: %v, %d batches", id, err, len(rb))
		}
	}
}

func TestProduceRejectsBadBatches(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), MaxBatchBytes(4096))
	tc := dial(t, c.Addrs()[0])
	good := makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, codec: compress.Gzip, values: vals("v", 2)})
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-1] ^= 0xff
	badMagic := append([]byte(nil), good...)
	badMagic[16] = 1
	gzipGarbage := makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, codec: compress.None, values: vals("v", 2)})
	gzipGarbage[22] = byte(compress.Gzip) // attributes low byte; CRC now wrong, fix it
	binary.BigEndian.PutUint32(gzipGarbage[17:], crcOf(gzipGarbage))
	big := makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: []string{string(make([]byte, 5000))}})
	for name, tcase := range map[string]struct {
		raw  []byte
		code int16
	}{
		"crc":          {badCRC, errCorruptMessage},
		"two batches":  {append(append([]byte(nil), good...), good...), errInvalidRecord},
		"magic":        {badMagic, errInvalidRecord},
		"bad gzip":     {gzipGarbage, errUnknownServerError}, // as Kafka 4.4: kafkacheck.BatchRules
		"truncated":    {good[:40], errInvalidRecord},
		"too large":    {big, errMessageTooLarge},
		"empty":        {nil, errInvalidRecord},
		"unknown part": {good, errUnknownTopicOrPartition},
	} {
		p := int32(0)
		if name == "unknown part" {
			p = 7
		}
		if got := tc.produce("t", p, 1, tcase.raw); got.ErrorCode != tcase.code {
			t.Errorf("%s: code %d, want %d", name, got.ErrorCode, tcase.code)
		}
	}
	if got := tc.produce("nope", 0, 1, good); got.ErrorCode != errUnknownTopicOrPartition {
		t.Errorf("unknown topic: %d", got.ErrorCode)
	}
	if got := tc.produce("t", 0, 2, good); got.ErrorCode != errInvalidRequiredAcks {
		t.Errorf("acks=2: %d", got.ErrorCode)
	}
	if got := tc.produce("t", 0, 1, good); got.ErrorCode != 0 || got.BaseOffset != 0 {
		t.Errorf("good batch after bad ones: %+v", got)
	}
}

func crcOf(raw []byte) uint32 {
	var b kmsg.RecordBatch
	_ = b.ReadFrom(raw)
	return crc32Castagnoli(raw[21:])
}

func TestFetchLongPollAndOffsets(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	if f := tc.fetch("t", 0, 5, 0); f.code != errOffsetOutOfRange {
		t.Fatalf("offset past end: code %d", f.code)
	}
	tc2 := dial(t, c.Addrs()[0])
	freq := fetchReq("t", 0, 0, 5*time.Second)
	corr := tc2.send(freq)
	// The fetch is parked: nothing comes back until the produce lands.
	if _, err := tc2.recv(freq, corr, 150*time.Millisecond); !isTimeout(err) {
		t.Fatalf("fetch answered before any produce: %v", err)
	}
	_ = tc2.nc.SetReadDeadline(time.Time{})
	if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("x", 1)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	resp, err := tc2.recv(freq, corr, 4*time.Second)
	if err != nil {
		t.Fatalf("long-polling fetch not woken by produce: %v", err)
	}
	if fp := resp.(*kmsg.FetchResponse).Topics[0].Partitions[0]; fp.ErrorCode != 0 || fp.HighWatermark != 1 || len(fp.RecordBatches) == 0 {
		t.Fatalf("long poll: %+v", fp)
	}

	lo := kmsg.NewPtrListOffsetsRequest()
	lo.SetVersion(7)
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = "t"
	for _, ts := range []int64{-2, -1, 1000, 5000} {
		lp := kmsg.NewListOffsetsRequestTopicPartition()
		lp.Timestamp = ts
		lt.Partitions = append(lt.Partitions, lp)
	}
	lo.Topics = append(lo.Topics, lt)
	lr := tc.do(lo).(*kmsg.ListOffsetsResponse)
	want := []int64{0, 1, 0, -1}
	for i, p := range lr.Topics[0].Partitions {
		if p.ErrorCode != 0 || p.Offset != want[i] {
			t.Errorf("list offsets %d: code %d offset %d, want %d", i, p.ErrorCode, p.Offset, want[i])
		}
	}
}

func TestOffsetForLeaderEpoch(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	l0, _ := c.Leader("t", 0)
	tc := dial(t, c.Addrs()[l0])
	tc.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 4)}))
	other := 1 - l0
	if err := c.MoveLeader("t", 0, other); err != nil {
		t.Fatal(err)
	}
	tc1 := dial(t, c.Addrs()[other])
	tc1.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 2)}))
	_, epoch := c.Leader("t", 0)
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.SetVersion(4)
	req.ReplicaID = -1
	rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
	rt.Topic = "t"
	for _, e := range []int32{0, epoch} {
		rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
		rp.LeaderEpoch = e
		rp.CurrentLeaderEpoch = epoch
		rt.Partitions = append(rt.Partitions, rp)
	}
	stale := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	stale.CurrentLeaderEpoch = epoch - 1
	rt.Partitions = append(rt.Partitions, stale)
	req.Topics = append(req.Topics, rt)
	resp := tc1.do(req).(*kmsg.OffsetForLeaderEpochResponse)
	ps := resp.Topics[0].Partitions
	if ps[0].ErrorCode != 0 || ps[0].LeaderEpoch != 0 || ps[0].EndOffset != 4 {
		t.Errorf("epoch 0: %+v", ps[0])
	}
	if ps[1].ErrorCode != 0 || ps[1].LeaderEpoch != epoch || ps[1].EndOffset != 6 {
		t.Errorf("current epoch: %+v", ps[1])
	}
	if ps[2].ErrorCode != errFencedLeaderEpoch {
		t.Errorf("stale current epoch: %+v", ps[2])
	}
	// The old leader is no longer one: a fetch without client metadata
	// (before v11) is refused; v11+ is served from its own log (KIP-392).
	old := fetchReq("t", 0, 0, 0)
	old.SetVersion(10)
	if p := tc.do(old).(*kmsg.FetchResponse).Topics[0].Partitions[0]; p.ErrorCode != errNotLeaderOrFollower {
		t.Errorf("fetch v10 from old leader: code %d", p.ErrorCode)
	}
	if f := tc.fetch("t", 0, 0, 0); f.code != 0 {
		t.Errorf("fetch v12 from old leader: code %d", f.code)
	}
}
