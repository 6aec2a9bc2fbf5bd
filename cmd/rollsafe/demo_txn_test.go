package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// TestDemoTransactions runs `rollsafe demo -transactions` on the
// simulator: 40 transactions, every fourth aborted by the program, the
// transaction coordinator's broker killed just before the 21st commits;
// the coordinator moves to another broker, and a read_committed read shows
// the committed records once, in order, where acknowledged, and no
// aborted record. Costs well under a second.
func TestDemoTransactions(t *testing.T) {
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-transactions", "-size", "200"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	report := out.String()
	require.Regexp(t, `broker (\d) \(the transaction coordinator\) killed; transaction 20 commits`, report)
	require.Regexp(t, `transactions  40: committed 30   aborted by the program 10   aborted after an error 0 `, report)
	require.Regexp(t, `coordinator   broker (\d) killed just before a commit, which committed; the coordinator is now broker \d`, report)
	require.Contains(t, report, "records       of committed transactions 15000   of aborted 5000")
	require.Contains(t, report, "read back     15000 records (read_committed): lost 0   duplicates 0   reordered 0   elsewhere than acknowledged 0   aborted visible 0")
	require.Contains(t, report, "PASSED")
}

// A report with any record out of place, or a fault that did not play,
// fails the demo.
func TestTxnReportFails(t *testing.T) {
	good := txnReport{killed: 1, movedTo: 2, in: 10, committedRecs: 10}
	require.True(t, good.passed())
	for name, bad := range map[string]func(*txnReport){
		"not killed":      func(r *txnReport) { r.killed = -1 },
		"not moved":       func(r *txnReport) { r.movedTo = r.killed },
		"lost":            func(r *txnReport) { r.lost, r.in = 1, 9 },
		"duplicate":       func(r *txnReport) { r.duplicates, r.in = 1, 11 },
		"reordered":       func(r *txnReport) { r.reordered = 1 },
		"elsewhere":       func(r *txnReport) { r.wrongAt = 1 },
		"aborted visible": func(r *txnReport) { r.abortedVisible, r.in = 1, 11 },
		"callback":        func(r *txnReport) { r.callbackFailed = 1 },
		"not the demo's":  func(r *txnReport) { r.unexpected = 1 },
	} {
		r := good
		bad(&r)
		require.False(t, r.passed(), name)
		var out strings.Builder
		printTxnReport(&out, r)
		require.Contains(t, out.String(), "FAILED", name)
	}
}

func TestDemoTransactionsFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-transactions", "-scenario", "seed"},
		{"-transactions", "-fault-at", "0.2"},
		{"-txn-records", "10"},
		{"-transactions", "-txn-records", "0"},
	} {
		var out, errb strings.Builder
		require.Equal(t, 2, runDemo(context.Background(), args, &out, &errb), "%v", args)
	}
}

// TestDemoTransactionsKafka runs `rollsafe demo -transactions -kafka` on a
// real local 3-broker cluster: the coordinator's broker killed (SIGKILL)
// just before a commit, the commit going on at the new coordinator.
// Skipped without Java and the Kafka jars, except under CI=true.
func TestDemoTransactionsKafka(t *testing.T) {
	kafkatest.Require(t)
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-transactions", "-kafka", "-records", "6000", "-size", "200", "-partitions", "3"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	report := out.String()
	t.Log(report)
	require.Contains(t, report, "on real Apache Kafka "+kafkatest.KafkaVersion)
	require.Regexp(t, `coordinator   broker (\d) killed just before a commit, which (committed|returned: .*); the coordinator is now broker \d`, report)
	require.Contains(t, report, "aborted visible 0")
	require.Contains(t, report, "PASSED")
}
