//go:build linux

package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// --- child processes: the Java producer, librdkafka ---

// procTxn is a transactional peer in a child process, speaking bench/
// peerprogs' txn mode: after "ready", one line per transaction in
// ("N commit|abort HOLD_MS ID:P ..."), "txn N OUTCOME [DETAIL]" out.
type procTxn struct {
	ps      *procSession
	replies chan string
}

// startProcTxn starts a txn-mode peer and waits (bounded by ctx) for it to
// have initialized its transactions.
func startProcTxn(ctx context.Context, name string, args []string, tl *tally) (txnSession, error) {
	s := &procTxn{replies: make(chan string, 16)}
	ready := make(chan struct{})
	var once sync.Once
	ps, err := startProcLines(name, args, tl, func(line string) bool {
		switch {
		case line == "ready":
			once.Do(func() { close(ready) })
			return true
		case strings.HasPrefix(line, "txn "):
			s.replies <- strings.TrimPrefix(line, "txn ")
			return true
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	s.ps = ps
	select {
	case <-ready:
		return s, nil
	case <-ps.exited:
		return nil, fmt.Errorf("%s exited before it was ready: %v; log: %s", name, ps.err, strings.Join(tl.logTail(10), " | "))
	case <-ctx.Done():
		_ = ps.finish(context.Background())
		return nil, fmt.Errorf("%s not ready: %w", name, ctx.Err())
	}
}

func (s *procTxn) do(ctx context.Context, req txnReq) txnReply {
	var b strings.Builder
	action := "commit"
	if req.abort {
		action = "abort"
	}
	fmt.Fprintf(&b, "%d %s %d", req.n, action, req.hold.Milliseconds())
	for _, r := range req.recs {
		fmt.Fprintf(&b, " %s:%d", r.id, r.partition)
	}
	b.WriteByte('\n')
	if _, err := s.ps.w.WriteString(b.String()); err == nil {
		if err := s.ps.w.Flush(); err != nil {
			return txnReply{txnNoAnswer, "stdin: " + err.Error()}
		}
	}
	want := fmt.Sprint(req.n)
	for {
		select {
		case line := <-s.replies:
			n, rest, _ := strings.Cut(line, " ")
			if n != want {
				continue // a late answer to a transaction given up on
			}
			out, detail, _ := strings.Cut(rest, " ")
			return txnReply{txnOutcome(out), detail}
		case <-s.ps.exited:
			return txnReply{txnFatal, fmt.Sprintf("the peer exited: %v", s.ps.err)}
		case <-ctx.Done():
			return txnReply{txnNoAnswer, ctx.Err().Error()}
		}
	}
}

func (s *procTxn) finish(ctx context.Context) error { return s.ps.finish(ctx) }

func startJavaTxn(ctx context.Context, addrs []string, topic, id string, o txnPeerOpts, tl *tally) (txnSession, error) {
	java, args, err := javaCmd()
	if err != nil {
		return nil, err
	}
	args = append(args, "txn", strings.Join(addrs, ","), topic, id)
	if o.timeout > 0 {
		args = append(args, fmt.Sprintf("transaction.timeout.ms=%d", o.timeout.Milliseconds()))
	}
	return startProcTxn(ctx, java, args, tl)
}

func startPythonTxn(debian bool) func(context.Context, []string, string, string, txnPeerOpts, *tally) (txnSession, error) {
	return func(ctx context.Context, addrs []string, topic, id string, o txnPeerOpts, tl *tally) (txnSession, error) {
		py, args, err := pythonCmd(debian)
		if err != nil {
			return nil, err
		}
		args = append(args, "txn", strings.Join(addrs, ","), topic, id)
		if o.timeout > 0 {
			args = append(args, fmt.Sprintf("transaction.timeout.ms=%d", o.timeout.Milliseconds()))
		}
		return startProcTxn(ctx, py, args, tl)
	}
}
