package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// demoTopic is the topic the demo writes.
const demoTopic = "events"

// demoHeader carries each record's index, so the read-back can tell every
// record apart whatever the fixture's bytes are.
const demoHeader = "rollsafe.n"

// demoReport is what the demo measured and found.
type demoReport struct {
	records, acked, failed         int
	seconds, mbytes                float64
	retries, bumps, tails, losses  int64
	lost, duplicates, reordered    int
	wrongOffset, failedPresent, in int
}

// runDemo implements `rollsafe demo`: an embedded 3-broker cluster, the
// seed scenario played while producing, then every partition read back.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	records := fs.Int("records", 1_000_000, "records to produce")
	size := fs.Int("size", fixture.Large, fmt.Sprintf("value size in bytes (>= %d)", fixture.MinValueSize))
	codecName := fs.String("codec", "gzip", "gzip|snappy|lz4|zstd|none")
	partitions := fs.Int("partitions", 6, "partitions of the demo topic")
	scen := fs.String("scenario", "seed", "fault scenario: "+strings.Join(scenario.Names(), "|")+"|none")
	at := fs.Duration("fault-at", time.Second, "when the scenario starts (seed: when the leader goes down)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rollsafe demo [-records N] [-size B] [-codec C] [-scenario S]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	codec, err := compress.ParseCodec(*codecName)
	bad := func(msg string) int {
		fmt.Fprintln(stderr, "rollsafe demo:", msg)
		fs.Usage()
		return 2
	}
	switch {
	case fs.NArg() != 0:
		return bad("no positional arguments")
	case err != nil:
		return bad(err.Error())
	case *records <= 0:
		return bad("-records must be positive")
	case *size < fixture.MinValueSize:
		return bad(fmt.Sprintf("-size must be at least %d", fixture.MinValueSize))
	case *partitions <= 0:
		return bad("-partitions must be positive")
	}
	var sched scenario.Schedule
	switch *scen {
	case "none":
	case "seed":
		sched = scenario.Seed(scenario.SeedConfig{Topic: demoTopic, Partition: 0, Down: *at, Up: *at, OutOfOrderOnReturn: true})
	default:
		if sched, err = scenario.ByName(*scen, demoTopic, 3); err != nil {
			return bad(err.Error())
		}
	}
	rep, err := demo(ctx, stdout, *records, *size, codec, int32(*partitions), sched)
	if err != nil {
		fmt.Fprintln(stderr, "rollsafe demo:", err)
		return 1
	}
	printDemoReport(stdout, rep)
	if rep.lost != 0 || rep.duplicates != 0 || rep.reordered != 0 {
		return 1
	}
	return 0
}

func demo(ctx context.Context, out io.Writer, n, size int, codec compress.Codec, parts int32, sched scenario.Schedule) (demoReport, error) {
	rep := demoReport{records: n}
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic(demoTopic, parts, 3), sim.RecorderLimit(100))
	if err != nil {
		return rep, err
	}
	defer c.Close()
	hooks := &countingHooks{}
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Compression(codec, compress.DefaultLevel), client.WithHooks(hooks))
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(out, "rollsafe demo: %d records of %d B (%s) to %d partitions on a 3-broker cluster at %s; scenario %q\n",
		n, size, codec, parts, strings.Join(c.Addrs(), ","), sched.Name)

	// Where each record was acknowledged, by index; -1 partition: failed.
	part := make([]int32, n)
	offset := make([]int64, n)
	var acked, failed atomic.Int64
	var firstErr error
	var errOnce sync.Once
	done := func(r *client.Record, err error) {
		i := int(binary.BigEndian.Uint64(r.Headers[0].Value))
		if err != nil {
			part[i] = -1
			failed.Add(1)
			errOnce.Do(func() { firstErr = err })
			return
		}
		part[i], offset[i] = r.Partition, r.Offset
		acked.Add(1)
	}

	pctx, stopPlay := context.WithCancel(ctx)
	defer stopPlay()
	player := scenario.NewPlayer(c, sched)
	played := make(chan error, 1)
	go func() { played <- player.Run(pctx) }()
	progressDone := make(chan struct{})
	start := time.Now()
	var progress sync.WaitGroup
	progress.Add(1)
	go func() {
		defer progress.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-progressDone:
				return
			case <-t.C:
				a := acked.Load()
				fmt.Fprintf(out, "\racked %9d / %d  %8.0f rec/s  fault: %-60.60s", a, n, float64(a)/time.Since(start).Seconds(), player.Current())
			}
		}
	}()

	gen := fixture.New(fixture.Seed)
	var bytes int64
	for i := 0; i < n && ctx.Err() == nil; i++ {
		ev := gen.Next(size)
		idx := make([]byte, 8)
		binary.BigEndian.PutUint64(idx, uint64(i))
		bytes += int64(len(ev.Key) + len(ev.Value))
		p.Produce(ctx, &client.Record{Topic: demoTopic, Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp,
			Headers: []client.Header{{Key: demoHeader, Value: idx}}}, done)
	}
	flushErr := p.Flush(ctx)
	elapsed := time.Since(start)
	close(progressDone)
	progress.Wait()
	fmt.Fprintf(out, "\racked %9d / %d  %8.0f rec/s  fault: %-60.60s\n", acked.Load(), n, float64(acked.Load())/elapsed.Seconds(), player.Current())
	if err := <-played; err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(out, "scenario:", err)
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Close(closeCtx); err != nil && flushErr == nil {
		flushErr = err
	}
	if flushErr != nil {
		return rep, flushErr
	}
	rep.acked, rep.failed = int(acked.Load()), int(failed.Load())
	rep.seconds, rep.mbytes = elapsed.Seconds(), float64(bytes)/1e6
	rep.retries, rep.bumps, rep.tails, rep.losses = hooks.retries.Load(), hooks.bumps.Load(), hooks.tails.Load(), hooks.losses.Load()
	if firstErr != nil {
		fmt.Fprintln(out, "first failure:", firstErr)
	}

	fmt.Fprintln(out, "reading every partition back ...")
	seen := make([]bool, n)
	last := map[int32]int{}
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Minute)
	defer rcancel()
	err = readback.Scan(rctx, c.Addrs(), demoTopic, func(r readback.Record) error {
		if len(r.Headers) == 0 || r.Headers[0].Key != demoHeader || len(r.Headers[0].Value) != 8 {
			return fmt.Errorf("record at %d/%d is not the demo's", r.Partition, r.Offset)
		}
		i := int(binary.BigEndian.Uint64(r.Headers[0].Value))
		if i >= n {
			return fmt.Errorf("record at %d/%d has index %d", r.Partition, r.Offset, i)
		}
		rep.in++
		if seen[i] {
			rep.duplicates++
			return nil
		}
		seen[i] = true
		if part[i] < 0 {
			rep.failedPresent++ // reported failed, yet written: counted, not an error by itself
		} else if part[i] != r.Partition || offset[i] != r.Offset {
			rep.wrongOffset++
		}
		if l, ok := last[r.Partition]; ok && i < l {
			rep.reordered++
		}
		last[r.Partition] = max(last[r.Partition], i)
		return nil
	})
	if err != nil {
		return rep, err
	}
	for i := range n {
		if part[i] >= 0 && !seen[i] {
			rep.lost++
		}
	}
	return rep, nil
}

func printDemoReport(w io.Writer, r demoReport) {
	fmt.Fprintf(w, "produced  %d records (%.1f MB) in %.2fs: %.0f records/s, %.1f MB/s\n",
		r.records, r.mbytes, r.seconds, float64(r.acked)/r.seconds, r.mbytes/r.seconds)
	fmt.Fprintf(w, "acked     %d   failed %d\n", r.acked, r.failed)
	fmt.Fprintf(w, "recovery  retries %d   epoch bumps %d   tail reads %d   data-loss events %d\n", r.retries, r.bumps, r.tails, r.losses)
	fmt.Fprintf(w, "read back %d records: lost %d   duplicates %d   reordered %d", r.in, r.lost, r.duplicates, r.reordered)
	if r.wrongOffset != 0 || r.failedPresent != 0 {
		fmt.Fprintf(w, "   at another offset than acknowledged %d   reported failed but present %d", r.wrongOffset, r.failedPresent)
	}
	fmt.Fprintln(w)
}
