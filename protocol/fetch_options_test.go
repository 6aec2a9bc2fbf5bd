package protocol

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// fetchFake answers Fetch for t/0 with code, recording what it was sent.
type fetchFake struct {
	code    int16
	version int16
	epoch   int32
	rack    string
}

func (ff *fetchFake) handle(req kmsg.Request) kmsg.Response {
	r, ok := req.(*kmsg.FetchRequest)
	if !ok {
		return nil
	}
	ff.version = r.Version
	ff.epoch = r.Topics[0].Partitions[0].CurrentLeaderEpoch
	ff.rack = r.Rack
	resp := r.ResponseKind().(*kmsg.FetchResponse)
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic = r.Topics[0].Topic
	p := kmsg.NewFetchResponseTopicPartition()
	p.Partition = r.Topics[0].Partitions[0].Partition
	p.ErrorCode = ff.code
	p.HighWatermark, p.LastStableOffset, p.LogStartOffset = 40, 40, 3
	p.RecordBatches = []byte{}
	if ff.code == int16(kafkaerr.NotLeaderOrFollower) || ff.code == int16(kafkaerr.FencedLeaderEpoch) {
		p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 2, 9
	}
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

func TestFetchSendsLeaderEpochAndTypesErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		code int16
		want error
	}{
		{int16(kafkaerr.FencedLeaderEpoch), ErrFencedLeaderEpoch},
		{int16(kafkaerr.UnknownLeaderEpoch), ErrUnknownLeaderEpoch},
		{int16(kafkaerr.NotLeaderOrFollower), ErrNotLeaderOrFollower},
		{int16(kafkaerr.OffsetNotAvailable), ErrOffsetNotAvailable},
		{0, nil},
	} {
		ff := &fetchFake{code: tc.code}
		f := newFakeBroker(t)
		f.handle = ff.handle
		c := pipeConn(t, f, ConnConfig{})
		res, err := Fetch(ctx, c, FetchOptions{Topic: "t", Partition: 0, Offset: 5, CurrentLeaderEpoch: 7})
		if tc.want == nil {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, tc.want)
			var ke *KafkaError
			require.ErrorAs(t, err, &ke)
			require.Equal(t, "t", ke.Topic)
			require.Equal(t, int32(0), ke.Partition)
		}
		require.Equal(t, int32(7), ff.epoch, "the leader epoch is sent")
		require.Equal(t, int16(12), ff.version)
		require.Equal(t, int16(12), res.Version)
		require.Equal(t, int64(40), res.HighWatermark)
		require.Equal(t, int64(3), res.LogStartOffset)
		if tc.code == int16(kafkaerr.NotLeaderOrFollower) || tc.code == int16(kafkaerr.FencedLeaderEpoch) {
			require.Equal(t, int32(2), res.LeaderID, "KIP-951 hint")
			require.Equal(t, int32(9), res.LeaderEpoch)
		} else {
			require.Equal(t, int32(-1), res.LeaderID)
		}
	}
}

func TestFetchLeaderOnlyUsesV10(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ff := &fetchFake{}
	f := newFakeBroker(t)
	f.handle = ff.handle
	c := pipeConn(t, f, ConnConfig{})
	res, err := Fetch(ctx, c, FetchOptions{Topic: "t", Offset: 0, CurrentLeaderEpoch: NoLeaderEpoch, LeaderOnly: true})
	require.NoError(t, err)
	require.Equal(t, int16(10), ff.version)
	require.Equal(t, int16(10), res.Version)
	require.Equal(t, int32(-1), ff.epoch)

	// A broker whose Fetch starts above v10 cannot take a leader-only read.
	f2 := newFakeBroker(t)
	f2.handle = ff.handle
	f2.versions = map[int16]VersionRange{1: {11, 12}, 18: {0, 3}}
	c2 := pipeConn(t, f2, ConnConfig{})
	_, err = Fetch(ctx, c2, FetchOptions{Topic: "t", LeaderOnly: true})
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	require.ErrorIs(t, err, ErrNotWritten)
}

func TestFetchBadArguments(t *testing.T) {
	ctx := context.Background()
	_, err := Fetch(ctx, nil, FetchOptions{Topic: "t"})
	require.ErrorIs(t, err, ErrBadFetch)
	f := newFakeBroker(t)
	f.handle = (&fetchFake{}).handle
	c := pipeConn(t, f, ConnConfig{})
	_, err = Fetch(ctx, c, FetchOptions{})
	require.ErrorIs(t, err, ErrBadFetch)
	_, err = Fetch(ctx, c, FetchOptions{Topic: "t", Offset: -1})
	require.ErrorIs(t, err, ErrBadFetch)
	// FetchPartition keeps its signature and sends no epoch.
	_, hw, ls, err := FetchPartition(ctx, c, "t", 0, 0, 1024)
	require.NoError(t, err)
	require.Equal(t, int64(40), hw)
	require.Equal(t, int64(3), ls)
}
