package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

func pipeConn(t *testing.T, f *fakeBroker, cfg ConnConfig) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := NewConn(ctx, f.pipe(), "fake:9092", cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func metadataResponder(req kmsg.Request) kmsg.Response {
	switch r := req.(type) {
	case *kmsg.MetadataRequest:
		resp := kmsg.NewPtrMetadataResponse()
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = 1, "h", 9092
		resp.Brokers = append(resp.Brokers, b)
		_ = r
		return resp
	case *kmsg.ProduceRequest:
		resp := kmsg.NewPtrProduceResponse()
		for _, tp := range r.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = tp.Topic
			for _, p := range tp.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition = p.Partition
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	return nil
}

func TestRequestRoundTripAndVersionSelection(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFakeBroker(t)
	f.versions = map[int16]VersionRange{18: {0, 3}, 3: {0, 9}, 0: {3, 15}}
	f.handle = metadataResponder
	c := pipeConn(t, f, ConnConfig{})

	r, ok := c.Versions().Broker(3)
	require.True(t, ok)
	require.Equal(t, VersionRange{0, 9}, r)

	req := kmsg.NewPtrMetadataRequest()
	resp, err := c.Request(context.Background(), req)
	require.NoError(t, err)
	require.EqualValues(t, 9, req.GetVersion(), "min(our 13, broker 9)")
	md := resp.(*kmsg.MetadataResponse)
	require.Len(t, md.Brokers, 1)
	require.EqualValues(t, 1, md.Brokers[0].NodeID)

	v, err := c.VersionFor(0)
	require.NoError(t, err)
	require.EqualValues(t, 12, v, "our produce max is 12 even if the broker has more")

	require.NoError(t, c.Close())
	f.close()
	checkNoLeak(t, base)
}

func TestUnsupportedVersionNamesAPI(t *testing.T) {
	f := newFakeBroker(t)
	f.versions = map[int16]VersionRange{18: {0, 3}, 0: {0, 2}}
	c := pipeConn(t, f, ConnConfig{})

	called := false
	err := c.Send(context.Background(), kmsg.NewPtrProduceRequest(), func(kmsg.Response, error) { called = true })
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	require.ErrorIs(t, err, ErrNotWritten)
	var ve *VersionError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "Produce", ve.API)
	require.True(t, ve.BrokerHas)
	require.Contains(t, err.Error(), "Produce")
	require.False(t, called)

	_, err = c.Request(context.Background(), kmsg.NewPtrInitProducerIDRequest())
	require.ErrorAs(t, err, &ve)
	require.False(t, ve.BrokerHas)
	require.Contains(t, err.Error(), "InitProducerID")
}

func TestApiVersionsFallbackToV0Answer(t *testing.T) {
	f := newFakeBroker(t)
	f.versions = map[int16]VersionRange{18: {0, 2}, 3: {0, 12}}
	var seen []int16
	f.raw = func(corr int32, req kmsg.Request) []byte {
		if req.Key() != 18 {
			return nil
		}
		seen = append(seen, req.GetVersion())
		if req.GetVersion() <= 2 {
			return nil
		}
		// Old broker: UNSUPPORTED_VERSION, encoded as v0, header v0.
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.ErrorCode = int16(kafkaerr.UnsupportedVersion)
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey, ak.MaxVersion = 18, 2
		resp.ApiKeys = append(resp.ApiKeys, ak)
		b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(corr))
		b = resp.AppendTo(b)
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		return b
	}
	c := pipeConn(t, f, ConnConfig{})
	require.Equal(t, []int16{4, 2}, seen)
	r, ok := c.Versions().Broker(3)
	require.True(t, ok)
	require.EqualValues(t, 12, r.Max)
}

func TestPipelinedResponsesInSendOrder(t *testing.T) {
	f := newFakeBroker(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var received int
	f.handle = func(req kmsg.Request) kmsg.Response {
		mu.Lock()
		received++
		n := received
		mu.Unlock()
		if n == 5 {
			close(release)
		}
		return metadataResponder(req)
	}
	c := pipeConn(t, f, ConnConfig{MaxInFlight: 5})

	var order []int
	var omu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		i := i
		err := c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(resp kmsg.Response, err error) {
			defer wg.Done()
			if err == nil {
				omu.Lock()
				order = append(order, i)
				omu.Unlock()
			}
		})
		require.NoError(t, err)
	}
	wg.Wait()
	<-release
	require.Len(t, order, 20)
	for i, v := range order {
		require.Equal(t, i, v)
	}
}

func TestAcksZeroProduceExpectsNoResponse(t *testing.T) {
	f := newFakeBroker(t)
	got := make(chan kmsg.Request, 1)
	f.handle = func(req kmsg.Request) kmsg.Response {
		if req.Key() == 0 {
			got <- req
			return nil // a broker does not answer acks=0
		}
		return metadataResponder(req)
	}
	c := pipeConn(t, f, ConnConfig{})
	req := kmsg.NewPtrProduceRequest()
	req.Acks = 0
	resp, err := c.Request(context.Background(), req)
	require.NoError(t, err)
	require.Nil(t, resp)
	<-got
	// The connection is still in sync: a normal request works after it.
	_, err = c.Request(context.Background(), kmsg.NewPtrMetadataRequest())
	require.NoError(t, err)
}

// runMalformed makes the fake answer the third of four pipelined Metadata
// requests with raw and checks that the first two succeed and the rest fail.
func runMalformed(t *testing.T, raw func(corr int32) []byte, want error, hangUp bool) {
	base := runtime.NumGoroutine()
	f := newFakeBroker(t)
	f.hangUpAfterRaw = hangUp
	hold := make(chan struct{})
	var mu sync.Mutex
	count := 0
	f.raw = func(corr int32, req kmsg.Request) []byte {
		if req.Key() != 3 {
			return nil
		}
		mu.Lock()
		count++
		n := count
		mu.Unlock()
		if n < 3 {
			<-hold // keep the first two in flight until the third arrives
			return nil
		}
		return raw(corr)
	}
	f.handle = metadataResponder
	c := pipeConn(t, f, ConnConfig{})

	type res struct {
		resp kmsg.Response
		err  error
	}
	results := make([]chan res, 4)
	for i := range results {
		results[i] = make(chan res, 1)
		ch := results[i]
		err := c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(r kmsg.Response, err error) { ch <- res{r, err} })
		require.NoError(t, err)
	}
	close(hold)
	for i := 0; i < 2; i++ {
		r := <-results[i]
		require.NoError(t, r.err, "request %d", i)
	}
	for i := 2; i < 4; i++ {
		r := <-results[i]
		require.Nil(t, r.resp)
		require.ErrorIs(t, r.err, ErrConnLostAfterWrite, "request %d", i)
		require.ErrorIs(t, r.err, want, "request %d", i)
	}
	<-c.Done()
	require.ErrorIs(t, c.Err(), want)
	err := c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(kmsg.Response, error) { t.Error("callback after failed Send") })
	require.ErrorIs(t, err, ErrNotWritten)
	require.NoError(t, c.Close())
	f.close()
	checkNoLeak(t, base)
}

func TestMalformedReplies(t *testing.T) {
	t.Run("correlation mismatch", func(t *testing.T) {
		runMalformed(t, func(corr int32) []byte {
			return rawFrame(binary.BigEndian.AppendUint32(nil, uint32(corr+7)))
		}, ErrCorrelationMismatch, false)
	})
	t.Run("short frame", func(t *testing.T) {
		runMalformed(t, func(int32) []byte { return rawFrame([]byte{0, 1}) }, ErrMalformedResponse, false)
	})
	t.Run("frame too large", func(t *testing.T) {
		runMalformed(t, func(int32) []byte { return binary.BigEndian.AppendUint32(nil, 200<<20) }, ErrFrameTooLarge, false)
	})
	t.Run("negative size", func(t *testing.T) {
		runMalformed(t, func(int32) []byte { return []byte{0xff, 0xff, 0xff, 0xf0} }, ErrFrameTooLarge, false)
	})
	t.Run("truncated body", func(t *testing.T) {
		runMalformed(t, func(corr int32) []byte {
			b := binary.BigEndian.AppendUint32(nil, uint32(corr))
			b = append(b, 0)       // empty header tags (Metadata v13 is flexible)
			b = append(b, 0, 0, 0) // throttle millis cut short
			return rawFrame(b)
		}, ErrMalformedResponse, false)
	})
	t.Run("peer hangs up mid frame", func(t *testing.T) {
		runMalformed(t, func(corr int32) []byte {
			return []byte{0, 0, 0, 50, 1, 2} // then the fake hangs up
		}, io.ErrUnexpectedEOF, true)
	})
}

func TestCloseFailsInFlight(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response { return nil } // never answers
	c := pipeConn(t, f, ConnConfig{})
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		require.NoError(t, c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(_ kmsg.Response, err error) { errs <- err }))
	}
	require.NoError(t, c.Close())
	for i := 0; i < 3; i++ {
		err := <-errs
		require.ErrorIs(t, err, ErrConnLostAfterWrite)
		require.ErrorIs(t, err, ErrConnClosed)
	}
	_, err := c.Request(context.Background(), kmsg.NewPtrMetadataRequest())
	require.ErrorIs(t, err, ErrNotWritten)
	require.ErrorIs(t, err, ErrConnClosed)
	f.close()
	checkNoLeak(t, base)
}

func TestCloseFromCallbackDoesNotDeadlock(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = metadataResponder
	c := pipeConn(t, f, ConnConfig{})
	done := make(chan struct{})
	require.NoError(t, c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(kmsg.Response, error) {
		_ = c.Close()
		close(done)
	}))
	<-done
	<-c.Done()
}

func TestRequestContextCancelledWhileWaiting(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(kmsg.Request) kmsg.Response { return nil }
	c := pipeConn(t, f, ConnConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Request(ctx, kmsg.NewPtrMetadataRequest())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, errors.Is(err, ErrNotWritten))
}

func TestSendBlocksAtMaxInFlightUntilContextEnds(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(kmsg.Request) kmsg.Response { return nil }
	c := pipeConn(t, f, ConnConfig{MaxInFlight: 2})
	for i := 0; i < 2; i++ {
		require.NoError(t, c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), nil))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := c.Send(ctx, kmsg.NewPtrMetadataRequest(), nil)
	require.ErrorIs(t, err, ErrNotWritten)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestResponseTimeoutClosesConn(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(kmsg.Request) kmsg.Response { return nil }
	c := pipeConn(t, f, ConnConfig{RequestTimeout: 50 * time.Millisecond})
	_, err := c.Request(context.Background(), kmsg.NewPtrMetadataRequest())
	require.ErrorIs(t, err, ErrResponseTimeout)
	require.ErrorIs(t, err, ErrConnLostAfterWrite)
	require.True(t, strings.Contains(err.Error(), "Metadata"))
}

// A broker answering one request at a time, each after a pause shorter
// than RequestTimeout, is slow, not dead: requests pipelined behind one
// another get RequestTimeout from the answer before theirs (Kafka reads
// the next request only then), not from when they were written.
func TestPipelinedSlowAnswersWithinTimeout(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response {
		time.Sleep(150 * time.Millisecond)
		return metadataResponder(req)
	}
	c := pipeConn(t, f, ConnConfig{RequestTimeout: 300 * time.Millisecond})
	errs := make(chan error, 4)
	for range 4 {
		require.NoError(t, c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(_ kmsg.Response, err error) { errs <- err }))
	}
	for range 4 {
		require.NoError(t, <-errs, "the 3rd and 4th answers come 450 and 600 ms after they were written")
	}
}
