package kafka_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
)

// TestTxnProgram runs the txn program (a confluent-kafka-go transactional
// producer: InitTransactions, five transactions of Produce then
// CommitTransaction, the third aborted) against a 3-broker sim and reads
// the topic back as a read_committed consumer would (readback.Committed):
// exactly the messages reported delivered are there, once each, at their
// reported offsets, in order, and none of the aborted transaction's, whose
// delivery reports say ErrPurgeQueue (never sent) or ErrPurgeInflight
// (sent before the abort: in the log, aborted).
func TestTxnProgram(t *testing.T) {
	dir := buildPrograms(t)
	c := newCluster(t, 4)
	const n, txns, abort = 500, 5, 2
	got, out := runProgram(t, dir, "txn", c.Addrs(), "t", n)
	require.Contains(t, out, "Produce outside a transaction: Local: Erroneous state\n")
	require.Contains(t, out, fmt.Sprintf("Aborted transaction %d\n", abort))
	require.Contains(t, out, fmt.Sprintf("Transactions: %d committed, 1 aborted\n", txns-1))
	per := n / txns
	aborted := map[string]bool{}
	for i := abort * per; i < (abort+1)*per; i++ {
		aborted[fmt.Sprintf("txn-%d", i)] = true
	}
	failed := regexp.MustCompile(`(?m)^Failed (\S+): .* \(Local: Purged (in queue|in flight)\)$`).FindAllStringSubmatch(out, -1)
	require.Len(t, failed, per, "a report for each aborted message")
	for _, f := range failed {
		require.True(t, aborted[f[1]], "%s failed", f[1])
	}
	require.Len(t, got, n-per, "a delivery report for each committed message")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := readback.ReadTopic(ctx, c.Addrs(), "t")
	require.NoError(t, err)
	committed := readback.Committed(raw)
	var produced []readback.Produced
	for _, v := range values("txn", n) {
		r, ok := got[v]
		require.Equal(t, !aborted[v], ok, "%s: delivered unless aborted", v)
		pr := readback.Produced{ID: v, Partition: r.partition, Offset: -1, NotWritten: aborted[v]}
		if ok {
			pr.Acked, pr.Offset = true, r.offset
		}
		produced = append(produced, pr)
	}
	rep := readback.Check(committed, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	require.Equal(t, n-per, rep.InLog, "committed records")
	for _, recs := range raw {
		for _, r := range recs {
			require.True(t, r.Control || r.Transactional, "record at %d written outside a transaction", r.Offset)
		}
	}
}
