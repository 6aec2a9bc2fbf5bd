package protocol

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A decoded response's byte fields alias the frame it came from; reading
// the next frame must not overwrite what an earlier caller still holds
// (a fetch's records read while the connection reads on). Found by -race
// in a tail read.
func TestResponseBytesOutliveTheNextFrame(t *testing.T) {
	f := newFakeBroker(t)
	n := byte(0)
	f.handle = func(req kmsg.Request) kmsg.Response {
		if _, ok := req.(*kmsg.SASLAuthenticateRequest); !ok {
			return nil
		}
		n++
		resp := kmsg.NewPtrSASLAuthenticateResponse()
		resp.SASLAuthBytes = bytes.Repeat([]byte{n}, 4096)
		return resp
	}
	c := pipeConn(t, f, ConnConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, err := c.Request(ctx, kmsg.NewPtrSASLAuthenticateRequest())
	require.NoError(t, err)
	held := first.(*kmsg.SASLAuthenticateResponse).SASLAuthBytes
	for i := 0; i < 3; i++ {
		_, err := c.Request(ctx, kmsg.NewPtrSASLAuthenticateRequest())
		require.NoError(t, err)
	}
	require.Equal(t, bytes.Repeat([]byte{1}, 4096), held, "the first response's bytes were overwritten")
}
