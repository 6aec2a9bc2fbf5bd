package sim

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFrame is the largest request accepted (Kafka's socket.request.max.bytes).
const maxFrame = 100 << 20

// apiVersions are the request versions served, by API key: the versions
// franz-go's kgo and librdkafka pick. Produce and Fetch stop before v13,
// which address topics by id only.
var apiVersions = []kmsg.ApiVersionsResponseApiKey{
	{ApiKey: 0, MinVersion: 3, MaxVersion: 12}, // Produce
	{ApiKey: 1, MinVersion: 4, MaxVersion: 12}, // Fetch
	{ApiKey: 2, MinVersion: 1, MaxVersion: 10}, // ListOffsets
	{ApiKey: 3, MinVersion: 0, MaxVersion: 12}, // Metadata
	{ApiKey: 10, MinVersion: 0, MaxVersion: 6}, // FindCoordinator
	{ApiKey: 17, MinVersion: 0, MaxVersion: 1}, // SaslHandshake (v0: raw SASL tokens follow)
	{ApiKey: 18, MinVersion: 0, MaxVersion: 4}, // ApiVersions
	{ApiKey: 22, MinVersion: 0, MaxVersion: 5}, // InitProducerId
	{ApiKey: 23, MinVersion: 0, MaxVersion: 4}, // OffsetForLeaderEpoch
	{ApiKey: 24, MinVersion: 0, MaxVersion: 3}, // AddPartitionsToTxn (v4+: broker to broker, transactions v2)
	{ApiKey: 25, MinVersion: 0, MaxVersion: 4}, // AddOffsetsToTxn (v4: transactions v2)
	{ApiKey: 26, MinVersion: 0, MaxVersion: 5}, // EndTxn (v5: transactions v2)
	{ApiKey: 28, MinVersion: 0, MaxVersion: 5}, // TxnOffsetCommit (v5: transactions v2; v6 names topics by id)
	{ApiKey: 36, MinVersion: 0, MaxVersion: 2}, // SaslAuthenticate
	{ApiKey: 61, MinVersion: 0, MaxVersion: 0}, // DescribeProducers (Kafka 2.8+)
	{ApiKey: 75, MinVersion: 0, MaxVersion: 0}, // DescribeTopicPartitions (Kafka 3.8+)
}

// txnV1Max are the highest versions of the transactional APIs a cluster
// serving transactions v1 only advertises (TransactionVersion below 2).
var txnV1Max = map[int16]int16{25: 3, 26: 4, 28: 4}

// apiVersionsFor is what a cluster advertises: every API, except
// DescribeProducers and DescribeTopicPartitions on brokers that predate
// them, and the transactional APIs up to transactions v1's versions on a
// cluster without transactions v2.
func apiVersionsFor(cfg *config) []kmsg.ApiVersionsResponseApiKey {
	keys := slices.DeleteFunc(slices.Clone(apiVersions), func(k kmsg.ApiVersionsResponseApiKey) bool {
		return (k.ApiKey == 61 && !cfg.describeProducers()) || (k.ApiKey == 75 && !cfg.describeTopicPartitions())
	})
	for i := range keys {
		if keys[i].ApiKey == 3 && !cfg.topicIDs() {
			keys[i].MaxVersion = 9 // Metadata v10 brought topic ids (Kafka 2.8)
		}
		if v, ok := txnV1Max[keys[i].ApiKey]; ok && !cfg.txnV2() {
			keys[i].MaxVersion = v
		}
	}
	return keys
}

func versionRange(key int16) (lo, hi int16, ok bool) {
	for _, k := range apiVersions {
		if k.ApiKey == key {
			return k.MinVersion, k.MaxVersion, true
		}
	}
	return 0, 0, false
}

// reqHeader is a decoded request header (v1 or v2).
type reqHeader struct {
	key, version int16
	correlation  int32
	clientID     *string
}

// readFrame reads one size-prefixed frame.
func readFrame(r io.Reader) ([]byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(r, sz[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(sz[:]))
	if n < 0 || n > maxFrame {
		return nil, fmt.Errorf("%w: frame of %d bytes", ErrMalformedRequest, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// decodeRequest decodes a request frame (without its size prefix). The
// header is returned whenever its fixed part could be read, so an
// unsupported ApiVersions request can still be answered.
func decodeRequest(frame []byte) (h reqHeader, req kmsg.Request, err error) {
	if len(frame) < 8 {
		return h, nil, fmt.Errorf("%w: %d-byte request header", ErrMalformedRequest, len(frame))
	}
	h.key = int16(binary.BigEndian.Uint16(frame))
	h.version = int16(binary.BigEndian.Uint16(frame[2:]))
	h.correlation = int32(binary.BigEndian.Uint32(frame[4:]))
	lo, hi, ok := versionRange(h.key)
	if !ok {
		return h, nil, fmt.Errorf("%w: api key %d", ErrUnsupportedRequest, h.key)
	}
	if h.version < lo || h.version > hi {
		return h, nil, fmt.Errorf("%w: %s v%d (serving v%d-v%d)", ErrUnsupportedRequest, kmsg.NameForKey(h.key), h.version, lo, hi)
	}
	rest := frame[8:]
	if len(rest) < 2 {
		return h, nil, fmt.Errorf("%w: no client id", ErrMalformedRequest)
	}
	idLen := int16(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	if idLen >= 0 {
		if int(idLen) > len(rest) {
			return h, nil, fmt.Errorf("%w: client id of %d bytes", ErrMalformedRequest, idLen)
		}
		id := string(rest[:idLen])
		h.clientID = &id
		rest = rest[idLen:]
	} else if idLen != -1 {
		return h, nil, fmt.Errorf("%w: client id length %d", ErrMalformedRequest, idLen)
	}
	req = kmsg.RequestForKey(h.key)
	req.SetVersion(h.version)
	if req.IsFlexible() {
		tr := tagReader{src: rest}
		kmsg.SkipTags(&tr)
		if tr.bad {
			return h, nil, fmt.Errorf("%w: request header tags", ErrMalformedRequest)
		}
		rest = tr.src
	}
	if err := safeReadFrom(req, rest); err != nil {
		return h, nil, fmt.Errorf("%w: %s v%d: %v", ErrMalformedRequest, kmsg.NameForKey(h.key), h.version, err)
	}
	return h, req, nil
}

// safeReadFrom decodes body into req, turning a decoder panic into an error.
func safeReadFrom(req kmsg.Request, body []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decoder panic: %v", p)
		}
	}()
	return req.ReadFrom(body)
}

// tagReader reads the tagged fields ending a flexible request header.
type tagReader struct {
	src []byte
	bad bool
}

func (t *tagReader) Ok() bool { return !t.bad }

func (t *tagReader) Uvarint() uint32 {
	v, n := binary.Uvarint(t.src)
	if n <= 0 || v > 1<<31 {
		t.bad, t.src = true, nil
		return 0
	}
	t.src = t.src[n:]
	return uint32(v)
}

func (t *tagReader) Span(n int) []byte {
	if n < 0 || n > len(t.src) {
		t.bad, t.src = true, nil
		return nil
	}
	s := t.src[:n]
	t.src = t.src[n:]
	return s
}

// appendResponse appends a size-prefixed response frame: header v1 (with
// its empty tag section) for flexible responses, except ApiVersions, whose
// response header is always v0.
func appendResponse(dst []byte, correlation int32, resp kmsg.Response) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlation))
	if resp.IsFlexible() && resp.Key() != 18 {
		dst = append(dst, 0)
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
