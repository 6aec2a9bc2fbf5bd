package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/kafkatest"
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
	// lostReported counts the lost records inside a range the producer
	// reported through OnDataLoss; reported lists those ranges.
	lostReported int
	reported     []client.DataLoss
	// steps and played: the scenario's steps and those applied without
	// being skipped; notPlayed says why the scenario fell short.
	steps, played int
	notPlayed     error
	expectLoss    bool // the scenario loses acknowledged records by design
}

// demoConfig is what the demo's flags chose.
type demoConfig struct {
	records, size int
	codec         compress.Codec
	partitions    int32
	sched         scenario.Schedule
	faultAt       float64 // fraction of the records produced when the first step runs
	kafka         bool    // on a real local Kafka cluster (kafkatest) instead of the simulator
	kafkaVersion  kafkatest.Version
	transactions  bool // the transactions demo (demo_txn.go) instead of a scenario
	txnRecords    int  // records per transaction
}

const demoUsage = "usage: rollsafe demo [-kafka [-kafka-version V]] [-records N] [-size B] [-codec C] [-partitions P] [-scenario S] [-fault-at F | -transactions [-txn-records T]]"

// runDemo implements `rollsafe demo`: an embedded 3-broker cluster, a fault
// scenario played while producing, then every partition read back. It
// exits 0 when the scenario played in full and the log holds every
// acknowledged record once, in order, except that under unclean-loss
// acknowledged records may be missing if the producer reported every one
// of them (OnDataLoss); 1 otherwise; 2 on a usage error.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	records := fs.Int("records", 1_000_000, "records to produce")
	size := fs.Int("size", fixture.Large, fmt.Sprintf("value size in bytes (>= %d)", fixture.MinValueSize))
	codecName := fs.String("codec", "gzip", "gzip|snappy|lz4|zstd|none")
	partitions := fs.Int("partitions", 6, "partitions of the demo topic")
	scen := fs.String("scenario", "seed", "fault scenario: "+strings.Join(scenario.Names(), "|")+"|none")
	kafka := fs.Bool("kafka", false, "run on a real local 3-broker Apache Kafka cluster (child JVMs started and stopped by the demo;\nneeds Java 17+ and the jars kafkatest/fetch.sh fetches) instead of the in-process simulator;\nscenarios: seed (controlled shutdown, restart, preferred-leader election) or none")
	kafkaVersion := fs.String("kafka-version", kafkatest.KafkaVersion, "with -kafka, the Apache Kafka release to run: "+versionNames()+"\n(2.8: ZooKeeper mode, the seed's own broker; a release's line, e.g. 3.9, names it)")
	txns := fs.Bool("transactions", false, "play transactions instead of a scenario: a transactional producer writes -records\n(default 20000) in transactions of -txn-records, aborts every fourth, and the transaction\ncoordinator's broker is killed just before a commit; read back as read_committed")
	txnRecords := fs.Int("txn-records", 500, "with -transactions, records per transaction")
	faultAt := fs.Float64("fault-at", 0.1, "fraction of the records produced when the scenario starts (0-0.8); its steps\nspread over the next half of the records, each applied before production goes on")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), demoUsage)
		fmt.Fprintln(fs.Output(), "Exits 0 only if the scenario played in full and the read-back found nothing lost, duplicated or")
		fmt.Fprintln(fs.Output(), "reordered (unclean-loss: every lost record reported by the producer), 1 otherwise.")
		fmt.Fprintln(fs.Output(), "With -transactions: exits 0 only if the coordinator was killed before a commit and a read_committed")
		fmt.Fprintln(fs.Output(), "read shows every committed record once, in order, where acknowledged, and no aborted one.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	codec, err := compress.ParseCodec(*codecName)
	kv, kvErr := kafkatest.ParseVersion(*kafkaVersion)
	kvSet, recordsSet, scenSet, txnRecordsSet := false, false, false, false
	fs.Visit(func(f *flag.Flag) {
		kvSet = kvSet || f.Name == "kafka-version"
		recordsSet = recordsSet || f.Name == "records"
		scenSet = scenSet || f.Name == "scenario" || f.Name == "fault-at"
		txnRecordsSet = txnRecordsSet || f.Name == "txn-records"
	})
	if *txns && !recordsSet {
		*records = 20_000
	}
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
	case *faultAt < 0 || *faultAt > 0.8:
		return bad("-fault-at must be between 0 and 0.8")
	case kvErr != nil:
		return bad(kvErr.Error())
	case kvSet && !*kafka:
		return bad("-kafka-version needs -kafka")
	case *txns && scenSet:
		return bad("-transactions plays its own fault (the coordinator killed before a commit), not -scenario or -fault-at")
	case txnRecordsSet && !*txns:
		return bad("-txn-records needs -transactions")
	case *txnRecords <= 0:
		return bad("-txn-records must be positive")
	case *kafka && *scen != "seed" && *scen != "none":
		return bad(fmt.Sprintf("-kafka plays -scenario seed or none, not %q (the others run on the simulator)", *scen))
	}
	if *txns {
		cfg := demoConfig{records: *records, size: *size, codec: codec, partitions: int32(*partitions), kafka: *kafka, kafkaVersion: kv,
			transactions: true, txnRecords: *txnRecords}
		return runTxnDemo(ctx, cfg, stdout, stderr)
	}
	var sched scenario.Schedule
	switch *scen {
	case "none":
		sched.Name = "none"
	case "seed":
		sched = scenario.Seed(scenario.SeedConfig{Topic: demoTopic, Partition: 0, OutOfOrderOnReturn: true})
	default:
		if sched, err = scenario.ByName(*scen, demoTopic, 3); err != nil {
			return bad(err.Error())
		}
	}
	cfg := demoConfig{records: *records, size: *size, codec: codec, partitions: int32(*partitions), sched: sched, faultAt: *faultAt, kafka: *kafka, kafkaVersion: kv}
	play := demo
	if cfg.kafka {
		play = demoKafka
	}
	rep, err := play(ctx, stdout, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "rollsafe demo:", err)
		return 1
	}
	printDemoReport(stdout, rep)
	if !rep.passed() {
		return 1
	}
	return 0
}

// passed applies the exit rule runDemo documents.
func (r demoReport) passed() bool {
	if r.notPlayed != nil || r.duplicates != 0 || r.reordered != 0 {
		return false
	}
	if r.expectLoss {
		return r.lost == r.lostReported
	}
	return r.lost == 0
}

// stepMarks places each step at a record index: the first at faultAt of
// the records, the others spread by their offsets over the next half of
// the records (at most up to 90%), so the whole scenario plays while the
// producer writes, however fast it goes.
func stepMarks(s scenario.Schedule, n int, faultAt float64) []int {
	first := int(faultAt * float64(n))
	last := min(first+n/2, n*9/10)
	span := s.Span()
	marks := make([]int, len(s.Steps))
	for i, st := range s.Steps {
		m := first
		if span > 0 {
			m += int(float64(last-first) * float64(st.At) / float64(span))
		}
		marks[i] = min(m, n-1)
	}
	return marks
}

func demo(ctx context.Context, out io.Writer, cfg demoConfig) (demoReport, error) {
	n := cfg.records
	rep := demoReport{records: n, steps: len(cfg.sched.Steps), expectLoss: cfg.sched.Name == "unclean-loss"}
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic(demoTopic, cfg.partitions, 3), sim.RecorderLimit(100))
	if err != nil {
		return rep, err
	}
	defer c.Close()
	run, err := newDemoRun(c.Addrs(), cfg, &rep)
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(out, "rollsafe demo: %d records of %d B (%s) to %d partitions, scenario %q\n",
		n, cfg.size, cfg.codec, cfg.partitions, cfg.sched.Name)
	fmt.Fprintf(out, "  3-broker cluster at %s\n", strings.Join(c.Addrs(), ","))
	for _, st := range cfg.sched.Steps {
		fmt.Fprintf(out, "  step: %s\n", st.What())
	}

	// The scenario is paced by the records produced: step i runs when
	// production reaches marks[i], and production waits until it ran.
	marks := stepMarks(cfg.sched, n, cfg.faultAt)
	g := newGates(marks, marks)
	pctx, stopPlay := context.WithCancel(ctx)
	defer stopPlay()
	player := scenario.NewPlayer(c, cfg.sched)
	played := make(chan error, 1)
	go func() {
		next := 0
		err := player.RunPaced(pctx, func(ctx context.Context, i int, st scenario.Step) error {
			for ; next < i; next++ {
				close(g.done[next])
			}
			select {
			case <-g.reached[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
			if st.Kind == scenario.UncleanElect {
				// Production waits: let the records produced so far be
				// acknowledged, so that the election has acknowledged
				// records to lose.
				return run.p.Flush(ctx)
			}
			return nil
		})
		for ; next < len(g.done); next++ {
			close(g.done[next])
		}
		played <- err
	}()

	flushErr := run.produce(ctx, out, g, player.Current)
	stopPlay()
	playErr := <-played
	applied, skipped, firstSkip := player.Played()
	rep.played = applied - skipped
	switch {
	case playErr != nil && !errors.Is(playErr, context.Canceled):
		rep.notPlayed = playErr
	case applied < rep.steps:
		rep.notPlayed = fmt.Errorf("only %d of %d steps ran before the records ran out", applied, rep.steps)
	case skipped > 0:
		rep.notPlayed = fmt.Errorf("%d of %d steps could not be applied, first %w", skipped, rep.steps, firstSkip)
	}
	for _, a := range player.Applied() {
		fmt.Fprintf(out, "  played: %s\n", a)
		if rep.notPlayed == nil && a.Skipped == nil && oneShot(a.Step.Kind) {
			if left, err := c.PendingFaults(a.Step.Topic, a.Step.Partition); err != nil || left > 0 {
				rep.notPlayed = fmt.Errorf("step %d/%d (%s) never struck: no produce request for %s/%d reached it (%d strikes left)",
					a.Index+1, rep.steps, a.Step.What(), a.Step.Topic, a.Step.Partition, left)
			}
		}
	}
	if err := run.close(flushErr); err != nil {
		return rep, err
	}
	return rep, run.readBack(ctx, out, c.Addrs())
}

// oneShot reports whether a step only queues a fault for a partition's
// next produce requests, which the producer may never send.
func oneShot(k scenario.Kind) bool {
	return k == scenario.InjectError || k == scenario.DropResponses || k == scenario.CloseAfterAppend
}

// reportedLost reports whether the producer's data-loss events cover
// offset off of partition p.
func reportedLost(events []client.DataLoss, p int32, off int64) bool {
	for _, e := range events {
		if e.Partition == p && off >= e.FromOffset && off <= e.ToOffset {
			return true
		}
	}
	return false
}

func printDemoReport(w io.Writer, r demoReport) {
	fmt.Fprintf(w, "produced  %d records (%.1f MB) in %.2fs: %.0f records/s, %.1f MB/s\n",
		r.records, r.mbytes, r.seconds, float64(r.acked)/r.seconds, r.mbytes/r.seconds)
	fmt.Fprintf(w, "acked     %d   failed %d\n", r.acked, r.failed)
	fmt.Fprintf(w, "scenario  played %d of %d steps\n", r.played, r.steps)
	fmt.Fprintf(w, "recovery  retries %d   epoch bumps %d   tail reads %d   data-loss events %d\n", r.retries, r.bumps, r.tails, r.losses)
	fmt.Fprintln(w, "          (epoch bump: a partition renumbered under a new producer epoch after a sequence error;")
	fmt.Fprintln(w, "           tail read: its log read back to learn which in-doubt batches were written)")
	fmt.Fprintf(w, "read back %d records: lost %d   duplicates %d   reordered %d", r.in, r.lost, r.duplicates, r.reordered)
	if r.wrongOffset != 0 || r.failedPresent != 0 {
		fmt.Fprintf(w, "   at another offset than acknowledged %d   reported failed but present %d", r.wrongOffset, r.failedPresent)
	}
	fmt.Fprintln(w)
	if r.expectLoss {
		switch {
		case r.lost == 0:
			fmt.Fprintln(w, "expected  the unclean election lost no acknowledged record this time")
		case r.lost == r.lostReported:
			fmt.Fprintf(w, "expected  %d records lost by the unclean election — detected and reported by the producer: offsets %s\n", r.lost, lossRanges(r.reported))
		default:
			fmt.Fprintf(w, "FAILED    %d records lost by the unclean election, only %d of them reported by the producer (reported: %s)\n", r.lost, r.lostReported, lossRanges(r.reported))
		}
	}
	if r.notPlayed != nil {
		fmt.Fprintf(w, "FAILED    the scenario did not play in full: %v\n", r.notPlayed)
	}
	if r.passed() {
		fmt.Fprintln(w, "PASSED")
	} else {
		fmt.Fprintln(w, "FAILED")
	}
}

// lossRanges lists data-loss events as "events/0 120..527".
func lossRanges(events []client.DataLoss) string {
	if len(events) == 0 {
		return "none"
	}
	parts := make([]string, len(events))
	for i, e := range events {
		parts[i] = fmt.Sprintf("%s/%d %d..%d", e.Topic, e.Partition, e.FromOffset, e.ToOffset)
	}
	return strings.Join(parts, ", ")
}

// versionNames lists the Kafka releases -kafka-version takes.
func versionNames() string {
	var names []string
	for _, v := range kafkatest.Versions() {
		names = append(names, v.String())
	}
	return strings.Join(names, ", ")
}
