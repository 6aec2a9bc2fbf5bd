//go:build linux

package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
)

// txnResult is one peer's transactions scenario judged by the log read
// back as read_committed: only which transactions the peer called
// committed or aborted comes from it.
type txnResult struct {
	scenario, peer string
	fatal          string // the first fatal outcome or fatal error the peer reported
	txns           int
	committed      int // transactions the API reported committed
	aborted        int // aborted by the program, the abort succeeded
	abortedErr     int // a call failed; the prescribed abort succeeded
	errored        int // a call failed and so did the handling (error, no answer)
	firstErr       string
	missing        int // records of transactions reported committed, not in the read_committed log
	partial        int // transactions the log shows in part: some records, not all
	duplicates     int // records the read_committed log holds more than once
	abortedVisible int // records of transactions reported aborted, in the read_committed log
	unknownIn      int // transactions ending in an error (or fatal) that the log shows committed
	unknown        int // transactions ending in an error or fatal
	foreign        int // read_committed records not of the peer's transactions (the fencing instance's)
	stall          time.Duration
	stallAt        time.Duration // when the longest stall began, from the fault
	protocol       string        // transactions v1 or v2, as the log's epochs tell
	notes          []string
	// fencerLost: the fence scenario's new instance did not commit its
	// record (its error, or "not in the log"): the zombie harmed it.
	fencerLost string
}

func (r *txnRun) result(sc string, fault time.Time, log map[int32][]readback.Record) txnResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := txnResult{scenario: sc, peer: r.peer, txns: len(r.done), notes: slices.Clone(r.notes)}
	// What the read_committed log holds, per record id.
	seen := map[int]int{}
	for _, recs := range readback.Committed(log) {
		for _, rec := range recs {
			id, err := strconv.Atoi(valueID(rec.Value))
			if err != nil {
				res.foreign++
				continue
			}
			seen[id]++
		}
	}
	if r.fenced {
		switch {
		case r.fencer != nil:
			res.fencerLost = r.fencer.Error()
		case !fencerVisible(log):
			res.fencerLost = "its committed record z0 is not in the read_committed log"
		}
	}
	for id, n := range seen {
		if n > 1 {
			res.duplicates += n - 1
		}
		if id/txnRecords >= len(r.done) {
			res.foreign++ // a transaction given up on is still in done; this is not
		}
	}
	prev := fault
	errs := 0
	for _, d := range r.done {
		visible := 0
		for _, rec := range d.req.recs {
			id, _ := strconv.Atoi(rec.id)
			if seen[id] > 0 {
				visible++
			}
		}
		if visible > 0 && visible < len(d.req.recs) {
			res.partial++
		}
		switch d.reply.outcome {
		case txnCommitted:
			res.committed++
			res.missing += len(d.req.recs) - visible
			if d.at.After(fault) {
				if gap := d.at.Sub(prev); gap > res.stall {
					res.stall, res.stallAt = gap, prev.Sub(fault)
				}
				prev = d.at
			}
		case txnAbortedPlan, txnAbortedError:
			if d.reply.outcome == txnAbortedPlan {
				res.aborted++
			} else {
				res.abortedErr++
			}
			res.abortedVisible += visible
		default:
			res.errored++
			res.unknown++
			if visible > 0 {
				res.unknownIn++
			}
		}
		if d.reply.outcome == txnFatal && res.fatal == "" {
			res.fatal = d.reply.detail
		}
		if d.reply.detail != "" {
			e := fmt.Sprintf("txn %d %s: %s", d.req.n, d.reply.outcome, d.reply.detail)
			if res.firstErr == "" {
				res.firstErr = e
			}
			if errs++; errs <= 8 {
				res.notes = append(res.notes, fmt.Sprintf("%6.1fs %s", d.at.Sub(fault).Seconds(), e))
			}
		}
	}
	if !r.ended.IsZero() {
		if gap := r.ended.Sub(prev); gap > res.stall {
			res.stall, res.stallAt = gap, prev.Sub(fault)
		}
	}
	if res.fatal == "" && r.stuck != "" {
		res.fatal = fmt.Sprintf("every call fails (%d in a row): %s", txnErrorsStop, r.stuck)
	}
	if res.fatal == "" && r.tl.isFatal() {
		r.tl.mu.Lock()
		res.fatal = r.tl.fatals[0]
		r.tl.mu.Unlock()
	}
	res.protocol = txnProtocol(log)
	if res.fatal != "" || res.errored > 0 {
		// What the client logged up to it.
		for _, l := range r.tl.logTail(12) {
			res.notes = append(res.notes, "log: "+l)
		}
	}
	return res
}

// txnProtocol tells transactions v2 (KIP-890: every transaction ends with
// an epoch bump, so no two transaction markers of a producer carry the
// same epoch) from v1 (the epoch stays across transactions, bumped only
// on recovery, and by some clients after an abort) by partition 0's
// transaction markers: how many follow one of the same producer id and
// epoch.
func txnProtocol(log map[int32][]readback.Record) string {
	last := map[int64]int16{}
	pairs, same := 0, 0
	for _, rec := range log[0] {
		if !rec.Control {
			continue
		}
		if e, ok := last[rec.ProducerID]; ok {
			pairs++
			if e == rec.Epoch {
				same++
			}
		}
		last[rec.ProducerID] = rec.Epoch
	}
	switch {
	case pairs < 8:
		return "?"
	case same*10 < pairs:
		return "v2"
	}
	return "v1"
}

// judge fails the peer's test on what no transactional client may do: a
// transaction reported committed missing from the log, aborted records
// visible, a transaction visible in part, duplicates.
func (res txnResult) judge(t *testing.T) {
	t.Helper()
	if res.missing != 0 || res.abortedVisible != 0 || res.partial != 0 || res.duplicates != 0 {
		// Every peer's result is a row of the table; only rollsafe's
		// failures fail the test.
		if res.peer == "rollsafe" {
			t.Errorf("%s", res.line())
		} else {
			t.Logf("NOTE %s", res.line())
		}
	}
	if res.fencerLost != "" {
		// The zombie kept transacting and aborted the new instance's
		// transaction (or the new instance, rollsafe, failed on its own).
		if res.peer == "rollsafe" {
			t.Errorf("%s/%s: the new instance with the peer's transactional id did not commit: %s", res.scenario, res.peer, res.fencerLost)
		} else {
			t.Logf("NOTE %s/%s: the new instance with the peer's transactional id did not commit: %s", res.scenario, res.peer, res.fencerLost)
		}
	}
	if res.peer == "rollsafe" && res.committed == 0 {
		t.Errorf("rollsafe committed no transaction")
	}
	for _, n := range res.notes {
		t.Log(n)
	}
}

func (res txnResult) line() string {
	fatal := "-"
	if res.fatal != "" {
		fatal = res.fatal
	}
	return fmt.Sprintf("%s/%s: txns %d (committed %d, aborted %d, aborted after an error %d, error %d); missing %d, partial %d, dup %d, aborted visible %d, unknown committed %d/%d, foreign %d; stall %.1fs at +%.1fs; protocol %s; fatal %s; first error %s",
		res.scenario, res.peer, res.txns, res.committed, res.aborted, res.abortedErr, res.errored, res.missing, res.partial,
		res.duplicates, res.abortedVisible, res.unknownIn, res.unknown, res.foreign, res.stall.Seconds(), res.stallAt.Seconds(),
		res.protocol, fatal, res.firstErr)
}

// txnTable renders the results as docs/peers.md's transactions table.
func txnTable(results []txnResult) string {
	var b strings.Builder
	b.WriteString("| scenario | peer | fatal? | stall | committed / aborted / aborted after error / error | missing | partial | dup | aborted visible | error, in log | protocol | first error |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fatal := "no"
		if r.fatal != "" {
			fatal = "**yes**: " + cell(r.fatal, 90)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f s | %d / %d / %d / %d | %d | %d | %d | %d | %d of %d | %s | %s |\n",
			r.scenario, r.peer, fatal, r.stall.Seconds(), r.committed, r.aborted, r.abortedErr, r.errored,
			r.missing, r.partial, r.duplicates, r.abortedVisible, r.unknownIn, r.unknown, r.protocol, cell(r.firstErr, 120))
	}
	return b.String()
}

// cell makes s fit a markdown table cell of at most n characters.
func cell(s string, n int) string {
	s = strings.NewReplacer("|", "/", "\n", " ").Replace(s)
	if len(s) > n {
		s = s[:n] + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}

// fenceWith starts a rollsafe transactional producer with id (which fences
// the instance holding it), commits one record "z0" to partition 0 of
// topic, and closes it.
func fenceWith(ctx context.Context, addrs []string, topic, id string) error {
	trace, topts, err := rollsafeTrace(topic + "-fencer")
	if err != nil {
		return err
	}
	if trace != nil {
		defer trace.Close()
	}
	p, err := client.NewProducer(append([]client.Option{client.Brokers(addrs...), client.ClientID("bench-fencer"),
		client.TransactionalID(id)}, topts...)...)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = p.Close(cctx)
	}()
	if err := txnCallAgain(ctx, p.InitTransactions); err != nil {
		return fmt.Errorf("InitTransactions: %w", err)
	}
	if err := p.BeginTransaction(); err != nil {
		return err
	}
	p.Produce(ctx, &client.Record{Topic: topic, Partition: 0, HasPartition: true, Value: peerValue("z0")}, func(*client.Record, error) {})
	return txnCallAgain(ctx, p.CommitTransaction)
}

// fencerVisible reports whether the fencing instance's record (value
// "z0|…") is in the read_committed view of log.
func fencerVisible(log map[int32][]readback.Record) bool {
	for _, recs := range readback.Committed(log) {
		for _, rec := range recs {
			if valueID(rec.Value) == "z0" {
				return true
			}
		}
	}
	return false
}
