package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// TestAllowAutoTopicCreation: with AllowAutoTopicCreation, records for a
// topic the cluster does not have make a broker with
// auto.create.topics.enable create it, and are delivered to it; without
// the option they fail ErrUnknownTopic (not written) and nothing is
// created.
func TestAllowAutoTopicCreation(t *testing.T) {
	c := newCluster(t, 1, sim.AutoCreateTopics(3, 3))
	ctx := context.Background()

	off := newProducer(t, c, client.UnknownTopicWait(300*time.Millisecond))
	res := off.ProduceSync(ctx, &client.Record{Topic: "never", Value: []byte("x")})
	require.ErrorIs(t, res.FirstErr(), client.ErrUnknownTopic)
	require.ErrorIs(t, res.FirstErr(), client.ErrNotWritten)

	p := newProducer(t, c, client.AllowAutoTopicCreation())
	var recs []*client.Record
	for i := range 30 {
		recs = append(recs, &client.Record{Topic: "created", Key: []byte{byte(i)}, Value: []byte{byte(i)}})
	}
	require.NoError(t, p.ProduceSync(ctx, recs...).FirstErr())
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(rctx, c.Addrs(), "created")
	require.NoError(t, err)
	n := 0
	for _, rs := range log {
		n += len(rs)
	}
	require.Equal(t, 30, n)
	require.Len(t, log, 3, "three partitions, keys spread over them")

	_, err = readback.ReadTopic(rctx, c.Addrs(), "never")
	require.Error(t, err, "the producer without the option created nothing")
}
