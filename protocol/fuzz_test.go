package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzResponseDecoder feeds arbitrary bytes through the frame reader and the
// response decoder for the APIs the producer uses. It must never panic, and
// every failure must be one of the package's typed errors.
func FuzzResponseDecoder(f *testing.F) {
	seed := func(key, version int16, resp kmsg.Response) {
		resp.SetVersion(version)
		req := kmsg.RequestForKey(key)
		req.SetVersion(version)
		b := binary.BigEndian.AppendUint32(make([]byte, 4), 7)
		if responseHeaderFlexible(key, req.IsFlexible()) {
			b = append(b, 0)
		}
		b = resp.AppendTo(b)
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		f.Add(uint8(key), uint8(version), b)
	}
	md := kmsg.NewPtrMetadataResponse()
	br := kmsg.NewMetadataResponseBroker()
	br.Host, br.Port = "h", 1
	md.Brokers = append(md.Brokers, br)
	seed(3, 12, md)
	seed(3, 7, kmsg.NewPtrMetadataResponse())
	pr := kmsg.NewPtrProduceResponse()
	pt := kmsg.NewProduceResponseTopic()
	pt.Topic = "t"
	pt.Partitions = append(pt.Partitions, kmsg.NewProduceResponseTopicPartition())
	pr.Topics = append(pr.Topics, pt)
	seed(0, 9, pr)
	seed(0, 3, pr)
	seed(22, 4, kmsg.NewPtrInitProducerIDResponse())
	seed(18, 3, kmsg.NewPtrApiVersionsResponse())
	seed(1, 12, kmsg.NewPtrFetchResponse())
	seed(2, 8, kmsg.NewPtrListOffsetsResponse())
	f.Add(uint8(3), uint8(12), []byte{0, 0, 0, 2, 0, 1})
	f.Add(uint8(3), uint8(12), []byte{0x7f, 0xff, 0xff, 0xff})
	f.Add(uint8(0), uint8(9), []byte{0, 0, 0, 5, 0, 0, 0, 7, 0x80})

	keys := []int16{0, 1, 2, 3, 18, 22}
	f.Fuzz(func(t *testing.T, keySel, verSel uint8, data []byte) {
		key := keys[int(keySel)%len(keys)]
		req := kmsg.RequestForKey(key)
		r, _ := ClientRange(key)
		version := r.Min + int16(verSel)%(r.Max-r.Min+1)
		req.SetVersion(version)

		var buf bytes.Buffer
		frame, err := readFrame(bytes.NewReader(data), 1<<20, &buf)
		if err != nil {
			if !errors.Is(err, ErrFrameTooLarge) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				t.Fatalf("untyped frame error: %v", err)
			}
			return
		}
		c := &Conn{}
		p := &pending{corr: 7, key: key, flexHdr: responseHeaderFlexible(key, req.IsFlexible()),
			decode: func(body []byte) (kmsg.Response, error) {
				resp := req.ResponseKind()
				resp.SetVersion(version)
				return resp, resp.ReadFrom(body)
			}}
		resp, err := c.decode(p, frame)
		if err != nil {
			if !errors.Is(err, ErrMalformedResponse) && !errors.Is(err, ErrCorrelationMismatch) {
				t.Fatalf("untyped decode error: %v", err)
			}
			return
		}
		if resp == nil || resp.Key() != key {
			t.Fatalf("decoded %v for key %d", resp, key)
		}
	})
}
