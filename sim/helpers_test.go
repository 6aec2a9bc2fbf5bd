package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// testConn is a raw Kafka connection speaking kmsg requests.
type testConn struct {
	t    testing.TB
	nc   net.Conn
	corr int32
	fmt  *kmsg.RequestFormatter
}

func dial(t testing.TB, addr string) *testConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &testConn{t: t, nc: nc, fmt: kmsg.NewRequestFormatter(kmsg.FormatterClientID("simtest"))}
}

// send writes req and returns its correlation id.
func (tc *testConn) send(req kmsg.Request) int32 {
	tc.t.Helper()
	tc.corr++
	if _, err := tc.nc.Write(tc.fmt.AppendRequest(nil, req, tc.corr)); err != nil {
		tc.t.Fatal(err)
	}
	return tc.corr
}

// recv reads the response to req, failing the test on a wrong correlation
// id; it returns the read error (timeout, EOF) instead of failing.
func (tc *testConn) recv(req kmsg.Request, corr int32, timeout time.Duration) (kmsg.Response, error) {
	tc.t.Helper()
	_ = tc.nc.SetReadDeadline(time.Now().Add(timeout))
	frame, err := readFrame(tc.nc)
	if err != nil {
		return nil, err
	}
	if len(frame) < 4 {
		tc.t.Fatalf("short response frame %x", frame)
	}
	if got := int32(binary.BigEndian.Uint32(frame)); got != corr {
		tc.t.Fatalf("correlation %d, want %d", got, corr)
	}
	body := frame[4:]
	resp := req.ResponseKind()
	if resp.IsFlexible() && resp.Key() != 18 {
		tr := tagReader{src: body}
		kmsg.SkipTags(&tr)
		body = tr.src
	}
	if err := resp.ReadFrom(body); err != nil {
		tc.t.Fatalf("decoding %s v%d response: %v", kmsg.NameForKey(req.Key()), req.GetVersion(), err)
	}
	return resp, nil
}

// do sends req (at version v) and waits for its response.
func (tc *testConn) do(req kmsg.Request) kmsg.Response {
	tc.t.Helper()
	resp, err := tc.recv(req, tc.send(req), 10*time.Second)
	if err != nil {
		tc.t.Fatalf("%s: %v", kmsg.NameForKey(req.Key()), err)
	}
	return resp
}

// spec describes a test record batch.
type spec struct {
	pid    int64
	epoch  int16
	seq    int32
	codec  compress.Codec
	values []string
	txn    bool // a transactional batch
}

func vals(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

// stampedLongAgo is a producer-id expiration longer than the age of
// makeBatch's batches (stamped at 1 s after the Unix epoch): for tests
// whose restarted brokers must keep their producers.
const stampedLongAgo = 100 * 365 * 24 * time.Hour

// makeBatch encodes a v2 record batch with a correct CRC-32C.
func makeBatch(t testing.TB, s spec) []byte {
	t.Helper()
	var recs []byte
	for i, v := range s.values {
		r := kmsg.Record{OffsetDelta: int32(i), TimestampDelta64: int64(i), Key: []byte("k"), Value: []byte(v)}
		body := r.AppendTo(nil)[1:] // drop the zero length varint
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	cm, err := compress.NewCompressor(s.codec, compress.DefaultLevel)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := cm.Compress(nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	n := int32(len(s.values))
	b := kmsg.RecordBatch{
		Length: int32(49 + len(payload)), PartitionLeaderEpoch: -1, Magic: 2, Attributes: int16(s.codec) | txnAttr(s.txn),
		LastOffsetDelta: n - 1, FirstTimestamp: 1000, MaxTimestamp: 1000 + int64(n) - 1,
		ProducerID: s.pid, ProducerEpoch: s.epoch, FirstSequence: s.seq, NumRecords: n, Records: payload,
	}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	return raw
}

func txnAttr(txn bool) int16 {
	if txn {
		return attrTransactional
	}
	return 0
}

func produceReq(topic string, p int32, acks int16, raw []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(9)
	req.Acks = acks
	req.TimeoutMillis = 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = p
	rp.Records = raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// produce sends one batch and returns the partition's answer.
func (tc *testConn) produce(topic string, p int32, acks int16, raw []byte) kmsg.ProduceResponseTopicPartition {
	tc.t.Helper()
	resp := tc.do(produceReq(topic, p, acks, raw)).(*kmsg.ProduceResponse)
	return resp.Topics[0].Partitions[0]
}

func fetchReq(topic string, p int32, offset int64, maxWait time.Duration) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(12)
	req.ReplicaID = -1
	req.MaxWaitMillis = int32(maxWait / time.Millisecond)
	req.MinBytes = 1
	req.MaxBytes = 10 << 20
	req.SessionEpoch = -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = p
	rp.FetchOffset = offset
	rp.PartitionMaxBytes = 10 << 20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// fetched is what a fetch returned for one partition, decoded.
type fetched struct {
	code    int16
	hw      int64
	raw     []byte
	batches []kmsg.RecordBatch
	values  map[int64]string // offset -> value
}

func (tc *testConn) fetch(topic string, p int32, offset int64, maxWait time.Duration) fetched {
	tc.t.Helper()
	resp := tc.do(fetchReq(topic, p, offset, maxWait)).(*kmsg.FetchResponse)
	fp := resp.Topics[0].Partitions[0]
	f := fetched{code: fp.ErrorCode, hw: fp.HighWatermark, raw: fp.RecordBatches, values: map[int64]string{}}
	rest := fp.RecordBatches
	for len(rest) > 0 {
		var b kmsg.RecordBatch
		if len(rest) < 12 {
			tc.t.Fatalf("trailing %d bytes in fetch", len(rest))
		}
		l := int(binary.BigEndian.Uint32(rest[8:])) + 12
		if err := b.ReadFrom(rest[:l]); err != nil {
			tc.t.Fatal(err)
		}
		f.batches = append(f.batches, b)
		e := &entry{base: b.FirstOffset, raw: rest[:l], leaderEpoch: b.PartitionLeaderEpoch}
		e.h.producerID = b.ProducerID
		dec, err := decodeEntry(e, 1<<20)
		if err != nil {
			tc.t.Fatal(err)
		}
		for _, r := range dec.Records {
			f.values[r.Offset] = string(r.Value)
		}
		rest = rest[l:]
	}
	return f
}

func newTestCluster(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	before := runtime.NumGoroutine()
	c, err := NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		checkNoLeak(t, before)
	})
	return c
}

// checkNoLeak waits (bounded) for the goroutine count to return to before.
func checkNoLeak(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			var sim []string
			for _, g := range strings.Split(string(buf), "\n\n") {
				if strings.Contains(g, "rollsafe/sim.") {
					sim = append(sim, g)
				}
			}
			t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, strings.Join(sim, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// isTimeout reports whether err is a read timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

var _ = io.EOF

func crc32Castagnoli(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

type metadataResp = kmsg.MetadataResponse

func metadataAll() *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	return req
}

func respPartition(r kmsg.Response) kmsg.ProduceResponseTopicPartition {
	return r.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
}
