package sim

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// seedFrames are well-formed request frames (without size prefix) of every
// served API at its lowest and highest version.
func seedFrames(t testing.TB) [][]byte {
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("fuzz"))
	txnBatch := makeBatch(t, spec{pid: 1000, seq: 0, codec: compress.Zstd, values: vals("z", 3), txn: true})
	var out [][]byte
	for _, k := range apiVersions {
		for _, v := range []int16{k.MinVersion, k.MaxVersion} {
			var req kmsg.Request
			switch k.ApiKey {
			case 0:
				r := produceReq("t", 0, -1, txnBatch)
				r.TransactionID = kmsg.StringPtr("tx")
				req = r
			case 1:
				r := fetchReq("t", 0, 0, 10*time.Millisecond)
				r.IsolationLevel = 1
				req = r
			case 2:
				r := kmsg.NewPtrListOffsetsRequest()
				rt := kmsg.NewListOffsetsRequestTopic()
				rt.Topic = "t"
				rt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{kmsg.NewListOffsetsRequestTopicPartition()}
				r.Topics = append(r.Topics, rt)
				req = r
			case 3:
				r := kmsg.NewPtrMetadataRequest()
				mt := kmsg.NewMetadataRequestTopic()
				mt.Topic = kmsg.StringPtr("t")
				r.Topics = append(r.Topics, mt)
				req = r
			case 23:
				r := kmsg.NewPtrOffsetForLeaderEpochRequest()
				rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
				rt.Topic = "t"
				rt.Partitions = []kmsg.OffsetForLeaderEpochRequestTopicPartition{kmsg.NewOffsetForLeaderEpochRequestTopicPartition()}
				r.Topics = append(r.Topics, rt)
				req = r
			case 10:
				r := kmsg.NewPtrFindCoordinatorRequest()
				r.CoordinatorType, r.CoordinatorKey, r.CoordinatorKeys = 1, "tx", []string{"tx", "g"}
				req = r
			case 22:
				r := kmsg.NewPtrInitProducerIDRequest()
				r.TransactionalID, r.TransactionTimeoutMillis = kmsg.StringPtr("tx"), 1000
				req = r
			case 24:
				r := kmsg.NewPtrAddPartitionsToTxnRequest()
				r.TransactionalID, r.ProducerID = "tx", 1000
				r.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "t", Partitions: []int32{0, 1, 7}}}
				req = r
			case 25:
				r := kmsg.NewPtrAddOffsetsToTxnRequest()
				r.TransactionalID, r.Group = "tx", "g"
				req = r
			case 26:
				r := kmsg.NewPtrEndTxnRequest()
				r.TransactionalID, r.Commit = "tx", true
				req = r
			case 28:
				r := kmsg.NewPtrTxnOffsetCommitRequest()
				r.TransactionalID, r.Group = "tx", "g"
				rt := kmsg.NewTxnOffsetCommitRequestTopic()
				rt.Topic = "t"
				rt.Partitions = []kmsg.TxnOffsetCommitRequestTopicPartition{kmsg.NewTxnOffsetCommitRequestTopicPartition()}
				r.Topics = append(r.Topics, rt)
				req = r
			case 75:
				r := kmsg.NewPtrDescribeTopicPartitionsRequest()
				r.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{{Topic: "t"}, {Topic: "u"}}
				r.ResponsePartitionLimit = 1
				r.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "t", Partition: 1}
				req = r
			default:
				req = kmsg.RequestForKey(k.ApiKey)
			}
			req.SetVersion(v)
			out = append(out, f.AppendRequest(nil, req, 1)[4:])
		}
	}
	return out
}

// FuzzRequest feeds arbitrary frames through the decoder and, when they
// decode, through a live broker's handlers and the response encoder:
// nothing may panic, and every decoded request gets an outcome.
func FuzzRequest(f *testing.F) {
	for _, fr := range seedFrames(f) {
		f.Add(fr)
		f.Add(fr[:len(fr)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{0, 18, 0, 99, 0, 0, 0, 1, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff})
	c, err := NewCluster(Brokers(1), Topic("t", 2, 1))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = c.Close() })
	b := c.brokers[0]
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, req, err := decodeRequest(frame)
		if err != nil {
			if req != nil {
				t.Fatal("request returned with an error")
			}
			return
		}
		if h.key != req.Key() || h.version != req.GetVersion() {
			t.Fatalf("header %+v for %s v%d", h, kmsg.NameForKey(req.Key()), req.GetVersion())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		oc := b.handle(ctx, h, req)
		if oc.resp != nil {
			_ = appendResponse(nil, h.correlation, oc.resp)
		} else if oc.act == actRespond {
			t.Fatalf("%s v%d: respond without a response", kmsg.NameForKey(h.key), h.version)
		}
	})
}

func TestDecodeRequestErrors(t *testing.T) {
	for name, frame := range map[string][]byte{
		"short":          {0, 3},
		"unknown key":    {0x7f, 0, 0, 0, 0, 0, 0, 1, 0, 0},
		"old produce":    {0, 0, 0, 2, 0, 0, 0, 1, 0, 0},
		"client id past": {0, 3, 0, 1, 0, 0, 0, 1, 0, 9, 'a'},
		"truncated body": {0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 5},
	} {
		if _, req, err := decodeRequest(frame); err == nil || req != nil {
			t.Errorf("%s: decoded (%v)", name, err)
		}
	}
	for _, fr := range seedFrames(t) {
		if _, _, err := decodeRequest(fr); err != nil {
			t.Errorf("seed frame: %v", err)
		}
	}
}
