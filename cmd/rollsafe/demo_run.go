package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/compress"
)

// demoRun is the producer side of a demo, whatever the cluster: the
// producer, where each record was acknowledged, and the read-back.
type demoRun struct {
	cfg   demoConfig
	rep   *demoReport
	p     *client.Producer
	hooks *countingHooks

	lossMu sync.Mutex // guards rep.reported

	// Where each record was acknowledged, by index; -1 partition: failed.
	part          []int32
	offset        []int64
	acked, failed atomic.Int64
	errOnce       sync.Once
	firstErr      error

	bytes   int64
	elapsed time.Duration
}

func newDemoRun(addrs []string, cfg demoConfig, rep *demoReport) (*demoRun, error) {
	r := &demoRun{cfg: cfg, rep: rep, hooks: &countingHooks{},
		part: make([]int32, cfg.records), offset: make([]int64, cfg.records)}
	p, err := client.NewProducer(client.Brokers(addrs...), client.Compression(cfg.codec, compress.DefaultLevel), client.WithHooks(r.hooks.hooks()),
		client.OnDataLoss(func(dl client.DataLoss) {
			r.lossMu.Lock()
			rep.reported = append(rep.reported, dl)
			r.lossMu.Unlock()
		}))
	if err != nil {
		return nil, err
	}
	r.p = p
	return r, nil
}

func (r *demoRun) done(rec *client.Record, err error) {
	i := int(binary.BigEndian.Uint64(rec.Headers[0].Value))
	if err != nil {
		r.part[i] = -1
		r.failed.Add(1)
		r.errOnce.Do(func() { r.firstErr = err })
		return
	}
	r.part[i], r.offset[i] = rec.Partition, rec.Offset
	r.acked.Add(1)
}

// gates pace a scenario by the records produced: production reaching
// marks[i] lets step i start (reached[i] closes), and production does not
// pass waitAt[i] until step i is done (done[i] is closed by whoever runs
// the steps). waitAt[i] >= marks[i].
type gates struct {
	marks, waitAt  []int
	reached, done  []chan struct{}
	nextStart, ran int
}

func newGates(marks, waitAt []int) *gates {
	g := &gates{marks: marks, waitAt: waitAt}
	for range marks {
		g.reached = append(g.reached, make(chan struct{}))
		g.done = append(g.done, make(chan struct{}))
	}
	return g
}

// at is called before record i is produced.
func (g *gates) at(ctx context.Context, i int) {
	for g.nextStart < len(g.marks) && g.marks[g.nextStart] <= i {
		close(g.reached[g.nextStart])
		g.nextStart++
	}
	for g.ran < len(g.waitAt) && g.waitAt[g.ran] <= i {
		select {
		case <-g.done[g.ran]:
		case <-ctx.Done():
		}
		g.ran++
	}
}

// produce writes the demo's records, paced by g, prints progress (current
// names the fault playing) and flushes. It returns the flush's error.
func (r *demoRun) produce(ctx context.Context, out io.Writer, g *gates, current func() string) error {
	n := r.cfg.records
	start := time.Now()
	prog := newProgress(out, n, start, &r.acked, current)
	prog.start()
	gen := fixture.New(fixture.Seed)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		g.at(ctx, i)
		ev := gen.Next(r.cfg.size)
		idx := make([]byte, 8)
		binary.BigEndian.PutUint64(idx, uint64(i))
		r.bytes += int64(len(ev.Key) + len(ev.Value))
		r.p.Produce(ctx, &client.Record{Topic: demoTopic, Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp,
			Headers: []client.Header{{Key: demoHeader, Value: idx}}}, r.done)
	}
	err := r.p.Flush(ctx)
	r.elapsed = time.Since(start)
	prog.stop(r.elapsed)
	return err
}

// close closes the producer and fills the report's production figures.
// It returns flushErr, or else Close's error.
func (r *demoRun) close(flushErr error) error {
	closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.p.Close(closeCtx); err != nil && flushErr == nil {
		flushErr = err
	}
	if flushErr != nil {
		return flushErr
	}
	rep := r.rep
	rep.acked, rep.failed = int(r.acked.Load()), int(r.failed.Load())
	rep.seconds, rep.mbytes = r.elapsed.Seconds(), float64(r.bytes)/1e6
	rep.retries, rep.bumps, rep.tails, rep.losses = r.hooks.retries.Load(), r.hooks.bumps.Load(), r.hooks.tails.Load(), r.hooks.losses.Load()
	return nil
}

// readBack reads every partition of the demo topic from addrs and counts
// what is lost, duplicated, reordered or elsewhere than acknowledged.
func (r *demoRun) readBack(ctx context.Context, out io.Writer, addrs []string) error {
	n, rep := r.cfg.records, r.rep
	if r.firstErr != nil {
		fmt.Fprintln(out, "first failure:", r.firstErr)
	}
	fmt.Fprintln(out, "reading every partition back ...")
	seen := make([]bool, n)
	last := map[int32]int{}
	// Where each record was first found, to name both copies of a
	// duplicate (the producer id, epoch and sequence of each batch tell a
	// resend deduplicated by nobody from a renumbered copy).
	type copyAt struct {
		offset  int64
		pid     int64
		epoch   int16
		baseSeq int32
	}
	first := make([]copyAt, n)
	shown := 0
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err := readback.Scan(rctx, addrs, demoTopic, func(rec readback.Record) error {
		if len(rec.Headers) == 0 || rec.Headers[0].Key != demoHeader || len(rec.Headers[0].Value) != 8 {
			return fmt.Errorf("record at %d/%d is not the demo's", rec.Partition, rec.Offset)
		}
		i := int(binary.BigEndian.Uint64(rec.Headers[0].Value))
		if i >= n {
			return fmt.Errorf("record at %d/%d has index %d", rec.Partition, rec.Offset, i)
		}
		rep.in++
		if seen[i] {
			rep.duplicates++
			if shown < 3 {
				shown++
				f := first[i]
				fmt.Fprintf(out, "duplicate: record %d at %d/%d (producer %d epoch %d batch seq %d) and at %d/%d (producer %d epoch %d batch seq %d); acknowledged at %d/%d\n",
					i, rec.Partition, f.offset, f.pid, f.epoch, f.baseSeq, rec.Partition, rec.Offset, rec.ProducerID, rec.Epoch, rec.BaseSequence, r.part[i], r.offset[i])
			}
			return nil
		}
		seen[i] = true
		first[i] = copyAt{rec.Offset, rec.ProducerID, rec.Epoch, rec.BaseSequence}
		if r.part[i] < 0 {
			rep.failedPresent++ // reported failed, yet written: counted, not an error by itself
		} else if r.part[i] != rec.Partition || r.offset[i] != rec.Offset {
			rep.wrongOffset++
		}
		if l, ok := last[rec.Partition]; ok && i < l {
			rep.reordered++
		}
		last[rec.Partition] = max(last[rec.Partition], i)
		return nil
	})
	if err != nil {
		return err
	}
	r.lossMu.Lock()
	defer r.lossMu.Unlock()
	for i := range n {
		if r.part[i] >= 0 && !seen[i] {
			rep.lost++
			if reportedLost(rep.reported, r.part[i], r.offset[i]) {
				rep.lostReported++
			}
		}
	}
	return nil
}
