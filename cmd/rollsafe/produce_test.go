package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

func TestProduceCommandReadBack(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("events", 3, 3))
	require.NoError(t, err)
	defer c.Close()
	var in strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&in, "key%d|value-%d\n", i%7, i)
	}
	var out, errOut bytes.Buffer
	code := runProduce(context.Background(), []string{
		"-brokers", strings.Join(c.Addrs(), ","), "-topic", "events", "-key-delim", "|", "-compression", "zstd", "-linger", "1ms",
	}, strings.NewReader(in.String()), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum produceSummary
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.Equal(t, int64(300), sum.Sent)
	require.Equal(t, int64(300), sum.Acked)
	require.Zero(t, sum.Failed)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), "events")
	require.NoError(t, err)
	seen := map[string]string{}
	for _, recs := range log {
		for _, r := range recs {
			require.NotContains(t, seen, string(r.Value), "duplicate")
			seen[string(r.Value)] = string(r.Key)
		}
	}
	require.Len(t, seen, 300)
	require.Equal(t, "key3", seen["value-10"])
}

func TestProduceCommandFailures(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	var out, errOut bytes.Buffer
	// A partition the topic does not have: every record fails, exit 1.
	code := runProduce(context.Background(), []string{"-brokers", c.Addrs()[0], "-topic", "events", "-partition", "5"},
		strings.NewReader("a\nb\n"), &out, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, errOut.String(), "failed a: ")
	require.Contains(t, out.String(), `"failed":2`)

	for _, args := range [][]string{
		{"-topic", "x"},
		{"-brokers", "127.0.0.1:1", "-topic", "x", "-compression", "brotli"},
		{"-brokers", "127.0.0.1:1", "-topic", "x", "-acks", "2"},
		{"-brokers", "127.0.0.1:1", "-topic", "x", "-linger", "-1s"},
		{"-nope"},
	} {
		errOut.Reset()
		require.Equal(t, 2, runProduce(context.Background(), args, strings.NewReader(""), &out, &errOut), args)
		require.Contains(t, errOut.String(), "usage", args)
	}
}

// A line exactly -max-record-bytes long is refused before it is sent (its
// record batch is larger), saying its encoded size; the longest line whose
// batch of one is exactly -max-record-bytes is accepted and in the log.
func TestProduceLineAtMaxRecordBytes(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	const limit = 1000
	fits := 0
	for batching.BatchOfOneLen(nil, make([]byte, fits+1), nil) <= limit {
		fits++
	}
	require.Equal(t, limit, batching.BatchOfOneLen(nil, make([]byte, fits), nil))
	atLimit, fitting := strings.Repeat("x", limit), strings.Repeat("y", fits)
	var out, errOut bytes.Buffer
	code := runProduce(context.Background(), []string{"-brokers", c.Addrs()[0], "-topic", "events", "-max-record-bytes", fmt.Sprint(limit)},
		strings.NewReader(atLimit+"\n"+fitting+"\n"), &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	sum := lastSummary(t, out.String())
	require.EqualValues(t, 2, sum.Read)
	require.EqualValues(t, 1, sum.Sent, "the line at the limit is not sent")
	require.EqualValues(t, 1, sum.Acked)
	require.EqualValues(t, 1, sum.TooLarge)
	want := fmt.Sprintf("line 1: %d bytes as a record batch of its own (61-byte header and record framing included), above -max-record-bytes %d: not sent",
		batching.BatchOfOneLen(nil, []byte(atLimit), nil), limit)
	require.Contains(t, errOut.String(), want)
	require.NotContains(t, errOut.String(), "above the maximum")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), "events")
	require.NoError(t, err)
	require.Len(t, log[0], 1)
	require.Equal(t, fitting, string(log[0][0].Value))
}
